@_spi(CoreData) public import ManagedContext

extension NSPersistentStore {
    /// Core Data's `NSPersistentStore.StoreType` (`.sqlite`, `.inMemory`, `.binary`): the
    /// store types of the `type:` spellings, by the same raw values as the string constants.
    public struct StoreType: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let sqlite = StoreType(rawValue: NSSQLiteStoreType)
        public static let inMemory = StoreType(rawValue: NSInMemoryStoreType)
        public static let binary = StoreType(rawValue: NSBinaryStoreType)
    }
}

extension PersistentStoreCoordinator {
    /// Core Data's `addPersistentStore(type:configuration:at:options:)`.
    @discardableResult
    public func addPersistentStore(
        type: NSPersistentStore.StoreType, configuration: String? = nil, at storeURL: URL, options: [AnyHashable: Any]? = nil
    ) throws -> NSPersistentStore {
        try addPersistentStore(ofType: type.rawValue, configurationName: configuration, at: storeURL, options: options)
    }

    /// Core Data's `addPersistentStore(with:completionHandler:)`: opens the store a
    /// description names (its type, URL, configuration, read-only flag, migration flags
    /// and options), then calls `block`; here before it returns, on the calling thread.
    public func addPersistentStore(with description: NSPersistentStoreDescription, completionHandler block: (NSPersistentStoreDescription, (any Error)?) -> Void) {
        do {
            try addPersistentStore(with: description)
            block(description, nil)
        } catch {
            block(description, error)
        }
    }

    /// The store a description names, opened: what `loadPersistentStores` and
    /// `addPersistentStore(with:completionHandler:)` do for each description. A `/dev/null`
    /// URL is an in-memory store, as on Apple platforms; a store's missing folder is made,
    /// as the app's Application Support folder always exists on iOS.
    @discardableResult
    func addPersistentStore(with description: NSPersistentStoreDescription) throws -> NSPersistentStore {
        var options: [AnyHashable: Any] = [:]
        for (key, value) in description.options { options[key] = value }
        options[NSReadOnlyPersistentStoreOption] = description.isReadOnly
        options[NSMigratePersistentStoresAutomaticallyOption] = description.shouldMigrateStoreAutomatically
        options[NSInferMappingModelAutomaticallyOption] = description.shouldInferMappingModelAutomatically
        if !description.sqlitePragmas.isEmpty {
            var pragmas = (options[NSSQLitePragmasOption] as? [String: Any]) ?? [:]
            for (name, value) in description.sqlitePragmas { pragmas[name] = value }
            options[NSSQLitePragmasOption] = pragmas
        }
        var type = description.type
        var url = description.url
        if url?.path == "/dev/null" {
            type = NSInMemoryStoreType
            url = nil
        }
        if Self.isFileStore(type), let dir = url?.deletingLastPathComponent(), !FileManager.default.fileExists(atPath: dir.path) {
            try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        }
        return try addPersistentStore(ofType: type, configurationName: description.configuration, at: url, options: options)
    }

    /// Core Data's `destroyPersistentStore(at:ofType:options:)`: deletes the store and its
    /// `-wal` and `-shm` files (closing it first when it is this coordinator's).
    public func destroyPersistentStore(at url: URL, ofType storeType: String, options: [AnyHashable: Any]? = nil) throws {
        guard Self.isFileStore(storeType) || storeType == NSInMemoryStoreType else { throw Self.unavailable(storeType) }
        if let open = persistentStore(for: url) { removeAnnouncing(open) }
        try destroyStore(at: url)
    }

    /// Core Data's `destroyPersistentStore(at:type:options:)`.
    public func destroyPersistentStore(at url: URL, type: NSPersistentStore.StoreType, options: [AnyHashable: Any]? = nil) throws {
        try destroyPersistentStore(at: url, ofType: type.rawValue, options: options)
    }

    /// Core Data's `replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:ofType:)`:
    /// the store at `destinationURL` becomes a copy of the one at `sourceURL`.
    public func replacePersistentStore(
        at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil, withPersistentStoreFrom sourceURL: URL,
        sourceOptions: [AnyHashable: Any]? = nil, ofType storeType: String
    ) throws {
        guard Self.isFileStore(storeType) else { throw Self.unavailable(storeType) }
        try replaceStore(at: destinationURL, withStoreFrom: sourceURL)
    }

