// The fixed twin of ../bug/DefaultStorage.swift.txt (modo-studio/SugarRecord #283): the
// root context's hasChanges is read inside its own performAndWait.
import CoreData
import Foundation

final class DefaultStorage {
    let rootSavingContext: NSManagedObjectContext
    let mainContext: NSManagedObjectContext

    private lazy var saveContext: NSManagedObjectContext = {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.parent = rootSavingContext
        return context
    }()

    init(coordinator: NSPersistentStoreCoordinator) {
        rootSavingContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        rootSavingContext.persistentStoreCoordinator = coordinator
        mainContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        mainContext.parent = rootSavingContext
    }

    /// Runs `operation` on the save context's queue; its `save` pushes the changes down
    /// to the store.
    func operation<T>(_ operation: (NSManagedObjectContext, () -> Void) throws -> T) throws -> T {
        let context = saveContext
        var result: Result<T, Error>?
        context.performAndWait {
            result = Result {
                try operation(context) {
                    try? context.save()
                    self.rootSavingContext.performAndWait {
                        if self.rootSavingContext.hasChanges {
                            try? self.rootSavingContext.save()
                        }
                    }
                }
            }
        }
        return try result!.get()
    }
}
