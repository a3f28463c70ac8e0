import CoreData
import TestSupport
import Testing

/// A delegate that applies snapshots, as an app's diffable data source does.
final class SnapshotDelegate: NSFetchedResultsControllerDelegate {
    var snapshots: [NSDiffableDataSourceSnapshot<String, NSManagedObjectID>] = []
    var classicCalls = 0
    func controller(_ controller: NSFetchedResultsController<any NSFetchRequestResult>, didChangeContentWith snapshot: NSDiffableDataSourceSnapshotReference) {
        snapshots.append(snapshot as NSDiffableDataSourceSnapshot<String, NSManagedObjectID>)
    }
    func controllerWillChangeContent(_ controller: NSFetchedResultsController<any NSFetchRequestResult>) { classicCalls += 1 }
    func controllerDidChangeContent(_ controller: NSFetchedResultsController<any NSFetchRequestResult>) { classicCalls += 1 }
}

/// A delegate with only the difference method.
final class DifferenceDelegate: NSFetchedResultsControllerDelegate {
    var differences: [CollectionDifference<NSManagedObjectID>] = []
    var classicCalls = 0
    func controller(_ controller: NSFetchedResultsController<any NSFetchRequestResult>, didChangeContentWith diff: CollectionDifference<NSManagedObjectID>) {
        differences.append(diff)
    }
    func controllerDidChangeContent(_ controller: NSFetchedResultsController<any NSFetchRequestResult>) { classicCalls += 1 }
}

/// `controller(_:didChangeContentWith:)`, both of Core Data's: the snapshot ("Notifies the
/// receiver about changes to the content in the fetched results controller, by using a
/// diffable data source snapshot … If this method is implemented, no other delegate
/// methods are invoked") and the collection difference ("only invoked if the controller's
/// sectionNameKeyPath property is nil and controller(_:didChangeContentWith:) [the
/// snapshot method] is not implemented"), Apple's documentation of
/// NSFetchedResultsControllerDelegate. The snapshot's sections are the section names and
/// its items the objects' NSManagedObjectIDs, cast with `snapshot as
/// NSDiffableDataSourceSnapshot<String, NSManagedObjectID>` (alexj.org, "Fetched Results
/// Controller & Diffable Data Source Snapshot Issues"); performFetch() delivers the first
/// one; since iOS 15 changed objects are marked with reloadItems (Apple DTS, developer
/// forums thread 692357).
@Suite("Fetched results controller: snapshots and differences")
struct FetchedResultsSnapshotTests {
    static func notes(_ context: NSManagedObjectContext, _ items: [(String, String)]) throws {
        for (title, link) in items {
            let note = Note(context: context)
            note.title = title
            note.link = URL(string: "https://\(link).example")
        }
        try context.save()
    }

    @Test("a snapshot delegate gets the sections and objectIDs after performFetch and after each change, and nothing else")
    func snapshots() throws {
        let dir = TempDirectory("coredata-frc-snapshot")
        let container = try NotesModel.container(in: dir)
        let context = container.viewContext
        let delegate = SnapshotDelegate()
        try context.performAndWait {
            try Self.notes(context, [("a", "x"), ("b", "x"), ("c", "y")])
            let request = NSFetchRequest<Note>(entityName: "Note")
            request.sortDescriptors = [NSSortDescriptor(key: "link", ascending: true), NSSortDescriptor(key: "title", ascending: true)]
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "link", cacheName: nil)
            controller.delegate = delegate
            try controller.performFetch()
            let first = try #require(delegate.snapshots.last)
            #expect(first.sectionIdentifiers == ["https://x.example", "https://y.example"])
            #expect(first.itemIdentifiers == controller.fetchedObjects?.map(\.objectID))
            #expect(first.numberOfItems(inSection: "https://x.example") == 2)
            #expect(first.reloadedItemIdentifiers.isEmpty)

            let c = controller.object(at: IndexPath(item: 0, section: 1))
            c.title = "c2"
            context.processPendingChanges()
            #expect(delegate.snapshots.count == 2)
            #expect(delegate.snapshots.last?.reloadedItemIdentifiers == [c.objectID])

            let d = Note(context: context)
            d.title = "d"
            d.link = URL(string: "https://z.example")
            context.processPendingChanges()
            let last = try #require(delegate.snapshots.last)
            #expect(last.sectionIdentifiers.last == "https://z.example")
            #expect(last.itemIdentifiers(inSection: "https://z.example") == [d.objectID])
            #expect(last.sectionIdentifier(containingItem: c.objectID) == "https://y.example")
            #expect(delegate.classicCalls == 0)
        }
    }

    @Test("without sections, a difference delegate gets the change of the objectIDs, and nothing else")
    func differences() throws {
        let dir = TempDirectory("coredata-frc-difference")
        let container = try NotesModel.container(in: dir)
        let context = container.viewContext
        let delegate = DifferenceDelegate()
        try context.performAndWait {
            try Self.notes(context, [("a", "x"), ("c", "x")])
            let request = NSFetchRequest<Note>(entityName: "Note")
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            controller.delegate = delegate
            try controller.performFetch()
            #expect(delegate.differences.last?.insertions.count == 2)
            let b = Note(context: context)
            b.title = "b"
            context.processPendingChanges()
            let diff = try #require(delegate.differences.last)
            #expect(diff.insertions.map { change -> Int in if case .insert(let offset, _, _) = change { return offset } else { return -1 } } == [1])
            #expect(diff.removals.isEmpty)
            #expect(delegate.classicCalls == 0)
        }
    }

    @Test("a delegate with neither method gets the per-change calls, as before")
    func classicDelegateUnchanged() throws {
        let dir = TempDirectory("coredata-frc-classic")
        let container = try NotesModel.container(in: dir)
        let context = container.viewContext
        let delegate = RecordingDelegate()
        try context.performAndWait {
            try Self.notes(context, [("a", "x")])
            let request = NSFetchRequest<Note>(entityName: "Note")
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            controller.delegate = delegate
            try controller.performFetch()
            #expect(delegate.events.isEmpty)
            let b = Note(context: context)
            b.title = "b"
            context.processPendingChanges()
            #expect(delegate.events == ["will", "insert b at 0.1", "did"])
        }
    }

    @Test("a snapshot built by hand bridges to the reference and back")
    func bridging() {
        var snapshot = NSDiffableDataSourceSnapshot<Int, String>()
        snapshot.appendSections([1, 2])
        snapshot.appendItems(["a", "b"], toSection: 1)
        snapshot.appendItems(["c"])
        snapshot.reloadItems(["b"])
        let reference = snapshot as NSDiffableDataSourceSnapshotReference
        #expect(reference.numberOfItems == 3 && reference.numberOfSections == 2)
        #expect(reference.index(ofItemIdentifier: "c") == 2)
        #expect(reference.index(ofItemIdentifier: "z") == NSNotFound)
        let back = reference as NSDiffableDataSourceSnapshot<Int, String>
        #expect(back.itemIdentifiers(inSection: 2) == ["c"])
        #expect(back.reloadedItemIdentifiers == ["b"])
        #expect((reference as? NSDiffableDataSourceSnapshot<String, String>) == nil)
    }
}
