// The fixed twin of ../bug/CoreDataStack.swift.txt (jessesquires/JSQCoreDataKit #65):
// hasChanges is read inside the block that runs on the context's queue.
import CoreData
import Foundation

/// Saves `context` on its own queue, waiting or not.
func saveContext(_ context: NSManagedObjectContext, wait: Bool = true, completion: ((Error?) -> Void)? = nil) {
    let block = {
        guard context.hasChanges else { return }
        do {
            try context.save()
            completion?(nil)
        } catch {
            completion?(error)
        }
    }
    wait ? context.performAndWait(block) : context.perform(block)
}

final class CoreDataStack: NSObject {
    let writerContext: NSManagedObjectContext
    let mainContext: NSManagedObjectContext

    init(coordinator: NSPersistentStoreCoordinator) {
        writerContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        writerContext.persistentStoreCoordinator = coordinator
        mainContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        mainContext.parent = writerContext
        super.init()
        NotificationCenter.default.addObserver(
            self, selector: #selector(mainContextDidSave(_:)), name: .NSManagedObjectContextDidSave, object: mainContext)
    }

    /// The main context saved (on the main queue): push its changes on to the store.
    @objc private func mainContextDidSave(_ notification: Notification) {
        saveContext(writerContext)
    }
}
