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
                try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
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

/// A delegate that writes down what the controller tells it.
final class RecordingDelegate: NSFetchedResultsControllerDelegate {
    var events: [String] = []
    func controllerWillChangeContent(_ controller: NSFetchedResultsController<any NSFetchRequestResult>) { events.append("will") }
    func controller(
        _ controller: NSFetchedResultsController<any NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
        for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
    ) {
        let title = (anObject as? Note)?.title ?? "?"
        switch type {
        case .insert: events.append("insert \(title) at \(newIndexPath!.section).\(newIndexPath!.item)")
        case .delete: events.append("delete \(title) from \(indexPath!.section).\(indexPath!.item)")
        case .move: events.append("move \(title) \(indexPath!.section).\(indexPath!.item)->\(newIndexPath!.section).\(newIndexPath!.item)")
        case .update: events.append("update \(title) at \(indexPath!.section).\(indexPath!.item)")
        }
    }
    func controller(
        _ controller: NSFetchedResultsController<any NSFetchRequestResult>, didChange sectionInfo: any NSFetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType
    ) { events.append("\(type == .insert ? "insert" : "delete") section \(sectionInfo.name) at \(sectionIndex)") }
    func controllerDidChangeContent(_ controller: NSFetchedResultsController<any NSFetchRequestResult>) { events.append("did") }
}

/// NSFetchedResultsController: "monitors changes to objects in its associated managed
/// object context, and reports changes in the results set to its delegate" (Apple's
/// documentation), in sections by `sectionNameKeyPath`.
@Suite struct FetchedResultsControllerTests {
    @Test func sectionsAndChangesReachTheDelegate() throws {
        let dir = TempDirectory("coredata-frc")
        let container = try NotesModel.container(in: dir)
        let context = container.viewContext
        let delegate = RecordingDelegate()
        try context.performAndWait {
            for (title, link) in [("a", "x"), ("b", "x"), ("c", "y")] {
                let note = Note(context: context)
                note.title = title
                note.link = URL(string: "https://\(link).example")
            }
            try context.save()
            let request = NSFetchRequest<Note>(entityName: "Note")
            request.sortDescriptors = [NSSortDescriptor(key: "link", ascending: true), NSSortDescriptor(key: "title", ascending: true)]
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "link", cacheName: nil)
            controller.delegate = delegate
            try controller.performFetch()
            #expect(controller.sections?.map(\.numberOfObjects) == [2, 1])
            #expect(controller.object(at: IndexPath(item: 1, section: 0)).title == "b")
            let c = controller.object(at: IndexPath(item: 0, section: 1))
            #expect(controller.indexPath(forObject: c) == IndexPath(item: 0, section: 1))

            // Changes inside a perform block are told when it ends (processPendingChanges).
            let d = Note(context: context)
            d.title = "d"
            d.link = URL(string: "https://z.example")
            context.processPendingChanges()
            #expect(delegate.events == ["will", "insert section https://z.example at 2", "insert d at 2.0", "did"])
            delegate.events = []
            c.title = "c2"
            context.processPendingChanges()
            #expect(delegate.events == ["will", "update c2 at 1.0", "did"])
            delegate.events = []
            context.delete(controller.object(at: IndexPath(item: 0, section: 0)))
            context.processPendingChanges()
            #expect(delegate.events == ["will", "delete a from 0.0", "move b 0.1->0.0", "did"])
            #expect(controller.fetchedObjects?.map(\.title) == ["b", "c2", "d"])
        }
    }
}
