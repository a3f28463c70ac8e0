import Foundation
import GRDB
import Testing
import ManagedContext
import TestSupport

@Suite struct BadInputTests {
    func open(_ url: URL, readOnly: Bool = false) throws(ManagedContextError) {
        let c = PersistentStoreCoordinator(managedObjectModel: testModel)
        try c.addPersistentStore(at: url, options: StoreOptions(readOnly: readOnly))
    }

    func expectRefused(_ url: URL, _ code: ManagedContextError.Code, mentions: String) {
        let before = fileBytes(url)
        let wal = URL(fileURLWithPath: url.path + "-wal")
        let walBefore = FileManager.default.fileExists(atPath: wal.path) ? fileBytes(wal) : nil
        do {
            try open(url)
            Issue.record("opening \(url.path) should have failed with \(code)")
        } catch {
            #expect(error.code == code, "\(error)")
            #expect(error.description.contains(mentions), "\(error)")
            #expect(error.path == url.path)
        }
        #expect(fileBytes(url) == before, "the file must not change")
        let walAfter = FileManager.default.fileExists(atPath: wal.path) ? fileBytes(wal) : nil
        // SQLite creates an empty -wal to read a file in WAL mode; it may appear, empty.
        #expect(walAfter == walBefore || (walBefore == nil && walAfter?.isEmpty == true), "the -wal must not change")
    }

    @Test func randomBytesAreNotAStore() throws {
        let dir = TempDirectory()
        let url = dir.file("random.sqlite")
        var rng = SplitMix(seed: 1)
        try Data((0..<8192).map { _ in UInt8(truncatingIfNeeded: rng.next()) }).write(to: url)
        expectRefused(url, .notAStore, mentions: "not an SQLite database")
    }

    /// SQLite treats a zero-byte file as an empty database (its test suite's
    /// backup4.test: "an empty database (zero bytes in size)"), and Core Data creates
    /// its tables in one. A process killed while it creates a store leaves such a
    /// file (SaveCrashTests found it): the next open makes the store there.
    @Test func anEmptyFileBecomesANewStore() throws {
        let dir = TempDirectory()
        let url = dir.file("empty.sqlite")
        try Data().write(to: url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: testModel)
        try coordinator.addPersistentStore(at: url, options: StoreOptions())
        let c = ManagedObjectContext(concurrencyType: .privateQueue)
        c.persistentStoreCoordinator = coordinator
        try c.performAndWait {
            Sample(context: c).name = "first"
            try c.save()
        }
        let count = try c.performAndWait { try c.count(for: FetchRequest<Sample>()) }
        #expect(count == 1)
    }

    @Test func anEmptyFileWithPagesInItsWALIsRefused() throws {
        let dir = TempDirectory()
        let url = dir.file("empty.sqlite")
        try Data().write(to: url)
        try Data(repeating: 7, count: 4096).write(to: URL(fileURLWithPath: url.path + "-wal"))
        expectRefused(url, .notAStore, mentions: "-wal")
    }

    @Test func anEmptyFileOpenedReadOnlyIsRefused() throws {
        let dir = TempDirectory()
        let url = dir.file("empty.sqlite")
        try Data().write(to: url)
        #expect(throws: ManagedContextError.self) { try open(url, readOnly: true) }
        #expect(fileBytes(url).isEmpty, "nothing is written into it")
    }

    @Test func aTruncatedStoreIsRefused() throws {
        let stack = try TestStack()
        let c = stack.privateContext()
        try c.performAndWait {
            for i in 0..<3000 { Sample(context: c).name = String(repeating: "x", count: i % 50) }
            try c.save()
        }
        stack.coordinator.removePersistentStore()  // checkpoints and closes
        let data = fileBytes(stack.storeURL)
        #expect(data.count > 8192)
        let cut = stack.dir.file("cut.sqlite")
        try data.prefix(data.count / 2 + 100).write(to: cut)
        expectRefused(cut, .corruptStore, mentions: "cut short")
    }

    @Test func anotherSchemaIsRefused() throws {
        let dir = TempDirectory()
        let url = dir.file("other.sqlite")
        let q = try DatabaseQueue(path: url.path)
        try q.write { db in try db.execute(sql: "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices VALUES (1, 9.5)") }
        try q.close()
        expectRefused(url, .schemaMismatch, mentions: "invoices")

        // A Core Data store made with another model.
        let other = ManagedObjectModel(entities: [Person.self, Place.self, Visit.self])
        let stack = try TestStack(model: other)
        stack.coordinator.removePersistentStore()
        expectRefused(stack.storeURL, .schemaMismatch, mentions: "Sample")
    }

