@_spi(Runtime) import ConcurrencyDebug
import Foundation
import Testing

/// The one configuration's table (`ConcurrencyDebug.Variable.all`) is what the docs
/// list, and what the checker reads.
@Suite struct VariableTableTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The `CTXDEBUG_*` names in the first column of the markdown table that follows
    /// `heading` in `file`.
    static func documentedVariables(in file: String, after heading: String) throws -> Set<String> {
        let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
        let start = try #require(text.range(of: heading), "\(file) has no \(heading)")
        var names = Set<String>()
        var inTable = false
        for line in text[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("|") {
                inTable = true
                let firstCell = line.split(separator: "|").first ?? ""
                for match in firstCell.matches(of: /CTXDEBUG_[A-Z_]+/) { names.insert(String(match.output)) }
            } else if inTable {
                break
            }
        }
        return names
    }

    static let tableNames = Set(ConcurrencyDebug.Variable.all.map(\.name))

    @Test func readmeListsExactlyTheTable() throws {
        #expect(try Self.documentedVariables(in: "README.md", after: "## Configuration") == Self.tableNames)
    }

    @Test func theFlagReferenceListsExactlyTheTable() throws {
        #expect(try Self.documentedVariables(in: "docs/concurrency-debug.md", after: "## All variables") == Self.tableNames)
    }

    @Test func theTableIsConsistent() {
        let all = ConcurrencyDebug.Variable.all
        #expect(Self.tableNames.count == all.count, "every variable once")
        #expect(all.allSatisfy { $0.name.hasPrefix("CTXDEBUG_") && !$0.help.isEmpty && !$0.placeholder.isEmpty })
        let help = ConcurrencyDebug.Variable.helpText
        #expect(all.allSatisfy { help.contains("\($0.name)=\($0.placeholder)") && help.contains($0.help) })
        // The documented defaults the checker and the diagnostics use.
        #expect(ConcurrencyDebug.Configuration.defaultExitCode == Int32(ConcurrencyDebug.Variable.exitCode.defaultValue))
        #expect(ConcurrencyDebug.Configuration.levelVariable == ConcurrencyDebug.Variable.concurrency.name)
    }

    @Test func childEnvironmentsAreBuiltFromTheTable() {
        let environment = ConcurrencyDebug.Variable.environment(
            [.concurrency: "1", .onViolation: "report"], removing: [.report],
            base: ["CTXDEBUG_REPORT": "/tmp/r.json", "PATH": "/bin"])
        #expect(environment == ["CTXDEBUG_CONCURRENCY": "1", "CTXDEBUG_ON_VIOLATION": "report", "PATH": "/bin"])
    }

    /// One trimming rule: the thresholds take whitespace around a number as the other
    /// variables do (they used to warn on `" 100"`).
    @Test func thresholdsAreTrimmedLikeEveryOtherValue() {
        let kinds = ConcurrencyDebug.DiagnosticKinds(
            variable: ConcurrencyDebug.Variable.diagnostics.name, all: [ViolationKind("a")], defaults: [],
            thresholds: [ConcurrencyDebug.Variable.mainQueueWait.name], apply: { _ in }, atExit: {})
        let (choice, warnings) = kinds.read(environment: ["CTXDEBUG_MAIN_QUEUE_WAIT_MS": " 250\t", "CTXDEBUG_DIAGNOSTICS": " a ,\n-a, a"])
        #expect(warnings.isEmpty)
        #expect(choice.thresholds == ["CTXDEBUG_MAIN_QUEUE_WAIT_MS": 250])
        #expect(choice.enabled == [ViolationKind("a")])
    }
}
