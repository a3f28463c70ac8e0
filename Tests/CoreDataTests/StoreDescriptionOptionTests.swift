import CoreData
import Foundation
import GRDB
import TestSupport
import Testing

/// Options of a store description that real stacks set. Apple:
/// `setValue(_:forPragmaNamed:)` "sets a value for a specified SQLite pragma" and
/// `NSSQLitePragmasOption` holds "a dictionary of pragma names and values" run on the
/// store's connections; `shouldAddStoreAsynchronously` "specifies whether the persistent
/// store is added asynchronously", its handler then called later, off the caller's thread;
/// `willAccessValue(forKey:)` is what a custom accessor calls before reading a primitive
/// value, and it fires the fault (Core Data Programming Guide, "Managed Object Accessor
/// Methods").
@Suite("Store description options")
struct StoreDescriptionOptionTests {
    static func load(_ description: NSPersistentStoreDescription) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Notes", managedObjectModel: NotesModel.make())
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    static func pragma(_ name: String, at url: URL) throws -> String? {
        try DatabaseQueue(path: url.path).read { db in try String.fetchOne(db, sql: "PRAGMA \(name)") }
    }

    @Test("pragmas from the description and from NSSQLitePragmasOption run on the store")
    func pragmasRun() throws {
        let dir = TempDirectory("coredata-pragmas")
        let url = dir.file("Notes.sqlite")
        let description = NSPersistentStoreDescription(url: url)
        description.setValue(42 as NSNumber, forPragmaNamed: "user_version")
        description.setOption(["application_id": 7] as NSDictionary, forKey: NSSQLitePragmasOption)
        let container = try Self.load(description)
        try container.viewContext.performAndWait {
            _ = Note(context: container.viewContext)
            try container.viewContext.save()
        }
        #expect(try Self.pragma("user_version", at: url) == "42")
        #expect(try Self.pragma("application_id", at: url) == "7")
    }

    @Test("journal_mode = DELETE is not applied: the store stays in WAL mode, the other pragmas run")
    func journalModeStaysWAL() throws {
        let dir = TempDirectory("coredata-pragmas-journal")
        let url = dir.file("Notes.sqlite")
        let description = NSPersistentStoreDescription(url: url)
        description.setValue("DELETE" as NSString, forPragmaNamed: "journal_mode")
        description.setValue(3 as NSNumber, forPragmaNamed: "user_version")
        _ = try Self.load(description)
        #expect(try Self.pragma("journal_mode", at: url) == "wal")
        #expect(try Self.pragma("user_version", at: url) == "3")
    }

