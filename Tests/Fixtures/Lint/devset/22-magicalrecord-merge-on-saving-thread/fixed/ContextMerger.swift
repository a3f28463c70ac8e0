// The fixed twin of ../bug/ContextMerger.swift.txt (magicalpanda/MagicalRecord #460):
// the merge runs on the main queue, the default context's.
import CoreData
import Foundation

final class ContextMerger {
    let rootSavingContext: NSManagedObjectContext
    let defaultContext: NSManagedObjectContext
    private var observer: NSObjectProtocol?

    init(coordinator: NSPersistentStoreCoordinator) {
        rootSavingContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        rootSavingContext.persistentStoreCoordinator = coordinator
        defaultContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        defaultContext.persistentStoreCoordinator = coordinator
    }

    func startMerging() {
        let defaultContext = self.defaultContext
        observer = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextDidSave, object: rootSavingContext, queue: nil
        ) { notification in
            DispatchQueue.main.async {
                defaultContext.mergeChanges(fromContextDidSave: notification)
            }
        }
    }
}
