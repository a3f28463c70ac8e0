public import Foundation

/// A coordinator, a store and a view context, set up together, as Core Data's
/// `NSPersistentContainer`.
///
/// The one container implementation: CoreData's `NSPersistentContainer` is built on it
/// (its coordinator, view context and background contexts are this type's), so the two
/// spellings make the same contexts and reports name them alike (`viewContext`,
/// `background #2`, `performBackgroundTask`).
public final class PersistentContainer: Sendable {
    /// The container's name: the store file's, by default (`<name>.sqlite`).
    public let name: String
    /// The model of the container's coordinator.
    public let managedObjectModel: ManagedObjectModel
    /// The coordinator every context of the container saves through.
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// Where the store lives. Defaults to `defaultDirectoryURL()/<name>.sqlite`.
    public let storeURL: URL
    /// How `loadPersistentStores()` opens the store (read-only, migration, pragmas).
    public let storeOptions: StoreOptions
    /// The main-queue context for the UI.
    public let viewContext: ManagedObjectContext

    /// A container with a new coordinator for `managedObjectModel`; the store at
    /// `storeURL` (by default `defaultDirectoryURL()/<name>.sqlite`) is opened by
    /// `loadPersistentStores()`, with `options`.
    public convenience init(name: String, managedObjectModel: ManagedObjectModel, storeURL: URL? = nil, options: StoreOptions = StoreOptions()) {
        self.init(
            name: name, persistentStoreCoordinator: PersistentStoreCoordinator(managedObjectModel: managedObjectModel),
            storeURL: storeURL, options: options)
    }

    /// A container over a coordinator made by the caller: CoreData's
    /// `NSPersistentContainer`, whose coordinator is made from its `NSManagedObjectModel`,
    /// and whose stores are its descriptions' (it never calls `loadPersistentStores()`).
    package init(name: String, persistentStoreCoordinator: PersistentStoreCoordinator, storeURL: URL? = nil, options: StoreOptions = StoreOptions()) {
        self.name = name
        self.managedObjectModel = persistentStoreCoordinator.managedObjectModel
        self.persistentStoreCoordinator = persistentStoreCoordinator
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

    /// A new private-queue context on the coordinator, named in reports as made by a
    /// container (`background #2`) until it is given a `name`.
    public func newBackgroundContext() -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = persistentStoreCoordinator
        context.configuration.withLock { $0.origin = "background" }
        return context
    }

    /// Runs `block` on a new private-queue context (named `performBackgroundTask` in
    /// reports), on its queue.
    public func performBackgroundTask(_ block: @escaping @Sendable (ManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        context.name = "performBackgroundTask"
        context.perform { block(context) }
    }

    /// The same, awaiting the block's value; `async rethrows` as in Core Data (a block
    /// that cannot throw needs no `try`).
    public func performBackgroundTask<T: Sendable, E: Error>(_ block: @escaping @Sendable (ManagedObjectContext) throws(E) -> T) async throws(E) -> T {
        let context = newBackgroundContext()
        context.name = "performBackgroundTask"
        return try await context.perform { () throws(E) -> T in try block(context) }
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
    /// The store file.
    public var url: URL?
    /// Always "SQLite" (Core Data's `NSSQLiteStoreType`).
    public var type: String = "SQLite"
    /// Whether the store was opened read-only (`StoreOptions.readOnly`).
    public var isReadOnly: Bool

    /// The description of the store at `url`.
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
