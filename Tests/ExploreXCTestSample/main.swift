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

    /// A sync engine reads, from a background thread, the title the list shows: with
    /// `performAndWait` on the view context (a main-queue context) while the test waits in
    /// `waitForExpectations` on the main thread, whose run loop runs that block (issue 50).
    /// The fix reads once the editor's save is merged into the view context; the bug
    /// starts the read beside the edit, so the block may read before the save is merged.
    func syncReadsTheEditedTitle(afterMerge: Bool) {
        let view = viewContext!
        let seed = importer()
        let id = seed.performAndWait {
            let note = Note(context: seed)
            note.title = "draft"
            try! seed.save()
            return note.objectID
        }
        XCTAssertEqual((view.object(with: id) as! Note).title, "draft")  // the list shows it
        let editor = importer()
        editor.name = "editor"
        let read = expectation(description: "the sync read the list's title")
        nonisolated(unsafe) var title: String?
        let readList: @Sendable () -> Void = {
            view.performAndWait { title = (view.object(with: id) as! Note).title }
            read.fulfill()
        }
        let observer = NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.didSaveObjectsNotification, object: editor, queue: nil
        ) { saved in
            nonisolated(unsafe) let saved = saved
            view.perform {
                view.mergeChanges(fromContextDidSave: saved)
                if afterMerge { DispatchQueue.global().async(execute: readList) }
            }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        editor.perform {
            (editor.object(with: id) as! Note).title = "final"
            try! editor.save()
        }
        if !afterMerge { DispatchQueue.global().async(execute: readList) }
        // XCTest's methods run on the main thread; its waitForExpectations is @MainActor.
        nonisolated(unsafe) let test = self
        MainActor.assumeIsolated { test.waitForExpectations(timeout: 10) }
        XCTAssertEqual(title, "final", "the sync read \(title ?? "nil") before the edit was merged into the list")
    }

    func testSyncReadsTheEditedTitle() { syncReadsTheEditedTitle(afterMerge: true) }
    func testSyncReadsTheEditedTitleBeforeTheMerge() { syncReadsTheEditedTitle(afterMerge: false) }

    /// A background import tells the list with `DispatchQueue.main.sync` (libdispatch runs
    /// the block on the main thread, here inside XCTest's `wait(for:timeout:)`). The fix
    /// counts after the import's save, in the same background block; the bug counts from
    /// a block of its own, beside the import, so the count may come before the save.
    func mainSyncCountsTheImport(afterSave: Bool) {
        let view = viewContext!
        let importer = importer()
        let imported = expectation(description: "the import finished")
        let counted = expectation(description: "the list counted")
        nonisolated(unsafe) var shown = -1
        let count: @Sendable () -> Void = {
            DispatchQueue.main.sync { shown = try! view.fetch(FetchRequest<Note>()).count }
            counted.fulfill()
        }
        DispatchQueue.global().async {
            importer.performAndWait {
                for index in 0..<2 { Note(context: importer).title = "note \(index)" }
                try! importer.save()
            }
            imported.fulfill()
            if afterSave { count() }
        }
        if !afterSave { DispatchQueue.global().async(execute: count) }
        wait(for: [imported, counted], timeout: 10)
        XCTAssertEqual(shown, 2, "the list counted \(shown) notes before the import of 2 was saved")
    }

    func testMainSyncCountsTheImport() { mainSyncCountsTheImport(afterSave: true) }
    func testMainSyncCountsBesideTheImport() { mainSyncCountsTheImport(afterSave: false) }

    /// Explore's own limit (issue 50): the import waits out a back-off of short sleeps on
    /// a background thread, then saves and fulfils the expectation. A real run's sleeps
    /// take milliseconds, far within the timeout of 2 s, and the method passes; virtual
    /// time keeps no durations of sleeps, so explore may let the wait's watchdog (a long
    /// timer) pass before the last sleep ends. It says so, as its limit, and never reports
    /// the timeout as the test's failure.
    func testImportAfterABackOff() {
        let importer = importer()
        let imported = expectation(description: "the import finished")
        DispatchQueue.global().async {
            for _ in 0..<6 { usleep(1_000) }  // a retry's back-off
            importer.performAndWait {
                Note(context: importer).title = "note"
                try! importer.save()
            }
            imported.fulfill()
        }
        wait(for: [imported], timeout: 2)
    }

    /// setUp's stack and tearDown only: what a schedule pays before the method's own work
    /// (docs/benchmarks.md, "Where a schedule's time goes").
    func testStackOnly() {}

    static var allTests: [(String, (NoteListTests) -> () -> Void)] {
        [
            ("testStackOnly", testStackOnly),
            ("testImportAfterABackOff", testImportAfterABackOff),
            ("testMainSyncCountsTheImport", testMainSyncCountsTheImport),
            ("testMainSyncCountsBesideTheImport", testMainSyncCountsBesideTheImport),
            ("testListShowsImportedNotes", testListShowsImportedNotes),
            ("testListShowsImportedNotesFixed", testListShowsImportedNotesFixed),
            ("testSyncReadsTheEditedTitle", testSyncReadsTheEditedTitle),
            ("testSyncReadsTheEditedTitleBeforeTheMerge", testSyncReadsTheEditedTitleBeforeTheMerge),
        ]
    }
}

XCTMain([testCase(NoteListTests.allTests)])
