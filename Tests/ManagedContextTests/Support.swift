import Foundation
import GRDB
@testable import ManagedContext
import TestSupport

final class Sample: ManagedObject {
    @Attribute("name") var name: String?
    @Attribute("small") var small: Int16? = 7
    @Attribute("medium") var medium: Int32?
    @Attribute("large") var large: Int64?
    @Attribute("ratio") var ratio: Double?
    @Attribute("flag") var flag: Bool?
    @Attribute("when") var when: Date?
    @Attribute("blob") var blob: Data?
}

final class Place: ManagedObject {
    @Attribute("title") var title: String?
    @Relationship("visits", inverse: "place", deleteRule: .cascade) var visits: Set<Visit>
    @Relationship("owner", inverse: "home") var owner: Person?
}

final class Visit: ManagedObject {
    @Attribute("note") var note: String?
    @Attribute("rating") var rating: Int16? = 0
    @Relationship("place", inverse: "visits") var place: Place?
}

final class Person: ManagedObject {
    @Attribute("name") var name: String?
    @Relationship("home", inverse: "owner") var home: Place?
}

let testModel = ManagedObjectModel(entities: [Sample.self, Place.self, Visit.self, Person.self])

/// A store in a temp directory, with a coordinator and helpers.
final class TestStack: @unchecked Sendable {
    let dir = TempDirectory()
    let storeURL: URL
    let coordinator: PersistentStoreCoordinator

    init(model: ManagedObjectModel = testModel, options: StoreOptions = StoreOptions()) throws {
        storeURL = dir.file("Test.sqlite")
        coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(at: storeURL, options: options)
    }

    func privateContext(_ name: String? = nil) -> ManagedObjectContext {
        let c = ManagedObjectContext(concurrencyType: .privateQueue)
        c.persistentStoreCoordinator = coordinator
        c.name = name
        return c
    }

    /// Reads the file with a separate SQLite connection.
    func rawRead<T>(_ body: (Database) throws -> T) throws -> T {
        let queue = try DatabaseQueue(path: storeURL.path, configuration: { var c = Configuration(); c.readonly = true; return c }())
        defer { try? queue.close() }
        return try queue.read(body)
    }
}

func fileBytes(_ url: URL) -> Data { (try? Data(contentsOf: url)) ?? Data() }
