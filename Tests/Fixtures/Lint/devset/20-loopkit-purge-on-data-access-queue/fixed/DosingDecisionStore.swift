// The fixed twin of ../bug/DosingDecisionStore.swift.txt (tidepool-org/LoopKit #270):
// the purge runs inside performAndWait on the store's private context.
import CoreData
import Foundation

extension NSManagedObjectContext {
    /// Deletes the objects of `type` matching `predicate` and saves; returns how many.
    func purgeObjects<T: NSManagedObject>(of type: T.Type, matching predicate: NSPredicate) throws -> Int {
        let request = NSFetchRequest<T>(entityName: String(describing: type))
        request.predicate = predicate
        let objects = try fetch(request)
        objects.forEach(delete)
        try save()
        return objects.count
    }
}

final class DosingDecisionObject: NSManagedObject {
    @NSManaged var date: Date
}

final class PersistenceStore {
    let managedObjectContext: NSManagedObjectContext

    init(coordinator: NSPersistentStoreCoordinator) {
        managedObjectContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        managedObjectContext.persistentStoreCoordinator = coordinator
    }
}

final class DosingDecisionStore {
    private let store: PersistenceStore
    private let dataAccessQueue = DispatchQueue(label: "DosingDecisionStore.dataAccessQueue")

    init(store: PersistenceStore) {
        self.store = store
    }

    func purge(before date: Date, completion: @escaping (Error?) -> Void) {
        dataAccessQueue.async {
            self.purgeDosingDecisionObjects(before: date, completion: completion)
        }
    }

    private func purgeDosingDecisionObjects(before date: Date, completion: (Error?) -> Void) {
        dispatchPrecondition(condition: .onQueue(dataAccessQueue))
        var purgeError: Error?
        let context = store.managedObjectContext
        context.performAndWait {
            do {
                _ = try context.purgeObjects(of: DosingDecisionObject.self, matching: NSPredicate(format: "date < %@", date as NSDate))
            } catch {
                purgeError = error
            }
        }
        completion(purgeError)
    }
}
