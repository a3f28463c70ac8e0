@testable import ctxdebug
import ConcurrencyDebug
import Foundation
import ManagedContext
import Reports
import Testing

/// Issue 18, part 2, through `ctxdebug check`'s renderers: SARIF's location and
/// JUnit's message point at the user's line of an attribute access, not at the
/// runtime's frames above it (the property wrapper, the wrapped property's getter, the
/// context's check), from a real report written by a child process.
@Suite struct UserFrameReportTests {
    @Test func sarifAndJUnitStartAtTheUsersLine() async throws {
        let report = NSTemporaryDirectory() + "/ctxdebug-user-frame-\(getpid())-\(UUID().uuidString.prefix(8)).json"
        defer { unlink(report) }
        await #expect(processExitsWith: .exitCode(66)) { [report = report as String] in
            attributeReadFromAnotherQueue(report: report)
        }
        let file = try JSONDecoder().decode(ViolationReportFile.self, from: Data(contentsOf: URL(fileURLWithPath: report)))
        let run = MergedRun(reports: [file])
        try #require(run.violations.count == 1)
        #expect(run.violations[0].violation.frames.first?.isRuntime == true, "the JSON keeps the runtime's frames")
        let root = CLI.packageRoot.standardizedFileURL.path
        let site = siteLine()
        let thisFile = "Tests/ctxdebugTests/UserFrameReportTests.swift"

        let sarif = try run.sarif(root: root, command: ["test"], exitStatus: 0).encoded()
        let log = try #require(try JSONSerialization.jsonObject(with: sarif) as? [String: Any])
        let result = try #require(((log["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]])?.first)
        let physical = try #require(((result["locations"] as? [[String: Any]])?.first?["physicalLocation"]) as? [String: Any])
        #expect((physical["artifactLocation"] as? [String: Any])?["uri"] as? String == thisFile)
        #expect((physical["region"] as? [String: Any])?["startLine"] as? Int == site)

        let junit = run.junit(root: root, command: ["test"]).xml()
        let first = junit.components(separatedBy: "\n").first { $0.contains("#0 0x") } ?? ""
        #expect(first.contains("UserFrameReportTests.swift:\(site):"), "JUnit's stack starts at the user's line: \(first)\n\(junit)")
        #expect(junit.contains(##"name="#1 get of Note.text at \##(thisFile):\##(site)""##), "\(junit)")
    }
}

final class Note: ManagedObject {
    @Attribute("text") var text: String?
}

private func siteLine(file: String = #filePath) -> Int {
    let lines = (try? String(contentsOfFile: file, encoding: .utf8))?.components(separatedBy: "\n") ?? []
    return (lines.firstIndex { $0.contains("// USER-" + "FRAME-SITE") } ?? -1) + 1
}

// Outside `#expect`, so that debug info gives its lines in this file.
private func attributeReadFromAnotherQueue(report: String) {
    ConcurrencyDebug.Variable.set([.concurrency: "1", .onViolation: "report", .report: report])
    let directory = NSTemporaryDirectory() + "/ctxdebug-user-frame-store-\(getpid())"
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let coordinator = PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [Note.self]))
    try! coordinator.addPersistentStore(at: URL(fileURLWithPath: directory + "/Notes.sqlite"))
    let context = ManagedObjectContext(concurrencyType: .privateQueue)
    context.persistentStoreCoordinator = coordinator
    let note = context.performAndWait { Note(context: context) }
    nonisolated(unsafe) let captured = note
    DispatchQueue(label: "test.user-frame-report").sync {
        _ = captured.text  // USER-FRAME-SITE
    }
}
