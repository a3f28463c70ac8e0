import CoreData

final class Book: NSManagedObject {
    @NSManaged var title: String?
}

// Package.swift sets defaultIsolation(MainActor.self): an unmarked async function may
// run on the main queue, and stays silent.
final class Library {
    let container = NSPersistentContainer(name: "Library")

    func titles() async throws -> [String] {
        let books = try container.viewContext.fetch(NSFetchRequest<Book>(entityName: "Book"))
        return books.compactMap(\.title)
    }
}

// @concurrent still runs on the global executor.
final class Indexer {
    let container = NSPersistentContainer(name: "Library")

    @concurrent
    func reindex() async throws {
        try container.viewContext.save() // expect: main-context-off-main-queue
    }
}

// Task.detached still runs off the main queue.
final class Exporter {
    let container = NSPersistentContainer(name: "Library")

    func export() {
        Task.detached {
            _ = try? self.container.viewContext.count(for: NSFetchRequest<Book>(entityName: "Book")) // expect: main-context-off-main-queue
        }
    }
}