    /// Core Data's `replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)`.
    public func replacePersistentStore(
        at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil, withPersistentStoreFrom sourceURL: URL,
        sourceOptions: [AnyHashable: Any]? = nil, type: NSPersistentStore.StoreType
    ) throws {
        try replacePersistentStore(
            at: destinationURL, destinationOptions: destinationOptions, withPersistentStoreFrom: sourceURL, sourceOptions: sourceOptions,
            ofType: type.rawValue)
    }

    /// Core Data's `migratePersistentStore(_:to:options:withType:)`: the store copied to
    /// `url`, which this coordinator then uses in its place (the old file is left as it
    /// was); returns the new store.
    @discardableResult
    public func migratePersistentStore(
        _ store: NSPersistentStore, to url: URL, options: [AnyHashable: Any]? = nil, withType storeType: String
    ) throws -> NSPersistentStore {
        guard Self.isFileStore(storeType) else { throw Self.unavailable(storeType) }
        guard let current = storeURL, persistentStores.first === store else {
            throw ManagedContextError(.noStore, "That store is not this coordinator's; migrate a store from the coordinator that added it.")
        }
        try replaceStore(at: url, withStoreFrom: current)
        removeAnnouncing(store)
        return try addPersistentStore(ofType: storeType, configurationName: store.configurationName, at: url, options: options ?? store.options)
    }

    /// Core Data's `migratePersistentStore(_:to:options:type:)`.
    @discardableResult
    public func migratePersistentStore(
        _ store: NSPersistentStore, to url: URL, options: [AnyHashable: Any]? = nil, type: NSPersistentStore.StoreType
    ) throws -> NSPersistentStore {
        try migratePersistentStore(store, to: url, options: options, withType: type.rawValue)
    }

    /// Core Data's `metadataForPersistentStore(ofType:at:options:)`: the metadata of the
    /// store at `url`, read without adding it.
    public class func metadataForPersistentStore(ofType storeType: String, at url: URL, options: [AnyHashable: Any]? = nil) throws -> [String: Any] {
        guard isFileStore(storeType) else { throw unavailable(storeType) }
        return try metadataForStore(at: url)
    }

    /// Core Data's `metadataForPersistentStore(type:at:options:)`.
    public class func metadataForPersistentStore(type: NSPersistentStore.StoreType, at url: URL, options: [AnyHashable: Any]? = nil) throws -> [String: Any] {
        try metadataForPersistentStore(ofType: type.rawValue, at: url, options: options)
    }

    /// Core Data's `metadata(for:)`: the metadata of a store this coordinator added.
    public func metadata(for store: NSPersistentStore) -> [String: Any] {
        guard persistentStores.first === store else { return [:] }
        return (try? storeMetadata()) ?? [:]
    }

    /// Core Data's `setMetadata(_:for:)`. Written to the store at once here (Core Data
    /// writes it with the next save); a failure is printed, as the call cannot throw.
    public func setMetadata(_ metadata: [String: Any]?, for store: NSPersistentStore) {
        guard persistentStores.first === store else { return }
        do {
            try setStoreMetadata(metadata ?? [:])
        } catch {
            FileHandle.standardError.write(Data("CoreData: error: setMetadata(_:for:) failed: \(error)\n".utf8))
        }
    }

    private static func unavailable(_ storeType: String) -> ManagedContextError {
        ManagedContextError(.storeOpenFailed, "The store type '\(storeType)' is not available on Linux; use NSSQLiteStoreType (NSPersistentStore.StoreType.sqlite).")
    }

    /// A store of a file at its URL: SQLite, and the binary store, which is SQLite here.
    static func isFileStore(_ storeType: String) -> Bool {
        storeType == NSSQLiteStoreType || storeType == NSBinaryStoreType
    }
}

extension ManagedObjectContext {
    /// Core Data's `init(_:)`: `NSManagedObjectContext(.privateQueue)`, `NSManagedObjectContext(.mainQueue)`.
    public convenience init(_ type: ConcurrencyType) {
        self.init(concurrencyType: type)
    }
}
