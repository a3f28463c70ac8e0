import CoreData
import UIKit

/// Uses of a context that do not name a context method: an NSManagedObjectContext
/// extension that reads the context's state, a convenience initializer's
/// self.init(context:), a fetched results controller's performFetch(), and closures a
/// project function runs on a known queue.
final class Photo: NSManagedObject {
    @NSManaged var title: String?
    @NSManaged var takenAt: Date?

    // context-without-perform, the bug: the convenience initializer inserts into a
    // private context it made, outside its perform.
    convenience init(title: String) {
        let context = AlbumStore.shared.container.newBackgroundContext()
        self.init(context: context) // expect: context-without-perform
        self.title = title
    }

    // The correct twin: the caller hands a context and calls it inside its perform.
    convenience init(title: String, in context: NSManagedObjectContext) {
        self.init(context: context)
        self.title = title
    }
}

extension NSManagedObjectContext {
    /// The album this context edits, kept in its userInfo.
    var editedAlbumName: String? {
        userInfo["album"] as? String
    }

    /// Saves on the context's own queue.
    func saveOnItsQueue() {
        perform {
            try? self.save()
        }
    }
}

final class AlbumStore {
    static let shared = AlbumStore()
    let container = NSPersistentContainer(name: "Album")
    let uploadContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)

    // main-context-off-main-queue, the bug: the extension reads the view context's
    // userInfo inside the upload context's perform.
    func uploadFinished() {
        uploadContext.perform {
            let name = self.container.viewContext.editedAlbumName // expect: main-context-off-main-queue
            print(name ?? "")
        }
    }

    // The correct twin: read on the view context's queue; the extension that performs
    // is silent wherever it is called.
    func uploadFinishedFixed() {
        uploadContext.perform {
            let viewContext = self.container.viewContext
            viewContext.perform { print(viewContext.editedAlbumName ?? "") }
            viewContext.saveOnItsQueue()
        }
    }

    func importPhoto(titled title: String) {
        let context = container.newBackgroundContext()
        context.perform {
            _ = Photo(title: title, in: context)
            try? context.save()
        }
    }
}

/// Runs its completion on the main queue, as the app's network layer does.
final class PhotoAPI {
    func send(_ data: Data, completion: @escaping (Bool) -> Void) {
        URLSession.shared.uploadTask(with: URLRequest(url: URL(string: "https://photos.example/upload")!), from: data) { _, response, _ in
            let ok = (response as? HTTPURLResponse)?.statusCode == 200
            DispatchQueue.main.async { completion(ok) }
        }.resume()
    }
}

final class PhotoUploader {
    let api = PhotoAPI()

    // object-across-queues, the bug: the private context's photo, read in the
    // completion the API runs on the main queue.
    func upload(_ data: Data) {
        AlbumStore.shared.container.performBackgroundTask { context in
            let photo = Photo(context: context)
            photo.title = "new"
            try? context.save()
            self.api.send(data) { _ in
                print(photo.title ?? "") // expect: object-across-queues
            }
        }
    }

    // The correct twin: the title crosses, not the object.
    func uploadFixed(_ data: Data) {
        AlbumStore.shared.container.performBackgroundTask { context in
            let photo = Photo(context: context)
            photo.title = "new"
            try? context.save()
            let title = photo.title
            self.api.send(data) { _ in
                print(title ?? "")
            }
        }
    }
}

final class PhotoGridViewController: UIViewController {
    lazy var photos: NSFetchedResultsController<Photo> = {
        let request = NSFetchRequest<Photo>(entityName: "Photo")
        request.sortDescriptors = [NSSortDescriptor(key: "takenAt", ascending: false)]
        return NSFetchedResultsController(
            fetchRequest: request, managedObjectContext: AlbumStore.shared.container.viewContext, sectionNameKeyPath: nil, cacheName: nil)
    }()

    // main-context-off-main-queue, the bug: the controller over the view context
    // fetches on a global queue.
    func reloadInBackground() {
        DispatchQueue.global().async {
            try? self.photos.performFetch() // expect: main-context-off-main-queue
        }
    }

    // The correct twin: it fetches on the main queue.
    override func viewDidLoad() {
        super.viewDidLoad()
        try? photos.performFetch()
    }
}

extension NSManagedObjectContext {
    /// An overload of Core Data's own save(): a call of it is a save, reported once as such.
    func save(ifChanged: Bool) throws {
        if !ifChanged || hasChanges { try save() }
    }
}

final class AlbumCleaner {
    // main-context-off-main-queue, the bug, once: the overload is Core Data's save to the rules.
    func clean() {
        DispatchQueue.global().async {
            try? AlbumStore.shared.container.viewContext.save(ifChanged: true) // expect: main-context-off-main-queue
        }
    }
}
