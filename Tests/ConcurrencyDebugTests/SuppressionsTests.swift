import ConcurrencyDebug
import Foundation
import TestSupport
import Testing

@Suite("Suppressions")
struct SuppressionsTests {
    @Test("The file syntax: comments, prefixes, globs; bad lines warn and are skipped")
    func parse() {
        let text = """
            # frames of code we don't own
            fun:ThirdParty.*
            src:*/Vendor/*.swift   # vendored sources
            obj:*/libLegacy.so

            *LegacyCache*
            race:foo
            fun:
            """
        let (suppressions, warnings) = Suppressions.parse(text, source: "supp.txt")
        #expect(suppressions.rules.map(\.description) == ["fun:ThirdParty.*", "src:*/Vendor/*.swift", "obj:*/libLegacy.so", "*LegacyCache*"])
        #expect(suppressions.rules.map(\.line) == [2, 3, 4, 6])
        #expect(warnings == [
            #"ctxdebug: warning: supp.txt:7: unknown prefix "race:"; accepted: fun:, src:, obj:, or none; skipping the line."#,
            "ctxdebug: warning: supp.txt:8: empty pattern; skipping the line.",
        ])
    }

    @Test("A rule matches any frame of the stack, on the field it names")
    func matching() {
        let (suppressions, _) = Suppressions.parse("fun:ThirdParty.*\nsrc:*/Vendor/*\nobj:*/libLegacy.so", source: "s")
        let app = StackFrame(address: 1, function: "App.main()", file: "/src/App/main.swift", line: 3)
        let vendor = StackFrame(address: 2, function: "Vendored.run()", file: "/src/Vendor/run.swift", line: 9)
        let thirdParty = StackFrame(address: 3, function: "ThirdParty.Cache.get()", file: nil)
        let legacy = StackFrame(address: 4, function: "legacy_get", module: "/usr/lib/libLegacy.so")
        #expect(suppressions.match([app]) == nil)
        #expect(suppressions.match([app, vendor])?.description == "src:*/Vendor/*")
        #expect(suppressions.match([thirdParty, app])?.description == "fun:ThirdParty.*")
        #expect(suppressions.match([app, legacy])?.description == "obj:*/libLegacy.so")
        // A function rule does not look at files.
        let (functionOnly, _) = Suppressions.parse("fun:*/Vendor/*", source: "s")
        #expect(functionOnly.match([vendor]) == nil)
    }

    @Test("A suppressed violation is not reported; the others are")
    func suppressedInProcess() async throws {
        let suppressionsPath = temporaryPath("suppressions.txt")
        let reportPath = temporaryPath("report.json")
        let stderrPath = temporaryPath("stderr.txt")
        try "# tests\nfun:*suppressedHelper*\n".write(toFile: suppressionsPath, atomically: true, encoding: .utf8)
        defer {
            unlink(suppressionsPath)
            unlink(reportPath)
            unlink(stderrPath)
        }
        await #expect(processExitsWith: .exitCode(66)) {
            [suppressionsPath = suppressionsPath as String, reportPath = reportPath as String, stderrPath = stderrPath as String] in
            redirectStandardError(to: stderrPath)
            suppressionsChild(suppressionsPath: suppressionsPath, reportPath: reportPath)
        }
        let stderr = String(decoding: try Data(contentsOf: URL(fileURLWithPath: stderrPath)), as: UTF8.self)
        #expect(stderr.contains("1 distinct concurrency violation (1 in all)"))
        #expect(!stderr.contains("suppressedHelper"))
        let report = try JSONDecoder().decode(
            ViolationReportFile.self, from: Data(contentsOf: URL(fileURLWithPath: reportPath)))
        #expect(report.violations.count == 1)
        #expect(report.violations.first?.access.operation == "set")
        #expect(report.violations.first?.frames.contains { $0.line == line(of: "NOT-SUPPRESSED") } == true)
    }
}

@inline(never)
func suppressedHelper(_ item: FakeItem) {
    _ = item.title
}

private func suppressionsChild(suppressionsPath: String, reportPath: String) {
    ConcurrencyDebug.Variable.set([.concurrency: "1", .onViolation: "report", .suppressions: suppressionsPath, .report: reportPath])
    let item = FakeItem(owner: QueueIdentity.makePrivate(label: "test.owner"))
    DispatchQueue(label: "test.elsewhere").sync {
        for _ in 0..<3 { suppressedHelper(item) }
        item.title = "reported"  // NOT-SUPPRESSED
    }
    if ConcurrencyDebug.suppressedViolationCount != 3 { exit(2) }
}
