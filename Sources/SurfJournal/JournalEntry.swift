public import CoreData
public import ManagedContext

/// One surf session: the `JournalEntry` entity of the chapter's model, as a Core Data
/// entity class. Every attribute is optional; `rating` defaults to 0 for a new entry.
///
/// The properties are written as `ctxdebug port` writes `@NSManaged` ones (Linux Swift
/// cannot compile `@NSManaged`): accessors through Core Data's key-value access, so every
/// read and write goes through `value(forKey:)` and `setValue(_:forKey:)`, with the
/// types Xcode gives an entity class (`rating` is `NSNumber?`).
public final class JournalEntry: NSManagedObject {
    /// The entity's fetch request, as Xcode writes it for an entity class.
    @nonobjc public class func fetchRequest() -> NSFetchRequest<JournalEntry> {
        NSFetchRequest<JournalEntry>(entityName: "JournalEntry")
    }

    public var date: Date? {
        get { value(forKey: "date") as? Date }
        set { setValue(newValue, forKey: "date") }
    }
    public var height: String? {
        get { value(forKey: "height") as? String }
        set { setValue(newValue, forKey: "height") }
    }
    public var period: String? {
        get { value(forKey: "period") as? String }
        set { setValue(newValue, forKey: "period") }
    }
    public var wind: String? {
        get { value(forKey: "wind") as? String }
        set { setValue(newValue, forKey: "wind") }
    }
    public var location: String? {
        get { value(forKey: "location") as? String }
        set { setValue(newValue, forKey: "location") }
    }
    public var rating: NSNumber? {
        get {
            switch value(forKey: "rating") {
            case let n as Int16: NSNumber(value: n)
            case let n as NSNumber: n
            default: nil
            }
        }
        set { setValue(newValue, forKey: "rating") }
    }
}

/// The SurfJournal model and store helpers.
public enum SurfJournal {
    /// The model's name: `SurfJournalModel.xcdatamodeld`, a resource of this module, which
    /// `NSPersistentContainer(name:)` finds as the chapter's app finds its `.momd`.
    public static let modelName = "SurfJournalModel"

    /// The stem of the default store's file name.
    public static let containerName = "SurfJournal"

    /// Newest first, in the runtime's terms (the list's order, and the fast export's).
    /// By attribute name, not key path: resolving a key path reads it on a prototype
    /// object, which the checker (wrongly) reports at CTXDEBUG_CONCURRENCY=1.
    public static var newestFirst: [FetchSortDescriptor<JournalEntry>] {
        [FetchSortDescriptor(key: "date", ascending: false)]
    }

    /// The container of the chapter's `CoreDataStack`, `NSPersistentContainer(name:
    /// "SurfJournalModel")`, on the store at `storeURL`, loaded.
    public static func openContainer(at storeURL: URL, readOnly: Bool = false) throws(ManagedContextError) -> NSPersistentContainer {
        let container = NSPersistentContainer(name: modelName)
        guard container.managedObjectModel.entitiesByName["JournalEntry"] != nil else {
            throw ManagedContextError(
                .storeOpenFailed,
                "The SurfJournal model (\(modelName).xcdatamodeld) is not in this program's resources. Keep the ctxdebug_SurfJournal.resources folder that swift build writes beside the executable.")
        }
        let description = NSPersistentStoreDescription(url: storeURL)
        description.isReadOnly = readOnly
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError {
            throw loadError as? ManagedContextError ?? ManagedContextError(.storeOpenFailed, "Cannot open \(storeURL.path): \(loadError)")
        }
        return container
    }

    /// The default store for `entries` seeded entries, in the XDG data directory:
    /// `$XDG_DATA_HOME/ctxdebug/SurfJournal-<entries>.sqlite`.
    public static func defaultStoreURL(entries: Int) -> URL {
        NSPersistentContainer.defaultDirectoryURL().appendingPathComponent("\(containerName)-\(entries).sqlite")
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
