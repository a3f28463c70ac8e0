// An XCTest run as `swift test` runs one, for `ctxdebug explore` end to end (issue 37):
// test methods written as apps' tests are, waiting on expectations with
// wait(for:timeout:) while the UI is told on the main queue. Nothing here knows it is
// explored. Usage: ctxdebug-explore-xctest-sample [NoteListTests/testName]
import Dispatch
import Foundation
import ManagedContext
import XCTest

final class Note: ManagedObject {
    @Attribute("title") var title: String? = nil
}

final class NoteListTests: XCTestCase {
    var directory = ""
    var coordinator: PersistentStoreCoordinator!
    var viewContext: ManagedObjectContext!

    override func setUp() {
        directory = NSTemporaryDirectory() + "/ctxdebug-xctest-sample-\(getpid())-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        coordinator = PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [Note.self]))
        try! coordinator.addPersistentStore(at: URL(fileURLWithPath: directory + "/Notes.sqlite"))
        viewContext = ManagedObjectContext(concurrencyType: .mainQueue)
        viewContext.persistentStoreCoordinator = coordinator
        viewContext.name = "view"
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func importer() -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.name = "importer"
        return context
    }

    /// The bug: the list refreshes on a timer (a debounce of 0.2 s) that the test
    /// assumes fires after the import's save.
    func testListShowsImportedNotes() {
        let view = viewContext!
        let importer = importer()
        let refreshed = expectation(description: "the list refreshed")
        let imported = expectation(description: "the import finished")
        nonisolated(unsafe) var shown = -1
        importer.perform {
            for index in 0..<2 { Note(context: importer).title = "note \(index)" }
            try! importer.save()
            DispatchQueue.main.async { imported.fulfill() }
        }
        DispatchQueue.main.asyncAfter(deadline: .now() + 0.2) {
            shown = try! view.fetch(FetchRequest<Note>()).count
            refreshed.fulfill()
        }
        wait(for: [imported, refreshed], timeout: 10)
        XCTAssertEqual(shown, 2, "the list showed \(shown) notes of the 2 imported")
    }

    /// The fix: the list refreshes when the import tells it to, after the save.
    func testListShowsImportedNotesFixed() {
        let view = viewContext!
        let importer = importer()
        let refreshed = expectation(description: "the list refreshed")
        nonisolated(unsafe) var shown = -1
        importer.perform {
            for index in 0..<2 { Note(context: importer).title = "note \(index)" }
            try! importer.save()
            DispatchQueue.main.async {
                shown = try! view.fetch(FetchRequest<Note>()).count
                refreshed.fulfill()
            }
        }
        wait(for: [refreshed], timeout: 10)
        XCTAssertEqual(shown, 2, "the list showed \(shown) notes of the 2 imported")
    }

    static var allTests: [(String, (NoteListTests) -> () -> Void)] {
        [
            ("testListShowsImportedNotes", testListShowsImportedNotes),
            ("testListShowsImportedNotesFixed", testListShowsImportedNotesFixed),
        ]
    }
}

XCTMain([testCase(NoteListTests.allTests)])
