public import Foundation
public import ManagedContext

/// One surf session, as in the chapter's `JournalEntry` entity. Every attribute is
/// optional; `rating` defaults to 0 for a new entry.
public final class JournalEntry: ManagedObject {
    public override class var entityName: String { "JournalEntry" }

    @Attribute("date") public var date: Date?
    @Attribute("height") public var height: String?
    @Attribute("period") public var period: String?
    @Attribute("wind") public var wind: String?
    @Attribute("location") public var location: String?
    @Attribute("rating") public var rating: Int16? = 0
}

/// The SurfJournal model and store helpers.
public enum SurfJournal {
    /// The model: one entity, `JournalEntry`.
    public static let model = ManagedObjectModel(entities: [JournalEntry.self])

    /// The container's name, and the stem of the default store's file name.
    public static let containerName = "SurfJournal"

    /// Newest first: the list's and the export's order. By attribute name, not key
    /// path: resolving a key path reads it on a prototype object, which the checker
    /// (wrongly) reports at CTXDEBUG_CONCURRENCY=1.
    public static var newestFirst: [FetchSortDescriptor<JournalEntry>] {
        [FetchSortDescriptor(key: "date", ascending: false)]
    }

    /// A container on `storeURL`, with its store loaded.
    public static func openContainer(at storeURL: URL, readOnly: Bool = false) throws(ManagedContextError) -> PersistentContainer {
        let container = PersistentContainer(
            name: containerName, managedObjectModel: model, storeURL: storeURL, options: StoreOptions(readOnly: readOnly))
        try container.loadPersistentStores()
        return container
    }

    /// The default store for `entries` seeded entries, in the XDG data directory:
    /// `$XDG_DATA_HOME/ctxdebug/SurfJournal-<entries>.sqlite`.
    public static func defaultStoreURL(entries: Int) -> URL {
        PersistentContainer.defaultDirectoryURL().appendingPathComponent("\(containerName)-\(entries).sqlite")
    }
}

/// An error of the SurfJournal layer: what went wrong and how to fix it.
public struct SurfJournalError: Error, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable {
        case outputUnwritable = "output-unwritable"
        case invalidArgument = "invalid-argument"
        case store = "store"
    }
    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

extension SurfJournalError.Code {
    /// `catch SurfJournalError.Code.outputUnwritable { }`.
    public static func ~= (code: Self, error: any Error) -> Bool {
        (error as? SurfJournalError)?.code == code
    }
}
