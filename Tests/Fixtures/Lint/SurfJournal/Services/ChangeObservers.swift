import CoreData
import Foundation

/// Merges every save into the UI's context.
final class SyncCoordinator {
    let coreDataStack: CoreDataStack
    private var observers: [NSObjectProtocol] = []

    init(coreDataStack: CoreDataStack) {
        self.coreDataStack = coreDataStack
    }

    // merge-off-queue, the bug: queue nil, so the merge runs on the saving context's
    // thread, not on the main queue.
    func startMerging() {
        let observer = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextDidSave, object: nil, queue: nil
        ) { [weak self] notification in
            self?.coreDataStack.mainContext.mergeChanges(fromContextDidSave: notification) // expect: merge-off-queue
        }
        observers.append(observer)
    }

    // merge-off-queue, the correct twin: the merge runs inside the context's perform.
    func startMergingFixed() {
        let observer = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextDidSave, object: nil, queue: nil
        ) { [weak self] notification in
            guard let context = self?.coreDataStack.mainContext else { return }
            context.perform {
                context.mergeChanges(fromContextDidSave: notification)
            }
        }
        observers.append(observer)
    }
}

/// Keeps the view context and an import context up to date.
final class EntryStore: NSObject {
    let container: NSPersistentContainer
    lazy var importContext = container.newBackgroundContext()

    init(container: NSPersistentContainer) {
        self.container = container
        super.init()
        NotificationCenter.default.addObserver(
            self, selector: #selector(contextDidSave(_:)), name: .NSManagedObjectContextDidSave, object: nil)
        NotificationCenter.default.addObserver(
            self, selector: #selector(contextDidSaveFixed(_:)), name: .NSManagedObjectContextDidSave, object: nil)
        // merge-off-queue, the bug: a private-queue context merged on the main queue.
        NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: nil, queue: .main) { note in
            self.importContext.mergeChanges(fromContextDidSave: note) // expect: merge-off-queue
        }
        // merge-off-queue, the correct twin: the view context merged on the main queue.
        NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: nil, queue: .main) { note in
            self.container.viewContext.mergeChanges(fromContextDidSave: note)
        }
    }

    // merge-off-queue, the bug: a selector observer runs on the thread of the context
    // that saved.
    @objc func contextDidSave(_ notification: Notification) {
        container.viewContext.mergeChanges(fromContextDidSave: notification) // expect: merge-off-queue
    }

    // merge-off-queue, the correct twin.
    @objc func contextDidSaveFixed(_ notification: Notification) {
        container.viewContext.perform {
            self.container.viewContext.mergeChanges(fromContextDidSave: notification)
        }
    }
}
