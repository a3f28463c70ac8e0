import ConcurrencyDebug
import Foundation
import TestSupport
import Testing

/// The opt-in diagnostics, through the built binary (issue 17): `replay --help` says how
/// to turn them on, `--inject-bug` turns on the kind its bug is caught as, and the
/// default set leaves them off.
@Suite("Diagnostic defaults (built binary)")
struct DiagnosticDefaultsTests {
    static let optIn = ["abandoned-insert", "missing-merge", "lost-update", "main-queue-wait", "main-queue-io"]

    @Test func replayHelpSaysHowToTurnOnTheOptInKinds() throws {
        let r = try Reliability.ctxdebug("replay", "--help")
        #expect(r.status == 0, "\(r)")
        let help = r.stdout.replacingOccurrences(of: "\n", with: " ")
        for kind in Self.optIn { #expect(help.contains(kind), "\(kind) in:\n\(r.stdout)") }
        #expect(help.contains("CTXDEBUG_DIAGNOSTICS=default,missing-merge"), "\(r.stdout)")
        #expect(help.contains("CTXDEBUG_DIAGNOSTICS=all"), "\(r.stdout)")
    }

    @Test func readmeSaysHowToTurnOnTheOptInKinds() throws {
        let readme = try String(contentsOf: CLI.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let row = try #require(readme.components(separatedBy: "\n").first { $0.hasPrefix("| `CTXDEBUG_DIAGNOSTICS`") })
        for kind in Self.optIn { #expect(row.contains(kind), "\(kind) in the README's row") }
        #expect(row.contains("default,missing-merge"))
    }

    /// missing-merge is opt-in: `--inject-bug missing-merge` turns it on (and says so)
    /// when CTXDEBUG_DIAGNOSTICS is unset; with the default set named explicitly, the
    /// same stale reads go unreported and the binary warns that the bug will not be caught.
    @Test func injectBugTurnsOnItsOptInKindUnlessTheListIsSet() throws {
        let dir = try temporaryDirectory("reliability-diagnostic-defaults")
        defer { Reliability.remove(dir) }
        let store = dir.appendingPathComponent("journal.sqlite").path
        #expect(try Reliability.ctxdebug("seed", "--store", store, "--entries", "2000").status == 0)

        let report = dir.appendingPathComponent("on.json").path
        let on = try Reliability.ctxdebug(
            "replay", "--store", store, "--duration", "0.5", "--inject-bug", "missing-merge",
            environment: ConcurrencyDebug.Variable.environment([.concurrency: "1", .onViolation: "report", .report: report]))
        #expect(on.status == 66, "\(on)")
        #expect(on.stderr.contains("turning on the opt-in diagnostic missing-merge"), "\(on)")
        let kinds = try Self.kinds(report)
        #expect(kinds == ["missing-merge"])

        let quiet = dir.appendingPathComponent("off.json").path
        let off = try Reliability.ctxdebug(
            "replay", "--store", store, "--duration", "0.5", "--inject-bug", "missing-merge",
            environment: ConcurrencyDebug.Variable.environment([
                .concurrency: "1",
                .onViolation: "report",
                .report: quiet,
                .diagnostics: "default",
            ]))
        #expect(off.status == 0, "\(off)")
        #expect(off.stderr.contains("leaves out missing-merge"), "\(off)")
        #expect(!FileManager.default.fileExists(atPath: quiet), "nothing recorded with the default set")
    }

    static func kinds(_ path: String) throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        return Set((json["violations"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }).sorted()
    }
}
