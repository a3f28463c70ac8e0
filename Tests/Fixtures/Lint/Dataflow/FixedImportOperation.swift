import CoreData

// The fixed twin: the same store, and every use inside the context's performAndWait.
class FixedImportOperation: Operation {
    let container: NSPersistentContainer
    var fixedContext: NSManagedObjectContext!

    init(container: NSPersistentContainer) {
        self.container = container
    }

    override func main() {
        container.performBackgroundTask { [weak self] context in
            guard let strongSelf = self else { return }
            strongSelf.fixedContext = context
        }
    }

    func saveFixedContext() {
        fixedContext.performAndWait {
            guard fixedContext.hasChanges else { return }
            try? fixedContext.save()
        }
    }
}
