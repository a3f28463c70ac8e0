import CoreData
import TestSupport
import Testing

@Suite struct BatchAndNotificationTests {
    private func seeded(_ dir: TempDirectory, titles: [String]) throws -> NSPersistentContainer {
        let container = try NotesModel.container(in: dir)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for title in titles {
                let note = Note(context: context)
                note.title = title
            }
            try context.save()
        }
        return container
    }

    /// NSBatchDeleteRequest "removes the objects from the persistent store without
    /// loading them into memory"; a context learns of it by merging the object IDs
    /// (`resultTypeObjectIDs` + `mergeChanges(fromRemoteContextSave:into:)`), Apple's
    /// documented pattern.
    @Test func batchDeleteThenMergeIntoTheViewContext() throws {
        let dir = TempDirectory("coredata-batch-delete")
        let container = try seeded(dir, titles: ["a", "b"])
        let view = container.viewContext
        let before = try view.performAndWait { try view.fetch(NSFetchRequest<Note>(entityName: "Note")) }
        #expect(before.count == 2)
        let request = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Note"))
        request.resultType = .resultTypeObjectIDs
        let result = try view.performAndWait { try view.execute(request) as? NSBatchDeleteResult }
        let ids = try #require(result?.result as? [NSManagedObjectID])
        #expect(ids.count == 2)
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: ids], into: [view])
        let after = try view.performAndWait { try view.count(for: NSFetchRequest<Note>(entityName: "Note")) }
        #expect(after == 0)
    }

    @Test func batchInsertAndUpdateReportCounts() throws {
        let dir = TempDirectory("coredata-batch-insert")
        let container = try NotesModel.container(in: dir)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let insert = NSBatchInsertRequest(entityName: "Note", objects: [["title": "x"], ["title": "y"], ["title": "z"]])
            insert.resultType = .count
            #expect((try context.execute(insert) as? NSBatchInsertResult)?.result as? Int == 3)
            let update = NSBatchUpdateRequest(entityName: "Note")
            update.propertiesToUpdate = ["title": "same"]
            update.resultType = .updatedObjectsCountResultType
            #expect((try context.execute(update) as? NSBatchUpdateResult)?.result as? Int == 3)
            let titles = try context.fetch(NSFetchRequest<Note>(entityName: "Note")).compactMap(\.title)
            #expect(titles == ["same", "same", "same"])
        }
    }

    @Test func historyRequestsSayTheStoreRecordsNone() throws {
        let dir = TempDirectory("coredata-history")
        let container = try NotesModel.container(in: dir)
        let context = container.newBackgroundContext()
        context.performAndWait {
            #expect(container.persistentStoreCoordinator.currentPersistentHistoryToken(fromStores: nil) == nil)
            #expect {
                try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil))
            } throws: { "\($0)".contains("records no persistent history") }
        }
    }

    /// The did-save notification's userInfo holds object sets under Core Data's keys;
    /// code casts them to `Set<NSManagedObject>`.
    @Test func didSaveUserInfoUsesCoreDatasKeys() throws {
        let dir = TempDirectory("coredata-did-save")
        let container = try NotesModel.container(in: dir)
        let context = container.newBackgroundContext()
        let inserted = LockedBox<Int>(-1)
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: context, queue: nil) { note in
            inserted.set((note.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject>)?.count ?? -2)
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try context.performAndWait {
            _ = Note(context: context)
            _ = Note(context: context)
            try context.save()
        }
        #expect(inserted.get() == 2)
    }

    @Test func indexPathHasSectionItemAndRow() {
        let path = IndexPath(row: 3, section: 1)
        #expect(path.section == 1 && path.row == 3 && path.item == 3)
        #expect(IndexPath(item: 2, section: 0) == IndexPath(indexes: [0, 2]))
    }
}

/// A value shared with a notification block.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func set(_ v: Value) { lock.lock(); value = v; lock.unlock() }
    func get() -> Value { lock.lock(); defer { lock.unlock() }; return value }
}
