import CoreData

// A closure handed to a closure parameter whose own parameter is not @escaping runs
// during that call (Swift lets a non-escaping closure run nowhere else): here, inside
// the editing context's performAndWait, on its queue, not on the root context's.
final class EditingStore {
    let rootContext: NSManagedObjectContext
    let editingContext: NSManagedObjectContext

    init(coordinator: NSPersistentStoreCoordinator) {
        rootContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        rootContext.persistentStoreCoordinator = coordinator
        editingContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        editingContext.parent = rootContext
    }

    // context-without-perform, the bug: the save closure reads the root context's
    // hasChanges on the editing context's queue.
    func edit(_ changes: (NSManagedObjectContext, () -> Void) -> Void) {
        editingContext.performAndWait {
            changes(editingContext) {
                try? self.editingContext.save()
                if self.rootContext.hasChanges { // expect: context-without-perform
                    self.rootContext.perform { try? self.rootContext.save() }
                }
            }
        }
    }

    // The correct twin: the root context's state is read inside its own perform.
    func editFixed(_ changes: (NSManagedObjectContext, () -> Void) -> Void) {
        editingContext.performAndWait {
            changes(editingContext) {
                try? self.editingContext.save()
                self.rootContext.perform {
                    if self.rootContext.hasChanges { try? self.rootContext.save() }
                }
            }
        }
    }

    // Silent: an @escaping closure may be kept and called later from anywhere, even
    // inside rootContext.perform { }.
    func editLater(_ changes: (NSManagedObjectContext, @escaping () -> Void) -> Void) {
        editingContext.performAndWait {
            changes(editingContext) {
                if self.rootContext.hasChanges {
                    self.rootContext.perform { try? self.rootContext.save() }
                }
            }
        }
    }

    // context-without-perform, the bug: Result(catching:) runs its closure right away,
    // on the caller's queue, outside the new context's perform.
    func countNotes(coordinator: NSPersistentStoreCoordinator) -> Result<Int, Error> {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return Result { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note")) } // expect: context-without-perform
    }

    // The correct twin: the Result is made inside the context's performAndWait.
    func countNotesFixed(coordinator: NSPersistentStoreCoordinator) -> Result<Int, Error> {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        var result: Result<Int, Error> = .success(0)
        context.performAndWait {
            result = Result { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note")) }
        }
        return result
    }
}
