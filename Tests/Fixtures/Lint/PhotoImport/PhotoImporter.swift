import CoreData
import Foundation

/// Imports photos on a serial queue of its own. A queue made with
/// `DispatchQueue(label:)` belongs to the importer, never to a context: code there is
/// outside every context's perform.
final class PhotoImporter {
    private let stack: PhotoStack
    private let workQueue = DispatchQueue(label: "com.example.photos.import")

    init(stack: PhotoStack = .shared) {
        self.stack = stack
    }

    // The bug: the private context is used from the importer's own queue, outside its
    // perform.
    func importPhotos(_ urls: [URL]) {
        let privateContext = stack.container.newBackgroundContext()
        let queue = DispatchQueue(label: "import")
        queue.async {
            for url in urls {
                let photo = Photo(context: privateContext) // expect: context-without-perform
                photo.url = url // expect: context-without-perform
            }
            try? privateContext.save() // expect: context-without-perform
        }
    }

    // The correct twin: the queue only hands the work to the context's perform.
    func importPhotosFixed(_ urls: [URL]) {
        let privateContext = stack.container.newBackgroundContext()
        let queue = DispatchQueue(label: "import")
        queue.async {
            privateContext.perform {
                for url in urls {
                    let photo = Photo(context: privateContext)
                    photo.url = url
                }
                try? privateContext.save()
            }
        }
    }

    // The bug again, on the importer's stored queue.
    func markImported(_ id: NSManagedObjectID) {
        let context = stack.container.newBackgroundContext()
        workQueue.async {
            let photo = context.object(with: id) // expect: context-without-perform
            context.delete(photo) // expect: context-without-perform
        }
    }

    // The correct twin, on the stored queue.
    func markImportedFixed(_ id: NSManagedObjectID) {
        let context = stack.container.newBackgroundContext()
        workQueue.async {
            context.performAndWait {
                let photo = context.object(with: id)
                context.delete(photo)
            }
        }
    }

    // main-context-off-main-queue: the view context counted from the importer's queue.
    func countPhotos(completion: @escaping (Int) -> Void) {
        workQueue.async {
            let request = NSFetchRequest<Photo>(entityName: "Photo")
            completion((try? self.stack.container.viewContext.count(for: request)) ?? 0) // expect: main-context-off-main-queue
        }
    }

    // The correct twin: the count hops to the view context's queue.
    func countPhotosFixed(completion: @escaping (Int) -> Void) {
        workQueue.async {
            self.stack.container.viewContext.perform {
                let request = NSFetchRequest<Photo>(entityName: "Photo")
                completion((try? self.stack.container.viewContext.count(for: request)) ?? 0)
            }
        }
    }

    // Silent: `sync` may run its block on the calling thread, and this context is a
    // parameter whose queue the caller may already be on.
    func flush(_ context: NSManagedObjectContext) {
        workQueue.sync {
            try? context.save()
        }
    }
}
