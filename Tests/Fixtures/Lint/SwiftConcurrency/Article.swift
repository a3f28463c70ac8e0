import CoreData

final class Article: NSManagedObject {
    @NSManaged var title: String?
    @NSManaged var isRead: Bool
}

final class ArticleStack {
    static let shared = ArticleStack()
    let container = NSPersistentContainer(name: "Articles")
    lazy var importContext: NSManagedObjectContext = container.newBackgroundContext()
}
