import Foundation
import ReportFormats
import Reports
import Testing
import ViolationModel

/// `ctxdebug check`'s merge and its reports, in process (the bytes of each file are
/// pinned by ctxdebugTests' ReportFormatSnapshotTests).
@Suite("ctxdebug check's merge and reports")
struct CheckReportsTests {
    static var run: MergedRun {
        let editor = Fixtures.violation(frames: Fixtures.editorStack, count: 2)
        // The same stack at other addresses (another process): the same violation.
        var moved = editor
        moved.frames = moved.frames.map { var frame = $0; frame.address += 0x1000; return frame }
        moved.count = 3
        let other = Fixtures.violation(.performOffQueue, frames: [Fixtures.frame(0x60, "App.Sync.run()", "/elsewhere/Sync.swift", 3)])
        return MergedRun(reports: [Fixtures.reportFile(pid: 1, [editor]), Fixtures.reportFile(pid: 2, [moved, other])])
    }

    @Test("The merge groups by kind and symbolicated stack across processes, most frequent first")
    func merge() {
        let run = Self.run
        #expect(run.processCount == 2)
        #expect(run.totalCount == 6)
        #expect(run.violations.map(\.count) == [5, 1])
        #expect(run.violations.map(\.kind) == [.wrongQueue, .performOffQueue])
        #expect(run.violations[0].pids == [1, 2])
        #expect(MergedRun.stackKey(Fixtures.violation(frames: [])).hasSuffix("BUG DETECTED: x"))
    }

    @Test("The user's frame skips the runtime's and is relative to the root when under it")
    func userFrame() {
        let frame = SourceLocator.userFrame(Fixtures.editorStack, root: Fixtures.root)
        #expect(frame?.function == "App.Editor.show()")
        #expect(SourceLocator.describe(frame, root: Fixtures.root) == "Tests/App/EditorTests.swift:12")
        #expect(SourceLocator.relative("./nptl/pthread_create.c", to: Fixtures.root) == nil)
        #expect(SourceLocator.relative("/src/project/a/../b.swift", to: Fixtures.root) == "b.swift")
    }

    @Test("The summary counts, names the site and holds each report with the run's count")
    func summary() {
        let text = Self.run.summary(root: Fixtures.root)
        #expect(text.hasPrefix("ctxdebug check: 2 distinct concurrency violations (6 in all) in 2 processes, most frequent first\n"))
        #expect(text.contains("[1/2] 5 times, wrong-queue at Tests/App/EditorTests.swift:12, in 2 processes\n"))
        #expect(text.contains("  count:     5 times\n"))
        #expect(text.contains("#0 0x000000000020 in App.Editor.show() at /src/project/Tests/App/EditorTests.swift:12"))
    }

    @Test("JUnit: a failing case per distinct violation at the user's line; one passing case for a clean run")
    func junit() {
        let report = Self.run.junit(root: Fixtures.root, command: ["swift", "test"])
        #expect(report.failureCount == 2)
        #expect(report.cases[0].file == "Tests/App/EditorTests.swift")
        #expect(report.cases[0].line == 12)
        #expect(report.cases[0].classname == "ctxdebug.wrong-queue")
        let clean = MergedRun(reports: []).junit(root: Fixtures.root, command: ["swift", "test"])
        #expect(clean.failureCount == 0)
        #expect(clean.xml().contains(#"<testcase classname="ctxdebug.concurrency" name="no concurrency violations" time="0"/>"#))
    }

    @Test("SARIF: a rule per kind, a result per violation with its location, code flow and stack fingerprint")
    func sarif() throws {
        let log = Self.run.sarif(root: Fixtures.root, command: ["swift", "test"], exitStatus: 66)
        let run = try #require(log.runs.first)
        #expect(run.tool.driver.rules.map(\.id) == ["perform-off-queue", "wrong-queue"])
        let first = run.results[0]
        #expect(first.ruleIndex == 1)
        #expect(first.locations?.first?.physicalLocation?.artifactLocation == .init(uri: "Tests/App/EditorTests.swift", uriBaseId: "%SRCROOT%"))
        #expect(first.partialFingerprints[SARIF.stackFingerprintKey] == SARIF.fingerprint(MergedRun.stackKey(Self.run.violations[0].violation)))
        // Execution order: outermost caller first, the access last.
        #expect(first.codeFlows?.first?.threadFlows.first?.locations.map(\.executionOrder) == [1, 2, 3])
        #expect(run.invocations.first?.exitCode == 66)
        let decoded = try JSONDecoder().decode(SARIF.Log.self, from: log.encoded())
        #expect(decoded == log)
    }

    @Test("The merged JSON carries each violation's counts, location and frames")
    func json() throws {
        let data = try CheckJSON(Self.run, root: Fixtures.root, command: ["swift", "test"], exitStatus: 66, level: 1).data()
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["distinctCount"] as? Int == 2)
        #expect(object["totalCount"] as? Int == 6)
        let first = try #require((object["violations"] as? [[String: Any]])?.first)
        #expect((first["location"] as? [String: Any])?["file"] as? String == "Tests/App/EditorTests.swift")
        #expect((first["frames"] as? [Any])?.count == 3)
    }
}
