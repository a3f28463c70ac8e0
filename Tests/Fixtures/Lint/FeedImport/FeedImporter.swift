import CoreData
import Foundation

/// Downloads the feed and stores each item.
final class FeedImporter {
    let container: NSPersistentContainer

    init(container: NSPersistentContainer = PersistenceController.shared.container) {
        self.container = container
    }

    // The bugs: URLSession.shared calls the completion on its own background queue. The
    // private context made there is used outside its perform, and its parent, the view
    // context, is saved from that queue too.
    func importFeed(from url: URL) {
        URLSession.shared.dataTask(with: url) { data, _, error in
            guard let data, error == nil else { return }
            let privateContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            privateContext.parent = self.container.viewContext
            let item = FeedItem(context: privateContext) // expect: context-without-perform
            item.payload = data // expect: context-without-perform
            do {
                try privateContext.save() // expect: context-without-perform
                try privateContext.parent?.save() // expect: main-context-off-main-queue
            } catch {
                print("import failed: \(error)")
            }
        }.resume()
    }

    // The correct twin: the child works inside its perform, and the view context saves
    // inside its own.
    func importFeedFixed(from url: URL) {
        URLSession.shared.dataTask(with: url) { data, _, error in
            guard let data, error == nil else { return }
            let privateContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            privateContext.parent = self.container.viewContext
            privateContext.perform {
                let item = FeedItem(context: privateContext)
                item.payload = data
                item.receivedAt = Date()
                try? privateContext.save()
                privateContext.parent?.perform {
                    try? privateContext.parent?.save()
                }
            }
        }.resume()
    }

    // main-context-off-main-queue, the bug: a count on the view context from a
    // global queue.
    func refreshBadge(completion: @escaping (Int) -> Void) {
        DispatchQueue.global(qos: .utility).async {
            let request = NSFetchRequest<FeedItem>(entityName: "FeedItem")
            let count = (try? self.container.viewContext.count(for: request)) ?? 0 // expect: main-context-off-main-queue
            completion(count)
        }
    }

    // The correct twin: the count runs inside the view context's perform.
    func refreshBadgeFixed(completion: @escaping (Int) -> Void) {
        DispatchQueue.global(qos: .utility).async {
            self.container.viewContext.perform {
                let request = NSFetchRequest<FeedItem>(entityName: "FeedItem")
                completion((try? self.container.viewContext.count(for: request)) ?? 0)
            }
        }
    }

    // main-context-off-main-queue, the bug: a detached task deletes from the view context.
    func purge(_ ids: [NSManagedObjectID]) {
        Task.detached {
            for id in ids {
                let object = self.container.viewContext.object(with: id) // expect: main-context-off-main-queue
                self.container.viewContext.delete(object) // expect: main-context-off-main-queue
            }
        }
    }
}
