import CoreData
import Foundation
import GRDB
import TestSupport
import Testing

/// Persistent history in one process: what a tracked save writes in Core Data's tables
/// (ATRANSACTION, ACHANGE, ATRANSACTIONSTRING, Z_PRIMARYKEY rows 16001…16003, as
/// Photos.sqlite and NotesV7.storedata hold them; docs/store-format.md), and the requests
/// of Apple's NSPersistentHistoryChangeRequest documentation over it. The flow across two
/// processes is in RemoteChangeTests.
@Suite struct PersistentHistoryTests {
    static func container(
        _ dir: TempDirectory, tracking: Bool = true, file: String = "Notes.sqlite", model: NSManagedObjectModel = NotesModel.make()
    ) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Notes", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: dir.file(file))
        description.setOption(tracking as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    private func history(_ context: NSManagedObjectContext, _ request: NSPersistentHistoryChangeRequest) throws -> Any? {
        try context.performAndWait { try (context.execute(request) as? NSPersistentHistoryResult)?.result }
    }

    /// Three saves of one context (insert, update of the title, delete), by author "app".
    private func threeSaves(_ context: NSManagedObjectContext) throws {
        context.transactionAuthor = "app"
        context.name = "editor"
        try context.performAndWait {
            let note = Note(context: context)
            note.title = "draft"
            try context.save()
            note.title = "final"
            try context.save()
            context.delete(note)
            try context.save()
        }
    }

    @Test func aTrackedSaveWritesCoreDatasTables() throws {
        let dir = TempDirectory("history-tables")
        let container = try Self.container(dir)
        try threeSaves(container.newBackgroundContext())
        let q = try DatabaseQueue(path: dir.file("Notes.sqlite").path)
        try q.read { db in
            let keys = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT >= 16000 ORDER BY Z_ENT")
            #expect(keys.map { $0[1] as String } == ["CHANGE", "TRANSACTION", "TRANSACTIONSTRING"])
            #expect(keys.map { $0[0] as Int64 } == [16001, 16002, 16003])
            #expect(keys[1][2] as Int64 == 3)
            // Strings interned (ZAUTHORTS…), the inline columns NULL, as Core Data leaves them.
            let t = try #require(try Row.fetchOne(db, sql: """
                SELECT a.ZNAME, c.ZNAME, t.ZAUTHOR, t.Z_ENT, t.ZTIMESTAMP FROM ATRANSACTION t JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS \
                JOIN ATRANSACTIONSTRING c ON c.Z_PK = t.ZCONTEXTNAMETS WHERE t.Z_PK = 1
                """))
            #expect(t[0] as String == "app")
            #expect(t[1] as String == "editor")
            #expect((t[2] as String?) == nil)
            #expect(t[3] as Int64 == 16002)
            #expect(abs((t[4] as Double) - Date().timeIntervalSinceReferenceDate) < 3600)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ATRANSACTIONSTRING WHERE ZNAME = 'app'") == 1)
            let changes = try Row.fetchAll(db, sql: "SELECT ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, Z_ENT FROM ACHANGE ORDER BY Z_PK")
            #expect(changes.map { $0[0] as Int } == [0, 1, 2])
            #expect(changes.map { $0[3] as Int64 } == [1, 2, 3])
            let noteNumber = try Int64.fetchOne(db, sql: "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Note'")
            #expect(changes.allSatisfy { ($0[1] as Int64) == noteNumber && ($0[2] as Int64) == 1 && ($0[4] as Int64) == 16001 })
        }
    }

    @Test func fetchHistoryGivesTransactionsWithAuthorAndChanges() throws {
        let dir = TempDirectory("history-fetch")
        let container = try Self.container(dir)
        try threeSaves(container.newBackgroundContext())
        let reader = container.newBackgroundContext()
        let transactions = try #require(try history(reader, .fetchHistory(after: nil as NSPersistentHistoryToken?)) as? [NSPersistentHistoryTransaction])
        #expect(transactions.map(\.transactionNumber) == [1, 2, 3])
        #expect(transactions.allSatisfy { $0.author == "app" && $0.contextName == "editor" })
        #expect(transactions.allSatisfy { $0.processID == ProcessInfo.processInfo.processName && $0.storeID == container.persistentStoreCoordinator.storeUUID })
        let changes = transactions.map { $0.changes ?? [] }
        #expect(changes.map { $0.map(\.changeType) } == [[.insert], [.update], [.delete]])
        #expect(changes[1][0].updatedProperties?.map(\.name) == ["title"])
        #expect(changes[0][0].updatedProperties == nil)
        #expect(changes[2][0].changedObjectID == changes[0][0].changedObjectID)
        #expect(changes[1][0].transaction === transactions[1])
        // After a token: only what came later; after a date: by the transactions' time.
        let later = try #require(try history(reader, .fetchHistory(after: transactions[0].token)) as? [NSPersistentHistoryTransaction])
        #expect(later.map(\.transactionNumber) == [2, 3])
        let afterTransaction = try #require(try history(reader, .fetchHistory(after: transactions[1])) as? [NSPersistentHistoryTransaction])
        #expect(afterTransaction.map(\.transactionNumber) == [3])
        let byDate = try #require(try history(reader, .fetchHistory(after: transactions[0].timestamp)) as? [NSPersistentHistoryTransaction])
        #expect(byDate.allSatisfy { $0.timestamp > transactions[0].timestamp } && !byDate.contains { $0.transactionNumber == 1 })
        let sinceLongAgo = try #require(try history(reader, .fetchHistory(after: Date.distantPast)) as? [NSPersistentHistoryTransaction])
        #expect(sinceLongAgo.map(\.transactionNumber) == [1, 2, 3])
        #expect(container.persistentStoreCoordinator.currentPersistentHistoryToken(fromStores: nil) == transactions[2].token)
    }

    @Test func resultTypesAndFetchRequests() throws {
        let dir = TempDirectory("history-result-types")
        let container = try Self.container(dir)
        try threeSaves(container.newBackgroundContext())
        let other = container.newBackgroundContext()
        other.transactionAuthor = "sync"
        try other.performAndWait {
            Note(context: other).title = "from sync"
            try other.save()
        }
        let reader = container.newBackgroundContext()
        func request(_ type: NSPersistentHistoryResultType) -> NSPersistentHistoryChangeRequest {
            let r = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
            r.resultType = type
            return r
        }
        #expect(try history(reader, request(.count)) as? Int == 4)
        #expect(try history(reader, request(.statusOnly)) as? Bool == true)
        #expect((try history(reader, request(.changesOnly)) as? [NSPersistentHistoryChange])?.count == 4)
        #expect((try history(reader, request(.objectIDs)) as? [NSManagedObjectID])?.count == 4)
        let only = try #require(try history(reader, request(.transactionsOnly)) as? [NSPersistentHistoryTransaction])
        #expect(only.count == 4 && only.allSatisfy { $0.changes == nil })
        // Apple's "Consuming relevant store changes": skip this process's own author.
        let bySync = request(.transactionsAndChanges)
        let fetch = try #require(NSPersistentHistoryTransaction.fetchRequest)
        fetch.predicate = NSPredicate(format: "author != %@", "app")
        bySync.fetchRequest = fetch
        let sync = try #require(try history(reader, bySync) as? [NSPersistentHistoryTransaction])
        #expect(sync.map(\.author) == ["sync"])
        let inserts = request(.changesOnly)
        let changeFetch = try #require(NSPersistentHistoryChange.fetchRequest)
        changeFetch.predicate = NSPredicate(format: "changeType == %d", NSPersistentHistoryChangeType.insert.rawValue)
        inserts.fetchRequest = changeFetch
        #expect((try history(reader, inserts) as? [NSPersistentHistoryChange])?.map(\.changeType) == [.insert, .insert])
    }

    /// Acceptance: history deleted before a token is gone, nothing else is; a fetch after
    /// a token older than what is left fails with NSPersistentHistoryTokenExpiredError.
    @Test func deleteHistoryBeforeATokenRemovesOnlyThat() throws {
        let dir = TempDirectory("history-delete")
        let container = try Self.container(dir)
        try threeSaves(container.newBackgroundContext())
        let reader = container.newBackgroundContext()
        let all = try #require(try history(reader, .fetchHistory(after: nil as NSPersistentHistoryToken?)) as? [NSPersistentHistoryTransaction])
        let purge = NSPersistentHistoryChangeRequest.deleteHistory(before: all[1].token)
        purge.resultType = .count
        #expect(try history(reader, purge) as? Int == 2)
        let left = try #require(try history(reader, .fetchHistory(after: nil as NSPersistentHistoryToken?)) as? [NSPersistentHistoryTransaction])
        #expect(left.map(\.transactionNumber) == [3])
        #expect(left[0].changes?.map(\.changeType) == [.delete])
        let q = try DatabaseQueue(path: dir.file("Notes.sqlite").path)
        try q.read { db throws in
            #expect(try Int64.fetchAll(db, sql: "SELECT ZTRANSACTIONID FROM ACHANGE") == [3])
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ATRANSACTIONSTRING WHERE ZNAME = 'app'") == 1)
        }
        // The token of the last transaction deleted still reads what follows it…
        #expect((try history(reader, .fetchHistory(after: all[1].token)) as? [NSPersistentHistoryTransaction])?.count == 1)
        // …one before it has lost transactions, and says so.
        #expect {
            _ = try history(reader, .fetchHistory(after: all[0].token))
        } throws: { error in
            let e = error as NSError
            return e.code == NSPersistentHistoryTokenExpiredError && "\(error)".contains("deleted through transaction 2")
        }
        // New transactions never reuse a deleted number.
        try threeSaves(container.newBackgroundContext())
        #expect(container.persistentStoreCoordinator.currentPersistentHistoryToken(fromStores: nil)?.transactionNumber == 6)
    }

    /// An update's `updatedProperties` names what it set: here a to-one relationship and
    /// an attribute, not the attributes it left alone.
    @Test func updatedPropertiesNameTheToOneAndAttributesSet() throws {
        let dir = TempDirectory("history-updated-properties")
        let container = try Self.container(dir)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let note = Note(context: context)
            note.title = "a"
            try context.save()
            let folder = Folder(context: context)
            folder.name = "inbox"
            note.folder = folder
            note.priority = NSNumber(value: 2)
            try context.save()
        }
        let transactions = try #require(try history(context, .fetchHistory(after: nil as NSPersistentHistoryToken?)) as? [NSPersistentHistoryTransaction])
        let second = try #require(transactions.last?.changes)
        let update = try #require(second.first { $0.changeType == .update })
        #expect(Set(update.updatedProperties?.map(\.name) ?? []) == ["folder", "priority"])
        #expect(second.filter { $0.changeType == .insert }.map(\.changedObjectID.entity.name) == ["Folder"])
    }

    /// A many-to-many link made or broken changes both objects' relationship: each side is
    /// an update naming it. Apple: `updatedProperties` is "the set of properties that were
    /// updated on the managed object", expected on changes of type update
    /// (https://developer.apple.com/documentation/coredata/nspersistenthistorychange/updatedproperties);
    /// an object changed in other ways too has one change naming all of them.
    @Test func aManyToManyLinkIsAnUpdateOfBothSides() throws {
        let dir = TempDirectory("history-many-to-many")
        let model = try #require(NSManagedObjectModel(contentsOf: Fixtures.url("Blog.xcdatamodel")))
        let container = try Self.container(dir, file: "Blog.sqlite", model: model)
        let context = container.newBackgroundContext()
        let ids = try context.performAndWait {
            let post = NSEntityDescription.insertNewObject(forEntityName: "Post", into: context)
            post.setValue("p", forKey: "title")
            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            tag.setValue("t", forKey: "name")
            let other = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            other.setValue("u", forKey: "name")
            try context.save()
            post.mutableSetValue(forKey: "tags").add(tag)
            try context.save()
            post.setValue("q", forKey: "title")
            post.mutableSetValue(forKey: "tags").remove(tag)
            try context.save()
            return (post: post.objectID, tag: tag.objectID, other: other.objectID)
        }
        let transactions = try #require(try history(context, .fetchHistory(after: nil as NSPersistentHistoryToken?)) as? [NSPersistentHistoryTransaction])
        try #require(transactions.count == 3)
        func updates(_ t: NSPersistentHistoryTransaction) -> [NSManagedObjectID: Set<String>] {
            var byObject: [NSManagedObjectID: Set<String>] = [:]
            for change in t.changes ?? [] where change.changeType == .update {
                #expect(byObject[change.changedObjectID] == nil, "one change per object and transaction")
                byObject[change.changedObjectID] = Set(change.updatedProperties?.map(\.name) ?? [])
            }
            return byObject
        }
        #expect(transactions[0].changes?.allSatisfy { $0.changeType == .insert && $0.updatedProperties == nil } == true)
        #expect(updates(transactions[1]) == [ids.post: ["tags"], ids.tag: ["posts"]])
        #expect(updates(transactions[2]) == [ids.post: ["title", "tags"], ids.tag: ["posts"]])
        #expect(transactions.allSatisfy { ($0.changes ?? []).allSatisfy { $0.changedObjectID != ids.other || $0.changeType == .insert } })
    }

    @Test func batchRequestsAreRecordedWithTheExecutingContextsAuthor() throws {
        let dir = TempDirectory("history-batch")
        let container = try Self.container(dir)
        let context = container.newBackgroundContext()
        context.transactionAuthor = "importer"
        try context.performAndWait {
            _ = try context.execute(NSBatchInsertRequest(entityName: "Note", objects: [["title": "a"], ["title": "b"]]))
            let update = NSBatchUpdateRequest(entityName: "Note")
            update.propertiesToUpdate = ["title": "same"]
            _ = try context.execute(update)
            _ = try context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Note")))
        }
        let transactions = try #require(try history(context, .fetchHistory(after: nil as NSPersistentHistoryToken?)) as? [NSPersistentHistoryTransaction])
        #expect(transactions.map(\.author) == ["importer", "importer", "importer"])
        #expect(transactions.map { ($0.changes ?? []).map(\.changeType) } == [[.insert, .insert], [.update, .update], [.delete, .delete]])
    }

    /// A store with history reopens (its Z_PRIMARYKEY rows 16001… are no entities of the
    /// model); opened without tracking, it is read-only, as Core Data forces it
    /// (Michael Tsai, "Turning Off Core Data Persistent History Tracking", 2023).
    @Test func aStoreWithHistoryReopensAndWithoutTrackingIsReadOnly() throws {
        let dir = TempDirectory("history-reopen")
        do {
            let container = try Self.container(dir)
            try threeSaves(container.newBackgroundContext())
            container.persistentStoreCoordinator.removePersistentStore()
        }
        let again = try Self.container(dir)
        #expect(again.persistentStoreCoordinator.currentPersistentHistoryToken(fromStores: nil)?.transactionNumber == 3)
        let untracked = try Self.container(dir, tracking: false)
        let context = untracked.newBackgroundContext()
        #expect(try context.performAndWait { try context.count(for: NSFetchRequest<Note>(entityName: "Note")) } == 0)
        #expect {
            try context.performAndWait {
                Note(context: context).title = "untracked"
                try context.save()
            }
        } throws: { "\($0)".contains("read-only") }
    }

    @Test func withoutTrackingThereIsNoTokenAndRequestsSaySo() throws {
        let dir = TempDirectory("history-off")
        let container = try Self.container(dir, tracking: false)
        try threeSaves(container.newBackgroundContext())
        #expect(container.persistentStoreCoordinator.currentPersistentHistoryToken(fromStores: nil) == nil)
        let context = container.newBackgroundContext()
        #expect {
            _ = try history(context, .fetchHistory(after: nil as NSPersistentHistoryToken?))
        } throws: { "\($0)".contains("NSPersistentHistoryTrackingKey") }
    }

    /// A lightweight migration keeps the history. `Z_PRIMARYKEY` holds one row per entity
    /// with `Z_MAX`, the highest primary key given ("How Core Data Saves Data in SQLite",
    /// https://fatbobman.com/en/posts/tables_and_fields_of_coredata/), and Core Data's
    /// history tables have their rows there too (16001 CHANGE, 16002 TRANSACTION, 16003
    /// TRANSACTIONSTRING; docs/store-format.md): the migration renumbers the model's
    /// entities but must keep those three, and the changes' `ZENTITY` must follow the
    /// renumbering. Here a new entity (Attachment) moves Note from 2 to 3.
    @Test func historySurvivesALightweightMigration() throws {
        let dir = TempDirectory("history-migrate")
        func primaryKeys() throws -> [String] {
            let q = try DatabaseQueue(path: dir.file("Notes.sqlite").path)
            defer { try? q.close() }
            return try q.read { db in
                try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT").map { "\($0[0] as Int64) \($0[1] as String) \($0[2] as Int64)" }
            }
        }
        let historyKeys: [String]
        do {
            let container = try Self.container(dir)
            try threeSaves(container.newBackgroundContext())
            let reader = container.newBackgroundContext()
            let all = try #require(try history(reader, .fetchHistory(after: nil as NSPersistentHistoryToken?)) as? [NSPersistentHistoryTransaction])
            _ = try history(reader, .deleteHistory(before: all[1].token))
            container.persistentStoreCoordinator.removePersistentStore()
            historyKeys = try primaryKeys().filter { $0.hasPrefix("1600") }
        }
        #expect(historyKeys.count == 3 && historyKeys[1] == "16002 TRANSACTION 3")
        let v2 = NotesModel.make()
        let attachment = NSEntityDescription()
        attachment.name = "Attachment"
        let file = NSAttributeDescription()
        file.name = "file"
        file.attributeType = .stringAttributeType
        attachment.properties = [file]
        v2.entities = v2.entities + [attachment]
        let container = try Self.container(dir, model: v2)
        #expect(try primaryKeys() == ["1 Attachment 0", "2 Folder 0", "3 Note 1"] + historyKeys)
        // The old history reads back, of the right entity…
        let reader = container.newBackgroundContext()
        let left = try #require(try history(reader, .fetchHistory(after: nil as NSPersistentHistoryToken?)) as? [NSPersistentHistoryTransaction])
        #expect(left.map(\.transactionNumber) == [3])
        #expect(left.first?.changes?.map(\.changedObjectID.entity.name) == ["Note"])
        #expect(left.first?.author == "app")
        // …and new transactions are numbered after the old ones, even once all are deleted.
        _ = try history(reader, .deleteHistory(before: left[0].token))
        try threeSaves(container.newBackgroundContext())
        let after = try #require(try history(reader, .fetchHistory(after: nil as NSPersistentHistoryToken?)) as? [NSPersistentHistoryTransaction])
        #expect(after.map(\.transactionNumber) == [4, 5, 6])
        #expect(after.allSatisfy { $0.author == "app" })
    }

    /// Apps keep the last token they processed by archiving it (NSSecureCoding).
    @Test func aTokenArchivesAndComesBackEqual() throws {
        let dir = TempDirectory("history-token-archive")
        let container = try Self.container(dir)
        try threeSaves(container.newBackgroundContext())
        let token = try #require(container.persistentStoreCoordinator.currentPersistentHistoryToken(fromStores: nil))
        let data = try NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true)
        let back = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersistentHistoryToken.self, from: data))
        #expect(back == token)
        #expect(back.transactionNumber == 3)
    }
}