    @Test("a pragma name that is not an identifier is refused with a clear error, and no store is made")
    func badPragmaName() throws {
        let dir = TempDirectory("coredata-pragmas-bad")
        let url = dir.file("Notes.sqlite")
        let description = NSPersistentStoreDescription(url: url)
        description.setValue(1 as NSNumber, forPragmaNamed: "user_version; DROP TABLE ZNOTE")
        let error = #expect(throws: (any Error).self) { try Self.load(description) }
        #expect("\(error.map { $0 } as Any)".contains("is not an SQLite pragma name"))
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test("shouldAddStoreAsynchronously: the handler runs later, on another thread, with the store added")
    func asynchronousAdd() throws {
        let dir = TempDirectory("coredata-async-add")
        let description = NSPersistentStoreDescription(url: dir.file("Notes.sqlite"))
        description.shouldAddStoreAsynchronously = true
        let container = NSPersistentContainer(name: "Notes", managedObjectModel: NotesModel.make())
        container.persistentStoreDescriptions = [description]
        let done = DispatchSemaphore(value: 0)
        let caller = pthread_self()
        let seen = LockedBox<(sameThread: Bool, error: String?, stores: Int)?>(nil)
        container.loadPersistentStores { _, error in
            seen.set((pthread_equal(pthread_self(), caller) != 0, error.map { "\($0)" }, container.persistentStoreCoordinator.persistentStores.count))
            done.signal()
        }
        done.wait()
        let result = try #require(seen.get())
        #expect(!result.sameThread)
        #expect(result.error == nil)
        #expect(result.stores == 1)
    }

    @Test("willAccessValue(forKey:) fires the fault")
    func willAccessValueFiresTheFault() throws {
        let dir = TempDirectory("coredata-will-access")
        let container = try NotesModel.container(in: dir)
        let context = container.viewContext
        try context.performAndWait {
            let note = Note(context: context)
            note.title = "kept"
            try context.save()
            context.refresh(note, mergeChanges: false)
            #expect(note.isFault)
            note.willAccessValue(forKey: nil)
            #expect(!note.isFault)
            #expect(note.primitiveValue(forKey: "title") as? String == "kept")
            note.didAccessValue(forKey: nil)
        }
    }
}

/// `includesPropertyValues`: "If you set the value to false, the fetch request doesn't
/// include property values … the returned objects are faults" (Apple's documentation of
/// NSFetchRequest); objects the context already holds are not turned into faults.
@Suite("Fetch: includesPropertyValues")
struct IncludesPropertyValuesTests {
    @Test("false: the fetch's new objects are faults whose values load when read; held objects keep theirs")
    func newObjectsAreFaults() throws {
        let dir = TempDirectory("coredata-include-values")
        let container = try NotesModel.container(in: dir)
        let writer = container.newBackgroundContext()
        try writer.performAndWait {
            for title in ["a", "b"] { Note(context: writer).title = title }
            try writer.save()
        }
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let held = NSFetchRequest<Note>(entityName: "Note")
            held.predicate = NSPredicate(format: "title == %@", "a")
            let a = try #require(try context.fetch(held).first)
            a.title = "a2"
            let request = NSFetchRequest<Note>(entityName: "Note")
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            request.includesPropertyValues = false
            let notes = try context.fetch(request)
            let b = try #require(notes.first { $0 !== a })
            #expect(b.isFault)
            #expect(!a.isFault && a.title == "a2")
            #expect(b.title == "b")
            #expect(!b.isFault)
        }
    }
}

/// `shouldRefreshRefetchedObjects`: "whether the fetch request should cause property
/// values of fetched objects to be updated with the current values in the persistent
/// store" (Apple's documentation of NSFetchRequest); false by default, when a held
/// object keeps the values it had.
@Suite("Fetch: shouldRefreshRefetchedObjects")
struct RefreshRefetchedObjectsTests {
    @Test("true: a held, unchanged object takes the store's value; false: it keeps its own")
    func refetchedObjectsRefresh() throws {
        let dir = TempDirectory("coredata-refresh-refetched")
        let container = try NotesModel.container(in: dir)
        let reader = container.newBackgroundContext()
        let writer = container.newBackgroundContext()
        let request = NSFetchRequest<Note>(entityName: "Note")
        let id = try writer.performAndWait {
            let note = Note(context: writer)
            note.title = "first"
            try writer.save()
            return note.objectID
        }
        // Realized (its title read): a fault would take the refetched row either way.
        let held = try reader.performAndWait {
            let note = try #require(try reader.fetch(request).first)
            #expect(note.title == "first" && !note.isFault)
            return note
        }
        try writer.performAndWait {
            (try writer.existingObject(with: id) as! Note).title = "second"
            try writer.save()
        }
        try reader.performAndWait {
            _ = try reader.fetch(request)
            #expect(held.title == "first")
            request.shouldRefreshRefetchedObjects = true
            _ = try reader.fetch(request)
            #expect(held.title == "second")
        }
    }

    @Test("assign(_:to:) names the coordinator's store")
    func assignToTheStore() throws {
        let dir = TempDirectory("coredata-assign")
        let container = try NotesModel.container(in: dir)
        let context = container.viewContext
        try context.performAndWait {
            let note = Note(context: context)
            context.assign(note, to: try #require(container.persistentStoreCoordinator.persistentStores.first))
            try context.save()
            #expect(!note.objectID.isTemporaryID)
        }
    }
}
