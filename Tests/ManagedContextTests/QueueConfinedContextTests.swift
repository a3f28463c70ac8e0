import ConcurrencyDebug
import Dispatch
import Foundation
import ManagedContext
import TestSupport
import Testing

/// `QueueConfined(value, context:)`: a value of the user's own, confined to a context's
/// queue as its objects are (docs/concurrency-debug.md). Public API only: this file
/// imports ManagedContext and ConcurrencyDebug without SPI, as a user's code does.
@Suite struct QueueConfinedContextTests {
    @Test func aValueBoundToAPrivateContextIsCheckedAgainstItsQueue() async throws {
        let report = temporaryPath("report.json")
        defer { unlink(report) }
        await #expect(processExitsWith: .exitCode(66)) { [report = report as String] in
            setenv("CTXDEBUG_REPORT", report, 1)
            checkInReportMode(level: 1, journal: "")
            touchAPrivateContextsValue()
        }
        let file = try JSONDecoder().decode(ViolationReportFile.self, from: Data(contentsOf: URL(fileURLWithPath: report)))
        #expect(file.violations.count == 1, "only the access outside perform: \(file.violations.map(\.message))")
        let violation = try #require(file.violations.first)
        #expect(violation.access.objectID == "import.progress")
        #expect(violation.access.fixHint.contains("context.perform"))
        #expect(violation.access.ownerQueueLabel.hasPrefix("ctxdebug.context."), "the context's own queue")
        let site = sourceLine(of: "CONFINED-OUTSIDE-PERFORM")
        #expect(violation.frames.contains { $0.file?.hasSuffix("QueueConfinedContextTests.swift") == true && $0.line == site })
    }

    @Test func aValueBoundToTheViewContextIsFreeOnTheMainQueue() async throws {
        await #expect(processExitsWith: .success) {
            checkInReportMode(level: 1, journal: "")
            let view = openContainer().viewContext
            let title = QueueConfined("", context: view, name: "view.title")
            onMain {
                title.value = "main-queue code may touch it"
                view.performAndWait { title.value += "; so may a perform block" }
            }
            view.performAndWait { title.value += "; and a perform block from elsewhere" }
            precondition(ConcurrencyDebug.recordedViolations.isEmpty, "\(ConcurrencyDebug.recordedViolations.map(\.message))")
            exit(0)
        }
    }
}

private func touchAPrivateContextsValue() {
    let background = openContainer().newBackgroundContext()
    let progress = QueueConfined(0, context: background, name: "import.progress")
    background.performAndWait { progress.value += 1 }  // inside the context's queue: fine
    DispatchQueue(label: "test.elsewhere").sync {
        _ = progress.value  // CONFINED-OUTSIDE-PERFORM
    }
    exit(0)
}

private func openContainer() -> PersistentContainer {
    let container = PersistentContainer(
        name: "Confined", managedObjectModel: testModel, storeURL: URL(fileURLWithPath: temporaryPath("Confined.sqlite")))
    try! container.loadPersistentStores()
    return container
}
