import Foundation
import ManagedContext

/// The SurfJournal entity read through the runtime's typed attribute access
/// (`@Attribute`): what the access benchmarks measure, the checked read of one
/// attribute. SurfJournal's own `JournalEntry` is a Core Data entity class whose
/// properties go through `value(forKey:)`, as ported `@NSManaged` properties do; that
/// path costs more and is not what the checker's targets are about.
final class RuntimeJournalEntry: ManagedObject, CustomEntityName {
    static let entityName = "JournalEntry"

    @Attribute("date") var date: Date?
    @Attribute("height") var height: String?
    @Attribute("period") var period: String?
    @Attribute("wind") var wind: String?
    @Attribute("location") var location: String?
    @Attribute("rating") var rating: Int16? = 0
}

/// A SurfJournal store opened with the runtime's own container and `RuntimeJournalEntry`.
enum RuntimeJournal {
    static let model = ManagedObjectModel(entities: [RuntimeJournalEntry.self])

    static var newestFirst: [FetchSortDescriptor<RuntimeJournalEntry>] { [FetchSortDescriptor(key: "date", ascending: false)] }

    static func openContainer(at storeURL: URL, readOnly: Bool) throws -> PersistentContainer {
        let container = PersistentContainer(name: "SurfJournal", managedObjectModel: model, storeURL: storeURL, options: StoreOptions(readOnly: readOnly))
        try container.loadPersistentStores()
        return container
    }
}
