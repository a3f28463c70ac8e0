import CoreData
import Foundation

/// A method called on a new instance inside this instance's perform runs on this
/// instance's context queue, not on the new instance's own context: its straight uses of
/// its own context are outside that context's perform.
final class ArchivedItem: NSManagedObject {
    @NSManaged var age: Int16
}

final class ArchiveStore {
    let container: NSPersistentContainer
    let archiveContext: NSManagedObjectContext

    init(url: URL) {
        container = NSPersistentContainer(name: "Archive")
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        archiveContext = container.newBackgroundContext()
    }

    private func prune(olderThan age: Int16) {
        let request = NSFetchRequest<ArchivedItem>(entityName: "ArchivedItem")
        request.predicate = NSPredicate(format: "age > %d", age)
        let old = (try? archiveContext.fetch(request)) ?? [] // expect: context-without-perform
        old.forEach(archiveContext.delete)
    }

    // context-without-perform, the bug: `copy.prune` runs inside this store's
    // archiveContext.performAndWait, but it uses copy's own archiveContext.
    func exportCopy(to url: URL) {
        let copy = ArchiveStore(url: url)
        archiveContext.performAndWait {
            copy.prune(olderThan: 30)
        }
    }

    private func pruneFixed(olderThan age: Int16) {
        let request = NSFetchRequest<ArchivedItem>(entityName: "ArchivedItem")
        request.predicate = NSPredicate(format: "age > %d", age)
        let old = (try? archiveContext.fetch(request)) ?? []
        old.forEach(archiveContext.delete)
    }

    // The correct twin: it performs on the copy's own context.
    func exportCopyFixed(to url: URL) {
        let copy = ArchiveStore(url: url)
        copy.archiveContext.performAndWait {
            copy.pruneFixed(olderThan: 30)
        }
    }
}
