import Dispatch
import Foundation
import ManagedContext
import XCTest

/// Test methods as apps' XCTest targets write them: the work goes to a context or the
/// main queue, the method waits with `wait(for:timeout:)` (which spins the main run loop
/// on Linux) and then asserts. Each case runs one method through `XCTMain`, as
/// `swift test --filter` would; XCTest exits 1 when an assertion failed.
enum XCTestCases {
    static let all: [AppCase] = [
        AppCase(
            name: "xctest-hop-before-save",
            summary: "an XCTest method waits on an expectation that an import fulfils from a main-queue hop sent before its save",
            run: { run("testImportShowsNotes") }),
        AppCase(
            name: "xctest-hop-before-save-fixed",
            summary: "the import hops to the main queue after its save",
            run: { run("testImportShowsNotesFixed") }),
        AppCase(
            name: "xctest-lost-update",
            summary: "an XCTest method waits on two expectations, each fulfilled by a background context's read-increment-save",
            run: { run("testTwoIncrements") }),
        AppCase(
            name: "xctest-lost-update-fixed",
            summary: "both increments go through one context, whose queue runs them one after the other",
            run: { run("testTwoIncrementsFixed") }),
    ]

    static func run(_ method: String) -> Never {
        XCTMain([testCase(NoteImportTests.allTests)], arguments: [CommandLine.arguments[0], "\(String(reflecting: NoteImportTests.self))/\(method)"])
    }
}

final class NoteImportTests: XCTestCase {
    var stack: AppStack!

    override func setUp() {
        stack = AppStack()
        stack.seedHistory()
    }

    override func tearDown() { stack.destroy() }

    /// The list counts the imported notes once the import said it finished.
    func importShowsNotes(hopAfterSave: Bool) {
        let view = stack.viewContext
        let importer = stack.newBackgroundContext("importer")
        let imported = expectation(description: "the import finished")
        importer.perform {
            HopCases.insertNotes(2, in: importer)
            if hopAfterSave {
                try! importer.save()
                DispatchQueue.main.async { imported.fulfill() }
            } else {
                DispatchQueue.main.async { imported.fulfill() }
                try! importer.save()
            }
        }
        AppStack.browse(view, times: 12)  // the screen loads its list while the import runs
        wait(for: [imported], timeout: 10)
        let shown = try! view.fetch(FetchRequest<Note>()).filter { $0.title?.hasPrefix("note ") == true }.count
        XCTAssertEqual(shown, 2, "the list showed \(shown) notes after the import of 2 finished")
    }

    func testImportShowsNotes() { importShowsNotes(hopAfterSave: false) }
    func testImportShowsNotesFixed() { importShowsNotes(hopAfterSave: true) }

    /// Two syncs each add one to the counter; the test waits for both.
    func twoIncrements(oneContext: Bool) {
        stack.seedCounter()
        let first = stack.newBackgroundContext("a")
        let second = oneContext ? first : stack.newBackgroundContext("b")
        let firstDone = expectation(description: "a incremented")
        let secondDone = expectation(description: "b incremented")
        first.perform {
            AppStack.increment(in: first)
            firstDone.fulfill()
        }
        second.perform {
            AppStack.browse(second, times: 12)  // b's screen refreshes first
            AppStack.increment(in: second)
            secondDone.fulfill()
        }
        wait(for: [firstDone, secondDone], timeout: 10)
        let value = stack.counterValue()
        XCTAssertEqual(value, 2, "two increments left the counter at \(value)")
    }

    func testTwoIncrements() { twoIncrements(oneContext: false) }
    func testTwoIncrementsFixed() { twoIncrements(oneContext: true) }

    static var allTests: [(String, (NoteImportTests) -> () -> Void)] {
        [
            ("testImportShowsNotes", testImportShowsNotes),
            ("testImportShowsNotesFixed", testImportShowsNotesFixed),
            ("testTwoIncrements", testTwoIncrements),
            ("testTwoIncrementsFixed", testTwoIncrementsFixed),
        ]
    }
}
