import CoreData

/// Merges saves of other coordinators' contexts, always on the merging context's queue.
final class ChangeMerger {
    let container: NSPersistentContainer
    lazy var backgroundContext: NSManagedObjectContext = {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.parent = container.viewContext
        return context
    }()

    init(container: NSPersistentContainer) {
        self.container = container
        NotificationCenter.default.addObserver(
            self, selector: #selector(didSave(_:)), name: .NSManagedObjectContextDidSave, object: nil)
        NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: nil, queue: nil) { [weak self] note in
            guard let context = self?.backgroundContext else { return }
            context.perform { context.mergeChanges(fromContextDidSave: note) }
        }
    }

    @objc private func didSave(_ note: Notification) {
        let viewContext = container.viewContext
        viewContext.perform {
            viewContext.mergeChanges(fromContextDidSave: note)
        }
    }

    func saveChain() {
        backgroundContext.perform {
            try? self.backgroundContext.save()
            self.container.viewContext.perform {
                try? self.container.viewContext.save()
            }
        }
    }

    func saveAll() {
        try? backgroundContext.save()
        saveViewContext()
    }

    func saveViewContext() {
        try? container.viewContext.save()
    }
}
