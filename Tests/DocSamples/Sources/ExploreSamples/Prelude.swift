// What docs/explore.md's sample takes as given: a store of one counter, two ways to
// bump it, and the error the test throws.
import Foundation
import ManagedContext

final class Counter: ManagedObject {
    @Attribute("value") var value: Int64? = 0
}

struct LostIncrement: Error {
    let value: Int64
}

final class CounterStack: Sendable {
    let coordinator: PersistentStoreCoordinator

    init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        coordinator = PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [Counter.self]))
        try coordinator.addPersistentStore(at: directory.appendingPathComponent("Counter.sqlite"))
        let seed = context("seed")
        try seed.performAndWait {
            Counter(context: seed).value = 0
            try seed.save()
        }
    }

    func context(_ name: String) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.name = name
        context.mergePolicy = .mergeByPropertyObjectTrump
        return context
    }

    /// Reads the counter, adds one and saves, in one `perform` block.
    func increment(on context: ManagedObjectContext) {
        context.perform {
            let counter = try! context.fetch(FetchRequest<Counter>()).first!
            counter.value = (counter.value ?? 0) + 1
            try! context.save()
        }
    }

    func value() throws -> Int64 {
        let reader = context("reader")
        return try reader.performAndWait { try reader.fetch(FetchRequest<Counter>()).first!.value ?? -1 }
    }
}
