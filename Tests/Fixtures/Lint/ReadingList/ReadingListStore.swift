import CoreData
import Foundation

/// Loads the reading list on a background context. The request is untyped, so its
/// result is cast: `(try? context.fetch(request)) as? [Book] ?? []`.
final class ReadingListStore {
    let container: NSPersistentContainer

    init(container: NSPersistentContainer) {
        self.container = container
    }

    // object-across-queues, the bug: the cast keeps the objects of the background
    // context, and they are handed to the main queue.
    func loadBooks(completion: @escaping ([Book]) -> Void) {
        container.performBackgroundTask { context in
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Book")
            let books = (try? context.fetch(request)) as? [Book] ?? []
            DispatchQueue.main.async {
                completion(books) // expect: object-across-queues
            }
        }
    }

    // The correct twin: only objectIDs cross to the main queue.
    func loadBookIDs(completion: @escaping ([NSManagedObjectID]) -> Void) {
        container.performBackgroundTask { context in
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Book")
            let books = (try? context.fetch(request)) as? [Book] ?? []
            let ids = books.map(\.objectID)
            DispatchQueue.main.async {
                completion(ids)
            }
        }
    }
}