    @Test func aMissingDirectoryIsReported() {
        let dir = TempDirectory()
        let url = dir.file("no/such/dir/Store.sqlite")
        do {
            try open(url)
            Issue.record("should fail")
        } catch {
            #expect(error.code == .directoryMissing)
            #expect(error.description.contains("does not exist"))
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("no").path))
    }

    @Test func aFileWhereTheDirectoryShouldBeIsReported() throws {
        let dir = TempDirectory()
        try Data("x".utf8).write(to: dir.file("plain"))
        do {
            try open(dir.file("plain/Store.sqlite"))
            Issue.record("should fail")
        } catch {
            #expect(error.code == .directoryMissing)
            #expect(error.description.contains("not a directory"))
        }
    }

    /// A save that fails part-way (the third insert is refused by a trigger, as a
    /// constraint or a full disk would) changes nothing on disk or in the context.
    @Test func aFailedSaveChangesNothing() throws {
        let stack = try TestStack()
        let c = stack.privateContext()
        let keptID: ManagedObjectID = try c.performAndWait {
            let s = Sample(context: c)
            s.name = "kept"
            try c.save()
            return s.objectID
        }
        let q = try DatabaseQueue(path: stack.storeURL.path)
        try q.write { db in
            try db.execute(sql: "CREATE TRIGGER refuse BEFORE INSERT ON ZSAMPLE WHEN NEW.ZNAME = 'bad' BEGIN SELECT RAISE(ABORT, 'refused by test trigger'); END")
        }
        try q.close()
        let before = try stack.rawRead { db in try Row.fetchAll(db, sql: "SELECT * FROM ZSAMPLE ORDER BY Z_PK").map(\.description) }
        let zmax = try stack.rawRead { db in try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Sample'") }

        try c.performAndWait {
            let kept = c.object(with: keptID) as! Sample
            kept.name = "changed"
            let a = Sample(context: c)
            a.name = "a"
            let b = Sample(context: c)
            b.name = "b"
            let bad = Sample(context: c)
            bad.name = "bad"
            let temporaryIDs = [a, b, bad].map(\.objectID)
            do {
                try c.save()
                Issue.record("the save should fail")
            } catch let error as ManagedContextError {
                #expect(error.code == .saveFailed || error.code == .storeOpenFailed, "\(error.code)")
                #expect(error.description.contains("refused by test trigger"))
            } catch {
                Issue.record("unexpected \(error)")
            }
            #expect(c.hasChanges)
            #expect(c.insertedObjects.count == 3)
            #expect(c.updatedObjects.count == 1)
            #expect([a, b, bad].map(\.objectID) == temporaryIDs)
            #expect(kept.name == "changed")

            // Fix and retry: the same changes save.
            bad.name = "fine"
            try c.save()
            #expect(!c.hasChanges)
        }
        #expect(before.count == 1)
        #expect(zmax == 1)
        let after = try stack.rawRead { db in try String.fetchAll(db, sql: "SELECT ZNAME FROM ZSAMPLE ORDER BY Z_PK") }
        #expect(after == ["changed", "a", "b", "fine"])
    }

    @Test func aReadOnlyStoreRefusesTheSaveAndKeepsTheChanges() throws {
        let stack = try TestStack()
        let seed = stack.privateContext()
        try seed.performAndWait {
            Sample(context: seed).name = "one"
            try seed.save()
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: testModel)
        try coordinator.addPersistentStore(at: stack.storeURL, options: StoreOptions(readOnly: true))
        let c = ManagedObjectContext(concurrencyType: .privateQueue)
        c.persistentStoreCoordinator = coordinator
        try c.performAndWait {
            let s = try c.fetch(FetchRequest<Sample>()).first!
            s.name = "two"
            #expect(throws: ManagedContextError.self) { try c.save() }
            #expect(c.hasChanges)
            #expect(s.name == "two")
        }
        let names = try stack.rawRead { db in try String.fetchAll(db, sql: "SELECT ZNAME FROM ZSAMPLE") }
        #expect(names == ["one"])
    }
}
