public import Foundation

/// A coordinator, a store and a view context, set up together, as Core Data's
/// `NSPersistentContainer`.
public final class PersistentContainer: Sendable {
    public let name: String
    public let managedObjectModel: ManagedObjectModel
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// Where the store lives. Defaults to `defaultDirectoryURL()/<name>.sqlite`.
    public let storeURL: URL
    public let storeOptions: StoreOptions
    /// The main-queue context for the UI.
    public let viewContext: ManagedObjectContext

    public init(name: String, managedObjectModel: ManagedObjectModel, storeURL: URL? = nil, options: StoreOptions = StoreOptions()) {
        self.name = name
        self.managedObjectModel = managedObjectModel
        self.persistentStoreCoordinator = PersistentStoreCoordinator(managedObjectModel: managedObjectModel)
        self.storeURL = storeURL ?? Self.defaultDirectoryURL().appendingPathComponent("\(name).sqlite")
        self.storeOptions = options
        self.viewContext = ManagedObjectContext(concurrencyType: .mainQueue)
        viewContext.name = "viewContext"
        viewContext.persistentStoreCoordinator = persistentStoreCoordinator
    }

    /// The default directory for stores: `$XDG_DATA_HOME/ctxdebug`, or
    /// `~/.local/share/ctxdebug`.
    public static func defaultDirectoryURL() -> URL {
        let env = ProcessInfo.processInfo.environment
        if let xdg = env["XDG_DATA_HOME"], !xdg.isEmpty, xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("ctxdebug")
        }
        let home = env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".local/share/ctxdebug")
    }

    /// Opens the store, creating its directory if needed (but not the directory's
    /// parents: a missing parent is reported, as it usually means a wrong path).
    public func loadPersistentStores() throws(ManagedContextError) {
        let dir = storeURL.deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: dir.path) && !storeOptions.readOnly {
            let parent = dir.deletingLastPathComponent()
            if FileManager.default.fileExists(atPath: parent.path) || storeURL.path.hasPrefix(Self.defaultDirectoryURL().path) {
                do {
                    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
                } catch {
                    throw ManagedContextError(.directoryUnwritable, "Could not create the store's directory \(dir.path): \(error.localizedDescription). Create it by hand or choose another path.", path: storeURL.path)
                }
            }
        }
        try persistentStoreCoordinator.addPersistentStore(at: storeURL, options: storeOptions)
    }

    /// A new private-queue context on the coordinator.
    public func newBackgroundContext() -> ManagedObjectContext {
        persistentStoreCoordinator.newBackgroundContext()
    }

    /// Runs `block` on a new private-queue context, on its queue.
    public func performBackgroundTask(_ block: @escaping @Sendable (ManagedObjectContext) -> Void) {
        persistentStoreCoordinator.performBackgroundTask(block)
    }

    /// The same, awaiting the block's value; `async rethrows` as in Core Data (a block
    /// that cannot throw needs no `try`).
    public func performBackgroundTask<T: Sendable, E: Error>(_ block: @escaping @Sendable (ManagedObjectContext) throws(E) -> T) async throws(E) -> T {
        try await persistentStoreCoordinator.performBackgroundTask(block)
    }

    /// The store's files: the `.sqlite` and its `-wal` and `-shm`.
    public static func storeFiles(_ url: URL) -> [URL] {
        [url, URL(fileURLWithPath: url.path + "-wal"), URL(fileURLWithPath: url.path + "-shm")]
    }

    /// Copies a seed store to `destination` if no store is there yet, with its
    /// `-wal` and `-shm` files (a seed store may hold every row in its `-wal`), as
    /// the chapter's `seedCoreDataContainerIfFirstLaunch` does. Returns whether it copied.
    @discardableResult
    package static func seedStoreIfNeeded(from seed: URL, to destination: URL) throws(ManagedContextError) -> Bool {
        let fm = FileManager.default
        if fm.fileExists(atPath: destination.path) { return false }
        guard fm.fileExists(atPath: seed.path) else {
            throw ManagedContextError(.seedFailed, "The seed store \(seed.path) does not exist.", path: seed.path)
        }
        let pairs = zip(storeFiles(seed), storeFiles(destination)).filter { fm.fileExists(atPath: $0.0.path) }
        // Copy into temporary names first, then rename the main file last, so a
        // crash never leaves a main file without its -wal.
        var staged: [(URL, URL)] = []
        do {
            for (from, to) in pairs {
                let tmp = URL(fileURLWithPath: to.path + ".seeding")
                try? fm.removeItem(at: tmp)
                try fm.copyItem(at: from, to: tmp)
                staged.append((tmp, to))
            }
            for (tmp, to) in staged.reversed() {
                try fm.moveItem(at: tmp, to: to)
            }
        } catch {
            for (tmp, _) in staged { try? fm.removeItem(at: tmp) }
            throw ManagedContextError(.seedFailed, "Could not copy the seed store: \(error.localizedDescription)", path: destination.path)
        }
        return true
    }
}

/// What `PersistentContainer.loadPersistentStores(completionHandler:)` hands its
/// handler, as Core Data's `NSPersistentStoreDescription`: the store it loaded.
public struct PersistentStoreDescription: Sendable, Hashable {
    public var url: URL?
    /// Always "SQLite" (Core Data's `NSSQLiteStoreType`).
    public var type: String = "SQLite"
    public var isReadOnly: Bool

    public init(url: URL?, isReadOnly: Bool = false) {
        self.url = url
        self.isReadOnly = isReadOnly
    }
}

extension PersistentContainer {
    /// The container's one store, described.
    public var persistentStoreDescriptions: [PersistentStoreDescription] {
        [PersistentStoreDescription(url: storeURL, isReadOnly: storeOptions.readOnly)]
    }

    /// Core Data's `loadPersistentStores(completionHandler:)`: loads the store and
    /// calls `block` once for it, with the error when it failed (nil when it loaded),
    /// before returning, as Core Data does for a store that is not added
    /// asynchronously.
    public func loadPersistentStores(completionHandler block: (PersistentStoreDescription, (any Error)?) -> Void) {
        let description = persistentStoreDescriptions[0]
        do {
            try loadPersistentStores()
            block(description, nil)
        } catch {
            block(description, error)
        }
    }
}

/// What a container's background work is, one implementation for this module's
/// `PersistentContainer` and CoreData's `NSPersistentContainer`.
extension PersistentStoreCoordinator {
    /// A new private-queue context on the coordinator, named in reports as a container's
    /// (`background #2`).
    @_spi(CoreData) public func newBackgroundContext() -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = self
        context.configuration.withLock { $0.origin = "background" }
        return context
    }

    /// `performBackgroundTask(_:)`: `block` on a new background context, on its queue.
    @_spi(CoreData) public func performBackgroundTask(_ block: @escaping @Sendable (ManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        context.name = "performBackgroundTask"
        context.perform { block(context) }
    }

    /// The same, awaiting the block's value.
    @_spi(CoreData) public func performBackgroundTask<T: Sendable, E: Error>(
        _ block: @escaping @Sendable (ManagedObjectContext) throws(E) -> T
    ) async throws(E) -> T {
        let context = newBackgroundContext()
        context.name = "performBackgroundTask"
        return try await context.perform { () throws(E) -> T in try block(context) }
    }
}
