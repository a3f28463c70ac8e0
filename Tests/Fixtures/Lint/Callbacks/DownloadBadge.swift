import CoreData

/// `OperationQueue.main.addOperation { }` runs on the main queue (a row of the API table).
final class DownloadBadge {
    let container: NSPersistentContainer

    init(container: NSPersistentContainer) {
        self.container = container
    }

    // object-across-queues, the bug: a private context's objects read in an operation
    // on the main queue.
    func showLatest() {
        let context = container.newBackgroundContext()
        context.perform {
            let downloads = (try? context.fetch(NSFetchRequest<Download>(entityName: "Download"))) ?? []
            OperationQueue.main.addOperation {
                print(downloads.first?.objectID as Any, downloads.first?.url ?? "") // expect: object-across-queues
            }
        }
    }

    // The correct twin: only the IDs cross, and the view context reads them.
    func showLatestFixed() {
        let context = container.newBackgroundContext()
        context.perform {
            let ids = ((try? context.fetch(NSFetchRequest<Download>(entityName: "Download"))) ?? []).map(\.objectID)
            OperationQueue.main.addOperation {
                let viewContext = self.container.viewContext
                print(ids.compactMap { viewContext.object(with: $0) as? Download }.first?.url ?? "")
            }
        }
    }
}
