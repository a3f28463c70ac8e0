import CoreData

final class TaskItem: NSManagedObject {
    @NSManaged var title: String?
    @NSManaged var done: Bool
}

final class TaskStore {
    let container: NSPersistentContainer
    let backgroundContext: NSManagedObjectContext

    init(container: NSPersistentContainer) {
        self.container = container
        backgroundContext = container.newBackgroundContext()
    }
}
