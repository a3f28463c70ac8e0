import CoreData

/// The app's stack: one container, the view context for the UI.
final class PhotoStack {
    static let shared = PhotoStack()

    let container: NSPersistentContainer = {
        let container = NSPersistentContainer(name: "Photos")
        container.loadPersistentStores { _, error in
            if let error { fatalError("\(error)") }
        }
        return container
    }()
}

@objc(Photo)
final class Photo: NSManagedObject {
    @NSManaged var url: URL?
    @NSManaged var importedAt: Date?
}
