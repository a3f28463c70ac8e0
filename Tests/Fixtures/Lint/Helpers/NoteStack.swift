import CoreData

final class Note: NSManagedObject {
    @NSManaged var text: String?
    @NSManaged var createdAt: Date?
}

final class NoteStack {
    static let shared = NoteStack()
    let container = NSPersistentContainer(name: "Notes")
    lazy var purgeContext: NSManagedObjectContext = container.newBackgroundContext()
}

extension Note {
    // Returns objects of the context it is given: it fetches from it.
    static func recent(in context: NSManagedObjectContext) throws -> [Note] {
        let request = NSFetchRequest<Note>(entityName: "Note")
        request.fetchLimit = 20
        return try context.fetch(request)
    }
}
