import CoreData
import Foundation

/// Three levels, as in a Firebase-sync app: a private writer on the store, the UI's
/// main-queue context, and a private sync context where remote changes land.
final class SyncStack {
    let coordinator: NSPersistentStoreCoordinator

    init(coordinator: NSPersistentStoreCoordinator) {
        self.coordinator = coordinator
    }

    lazy var writerContext: NSManagedObjectContext = {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }()

    lazy var uiContext: NSManagedObjectContext = {
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.parent = writerContext
        return context
    }()

    lazy var syncContext: NSManagedObjectContext = {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.parent = uiContext
        return context
    }()

    // child-save-not-propagated, the bug: the remote change is saved into uiContext,
    // and never reaches the store.
    func apply(_ snapshot: [String: Any]) {
        syncContext.perform {
            let entry = Entry(context: self.syncContext)
            entry.remoteID = snapshot["id"] as? String
            try? self.syncContext.save() // expect: child-save-not-propagated
        }
    }

    // child-save-not-propagated, the bug, one level up: the UI context saves into the
    // writer, which never writes.
    func applyHalfway(_ snapshot: [String: Any]) {
        syncContext.perform {
            let entry = Entry(context: self.syncContext)
            entry.remoteID = snapshot["id"] as? String
            try? self.syncContext.save()
            self.uiContext.perform {
                try? self.uiContext.save() // expect: child-save-not-propagated
            }
        }
    }

    // child-save-not-propagated, the correct twin: each level saves in turn, on its
    // own queue.
    func applyFixed(_ snapshot: [String: Any]) {
        syncContext.perform {
            let entry = Entry(context: self.syncContext)
            entry.remoteID = snapshot["id"] as? String
            try? self.syncContext.save()
            self.uiContext.perform {
                try? self.uiContext.save()
                self.writerContext.perform {
                    try? self.writerContext.save()
                }
            }
        }
    }

    // context-without-perform, the bug: the listener calls back on the main queue, and
    // the sync context is saved there.
    func remoteDidChange() {
        DispatchQueue.main.async {
            try? self.syncContext.save() // expect: context-without-perform, child-save-not-propagated
        }
    }

    // context-without-perform, the correct twin: a helper called inside the context's
    // perform uses the context straight; a method cannot tell its caller's queue, and
    // the linter stays silent.
    func applyAll(_ snapshots: [[String: Any]]) {
        syncContext.perform {
            snapshots.forEach(self.insert)
            try? self.syncContext.save()
            self.uiContext.perform {
                try? self.uiContext.save()
                self.writerContext.perform {
                    try? self.writerContext.save()
                }
            }
        }
    }

    private func insert(_ snapshot: [String: Any]) {
        let entry = Entry(context: syncContext)
        entry.remoteID = snapshot["id"] as? String
    }

    // temporary-id-handoff, the bug: a new entry's ID handed to the UI context at once.
    func insertForDisplay(remoteID: String) -> Entry? {
        var id: NSManagedObjectID?
        syncContext.performAndWait {
            let entry = Entry(context: syncContext)
            entry.remoteID = remoteID
            id = entry.objectID
        }
        guard let id else { return nil }
        return uiContext.object(with: id) as? Entry // expect: temporary-id-handoff
    }
}

final class Entry: NSManagedObject {
    @NSManaged var remoteID: String?
    @NSManaged var title: String?
}
