import CoreData

final class Book: NSManagedObject {
    @NSManaged var title: String?
}

// The project's build settings (Reader.xcodeproj: SWIFT_DEFAULT_ACTOR_ISOLATION =
// MainActor) make unmarked code @MainActor: an unmarked async function may run on the
// main queue, and stays silent.
final class Library {
    let container = NSPersistentContainer(name: "Library")

    func titles() async throws -> [String] {
        let books = try container.viewContext.fetch(NSFetchRequest<Book>(entityName: "Book"))
        return books.compactMap(\.title)
    }
}

// An actor's methods still run on its executor, whatever the default isolation.
actor Shelf {
    let container = NSPersistentContainer(name: "Library")

    func count() throws -> Int {
        try container.viewContext.count(for: NSFetchRequest<Book>(entityName: "Book")) // expect: main-context-off-main-queue
    }
}
