import CoreData
import Foundation

/// Every member Core Data confines to a context's queue is a use: its state, its
/// userInfo, its undo manager. Apple's NSManagedObjectContext reference names the
/// exceptions: setters (thread-safe), and a main-queue context on the main thread.
final class SyncMarker {
    let container: NSPersistentContainer

    init(container: NSPersistentContainer) {
        self.container = container
    }

    // context-without-perform, the bug: the context's userInfo, read and written
    // outside its perform.
    func markSynced() {
        let context = container.newBackgroundContext()
        context.userInfo["lastSync"] = Date() // expect: context-without-perform
        context.perform {
            try? context.save()
        }
    }

    // The correct twin; and setters, which Apple documents as thread-safe, stay
    // silent outside perform.
    func markSyncedFixed() {
        let context = container.newBackgroundContext()
        context.name = "sync"
        context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        context.automaticallyMergesChangesFromParent = true
        context.undoManager = nil
        context.perform {
            context.userInfo["lastSync"] = Date()
            try? context.save()
        }
    }

    // main-context-off-main-queue, the bug: the view context's undo manager, used
    // from a global queue.
    func endEditing() {
        DispatchQueue.global().async {
            self.container.viewContext.undoManager?.endUndoGrouping() // expect: main-context-off-main-queue
        }
    }

    // The correct twin.
    func endEditingFixed() {
        DispatchQueue.global().async {
            let viewContext = self.container.viewContext
            viewContext.perform { viewContext.undoManager?.endUndoGrouping() }
        }
    }
}
