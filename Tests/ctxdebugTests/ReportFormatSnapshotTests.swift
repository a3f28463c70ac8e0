@testable import ctxdebug
import ConcurrencyDebug
import CoreDataLint
import Foundation
import Reports
import Testing

/// The bytes of `ctxdebug check`'s and `ctxdebug lint`'s reports (summary, JUnit, SARIF,
/// JSON, compiler-style text) for fixed inputs, against snapshots in
/// Tests/Fixtures/ReportSnapshots. CI tools read these files; a change to their bytes
/// must be deliberate: re-record with `RECORD_SNAPSHOTS=1 swift test --filter
/// ReportFormatSnapshotTests` and review the diff.
///
/// The inputs reach every branch of the writers: merging across processes, frames of
/// the runtime (skipped), frames without a file or with a relative one, a path with a
/// space (percent-encoded in SARIF), text that XML must escape or drop, several kinds,
/// no violations; findings at relative and absolute paths, no findings.
@Suite struct ReportFormatSnapshotTests {
    static let directory = CLI.packageRoot.appendingPathComponent("Tests/Fixtures/ReportSnapshots")
    static let root = "/src/project"

    static func expectSnapshot(_ data: Data, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = directory.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try data.write(to: url)
            return
        }
        let expected = try #require(FileManager.default.contents(atPath: url.path), "no snapshot \(name): record with RECORD_SNAPSHOTS=1", sourceLocation: sourceLocation)
        #expect(
            data == expected, "\(name) differs from its snapshot:\n\(String(decoding: data, as: UTF8.self))", sourceLocation: sourceLocation)
    }

    static func frame(_ address: UInt, _ function: String?, _ file: String?, _ line: Int?, column: Int? = nil, runtime: Bool = false) -> StackFrame {
        StackFrame(address: address, function: function, file: file, line: line, column: column, module: "/usr/lib/app", isRuntime: runtime)
    }

    static func violation(_ kind: ViolationKind, message: String, frames: [StackFrame], count: Int) -> Violation {
        Violation(
            kind: kind,
            access: AccessDescription(
                operation: "get", entity: "Note", attribute: "text", objectID: "x-coredata://S/Note/p1", contextName: "editor",
                ownerQueueLabel: "private <queue> & 'one'", fixHint: "wrap the access in `context.perform { }`"),
            message: message, queueLabel: "com.apple.main-thread", threadID: 42, threadName: "main", addresses: [], frames: frames,
            count: count)
    }

    static func reportFile(pid: Int32, _ violations: [Violation]) -> ViolationReportFile {
        var file = ViolationReportFile(violations: violations)
        file.pid = pid
        file.executable = "/src/project/.build/debug/App"
        file.arguments = []
        return file
    }

    /// Two processes: the same wrong-queue stack in both, a perform-off-queue in one and
    /// a deadlock without a stack in the other.
    static var mergedRun: MergedRun {
        let wrongQueue = violation(
            .wrongQueue, message: "BUG DETECTED: get of Note.text from the wrong queue <main> & \"editor\" 'x'\u{1}\u{FFFE} é",
            frames: [
                frame(0x10, "ManagedContext.Attribute.subscript", "/src/project/Sources/ManagedContext/PropertyWrappers.swift", 40, runtime: true),
                frame(0x20, "App.Editor.show()", "/src/project/Tests/App Tests/Editor Tests.swift", 12, column: 9),
                frame(0x30, "closure in App.main()", "/src/project/Sources/App/main.swift", 7),
                frame(0x40, "start_thread", "./nptl/pthread_create.c", 442),
                frame(0x50, nil, nil, nil),
            ], count: 2)
        let offQueue = violation(
            .performOffQueue, message: "BUG DETECTED: a perform block ran off its queue",
            frames: [frame(0x60, "App.Sync.run()", "/elsewhere/Sync.swift", 3)], count: 1)
        let deadlock = violation(ViolationKind("deadlock"), message: "BUG DETECTED: a deadlock", frames: [], count: 1)
        return MergedRun(reports: [reportFile(pid: 100, [wrongQueue, offQueue]), reportFile(pid: 200, [wrongQueue, deadlock])])
    }

    static let command = ["swift", "test", "--filter", "Editor <&>"]

    @Test("ctxdebug check: summary, JUnit, SARIF and JSON, with violations")
    func checkWithViolations() throws {
        let run = Self.mergedRun
        try Self.expectSnapshot(Data(run.summary(root: Self.root).utf8), "check-summary.txt")
        try Self.expectSnapshot(Data(run.junit(root: Self.root, command: Self.command).xml().utf8), "check.xml")
        try Self.expectSnapshot(try run.sarif(root: Self.root, command: Self.command, exitStatus: 66).encoded(), "check.sarif")
        try Self.expectSnapshot(try CheckJSON(run, root: Self.root, command: Self.command, exitStatus: 66, level: 1).data(), "check.json")
    }

    @Test("SARIF logs decode into the same model they were encoded from")
    func sarifRoundTrip() throws {
        for log in [Self.mergedRun.sarif(root: Self.root, command: Self.command, exitStatus: 66), LintSARIF.log(Self.lintReport(Self.findings))] {
            #expect(try JSONDecoder().decode(SARIF.Log.self, from: log.encoded()) == log)
        }
    }

    @Test("ctxdebug check: JUnit, SARIF and JSON of a clean run")
    func checkClean() throws {
        let run = MergedRun(reports: [Self.reportFile(pid: 1, [])])
        try Self.expectSnapshot(Data(run.junit(root: Self.root, command: ["true"]).xml().utf8), "check-clean.xml")
        try Self.expectSnapshot(try run.sarif(root: Self.root, command: ["true"], exitStatus: 0).encoded(), "check-clean.sarif")
        try Self.expectSnapshot(try CheckJSON(run, root: Self.root, command: ["true"], exitStatus: 0, level: 2).data(), "check-clean.json")
    }

    static func lintReport(_ findings: [Finding]) -> LintRun {
        LintRun.of(
            findings: findings, baselinedCount: findings.isEmpty ? 0 : 2, rules: RuleCatalog.ids, fileCount: 12, lineCount: 1_204,
            errors: findings.isEmpty ? [] : [LintError(path: "Sources/Bad.swift", reason: "is not UTF-8 text")], root: Self.root,
            commandLine: "ctxdebug lint Sources --sarif lint.sarif", exitStatus: findings.isEmpty ? 0 : 1)
    }

    static let findings = [
        Finding(
            ruleID: RuleCatalog.ids[0], path: "Sources/App/Export View.swift", line: 42, column: 31,
            message: "`entry` belongs to <viewContext> & is read on \"background\"", fix: "pass the objectID", snippet: "let t = entry.title // 'x'"),
        Finding(
            ruleID: RuleCatalog.ids[1], path: "/abs/Other.swift", line: 3, column: 1, message: "context used without perform\u{1}",
            fix: "wrap it in `perform { }`", snippet: "context.save()"),
    ]

    @Test("ctxdebug lint: text, JSON, SARIF and JUnit, with findings and without")
    func lint() throws {
        for (name, report) in [("lint", Self.lintReport(Self.findings)), ("lint-clean", Self.lintReport([]))] {
            try Self.expectSnapshot(Data((LintText.render(report) + LintText.summary(report) + "\n").utf8), "\(name).txt")
            try Self.expectSnapshot(try LintJSON(report).data(), "\(name).json")
            try Self.expectSnapshot(try LintSARIF.encoded(report), "\(name).sarif")
            try Self.expectSnapshot(Data(LintJUnit.report(report).xml().utf8), "\(name).xml")
        }
    }

    /// Every character class the escapers treat apart, through each of them.
    static let awkward = "a<b>&c\"d'e\\f/g\n\r\t\u{0}\u{1}\u{1F}\u{7F}\u{FFFE}\u{FFFF}é😀\u{2028}"

    @Test("The HTML, XML and JSON-string escapers")
    func escapers() throws {
        let text = ["html: " + Escape.html(Self.awkward), "xml: " + Escape.xml(Self.awkward), "json: " + Escape.jsonString(Self.awkward)]
        try Self.expectSnapshot(Data((text.joined(separator: "\n") + "\n").utf8), "escapers.txt")
    }
}
