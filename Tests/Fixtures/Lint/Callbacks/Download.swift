import CoreData

final class Download: NSManagedObject {
    @NSManaged var url: String?
    @NSManaged var bytes: Int64
}

final class DownloadStack {
    let container = NSPersistentContainer(name: "Downloads")
    let syncContext: NSManagedObjectContext

    init() {
        syncContext = container.newBackgroundContext()
    }
}
