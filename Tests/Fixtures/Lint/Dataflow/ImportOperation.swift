import CoreData

// docs/lint.md, "The analysis: owners, queues, summaries": the worked example. The
// property is set only from the context performBackgroundTask made for the block, so it
// holds a private-queue context nothing performs on.
class ImportOperation: Operation {
    let container: NSPersistentContainer
    var operationContext: NSManagedObjectContext!

    init(container: NSPersistentContainer) {
        self.container = container
    }

    override func main() {
        container.performBackgroundTask { [weak self] context in
            guard let strongSelf = self else { return }
            strongSelf.operationContext = context
            strongSelf.importAll(in: context)
        }
    }

    func importAll(in context: NSManagedObjectContext) {
        _ = context.insertedObjects
    }

    func saveOperationContext() {
        guard operationContext.hasChanges else { return } // expect: context-without-perform
        try? operationContext.save() // expect: context-without-perform
    }
}
