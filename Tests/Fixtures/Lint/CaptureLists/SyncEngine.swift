import CoreData

/// A closure's capture list binds names of its own: `[context = backgroundContext]`
/// is the background context inside the closure, whatever `context` names outside it.
final class SyncRecord: NSManagedObject {
    @NSManaged var remoteID: String?
}

final class SyncEngine {
    let container: NSPersistentContainer
    /// The engine's own private context; `backgroundContext` is another one.
    let context: NSManagedObjectContext
    let backgroundContext: NSManagedObjectContext

    init(container: NSPersistentContainer) {
        self.container = container
        context = container.newBackgroundContext()
        backgroundContext = container.newBackgroundContext()
    }

    // Silent: the capture's `context` is the background context, read inside its own
    // performAndWait (it was taken for the engine's `context`, a false alarm).
    func lastSyncDate() -> Date? {
        var date: Date?
        backgroundContext.performAndWait { [context = backgroundContext] in
            date = context.userInfo["lastSync"] as? Date
        }
        return date
    }

    // Silent: the same in perform, and the capture shadows the property for saves too.
    func saveBackground() {
        backgroundContext.perform { [context = self.backgroundContext] in
            try? context.save()
        }
    }

    // context-without-perform, the bug: the capture is the engine's own context, used
    // inside the background context's perform.
    func saveEngineContext() {
        backgroundContext.perform { [engineContext = self.context] in
            try? engineContext.save() // expect: context-without-perform
        }
    }

    // object-across-queues, the bug: objects of the background context, captured under
    // another name, read on the main queue.
    func showRecords() {
        backgroundContext.perform {
            let records = (try? self.backgroundContext.fetch(NSFetchRequest<SyncRecord>(entityName: "SyncRecord"))) ?? []
            DispatchQueue.main.async { [shown = records] in
                print(shown.first?.remoteID ?? "") // expect: object-across-queues
            }
        }
    }

    // The correct twin: only the IDs cross.
    func showRecordIDs() {
        backgroundContext.perform {
            let records = (try? self.backgroundContext.fetch(NSFetchRequest<SyncRecord>(entityName: "SyncRecord"))) ?? []
            DispatchQueue.main.async { [ids = records.map(\.objectID)] in
                print(ids.count)
            }
        }
    }

    func engineWork() {
        context.perform {
            try? self.context.save()
        }
    }
}
