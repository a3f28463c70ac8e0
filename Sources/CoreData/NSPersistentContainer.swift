@_spi(CoreData) public import ManagedContext

/// Core Data's `NSPersistentStoreDescription`: where and how a container opens a store.
open class NSPersistentStoreDescription: NSObject, @unchecked Sendable {
    open var url: URL?
    open var type: String = NSSQLiteStoreType
    open var configuration: String?
    open var isReadOnly = false
    /// Core Data's `shouldAddStoreAsynchronously`: false, the store is added and the
    /// container's handler called before `loadPersistentStores` returns, on the calling
    /// thread; true, both happen later, on a background queue.
    open var shouldAddStoreAsynchronously = false
    open var shouldMigrateStoreAutomatically = true
    open var shouldInferMappingModelAutomatically = true
    open var timeout: TimeInterval = 240
    public private(set) var options: [String: NSObject] = [:]
    public private(set) var sqlitePragmas: [String: NSObject] = [:]

    public override init() {}
    public init(url: URL) { self.url = url }

    open func setOption(_ option: NSObject?, forKey key: String) { options[key] = option }
    open func setValue(_ value: NSObject?, forPragmaNamed name: String) { sqlitePragmas[name] = value }

    open override var description: String {
        "<NSPersistentStoreDescription> (type: \(type), url: \(url?.path ?? "nil"))"
    }
}

/// Core Data's `NSPersistentStore`: a store a coordinator has added.
///
/// A coordinator hands out one `NSPersistentStore` for its store, the same object from
/// `addPersistentStore` and every read of `persistentStores`, and it compares by identity.
open class NSPersistentStore: NSObject, @unchecked Sendable {
    public let type: String
    public let url: URL?
    public let configurationName: String
    public let options: [AnyHashable: Any]?
    open var isReadOnly: Bool
    public init(type: String, configurationName: String?, at url: URL?, options: [AnyHashable: Any]?) {
        self.type = type
        self.url = url
        self.configurationName = configurationName ?? "Default"
        self.options = options
        self.isReadOnly = (options?[NSReadOnlyPersistentStoreOption] as? Bool) ?? false
    }

}

extension PersistentStoreCoordinator {
    /// Core Data's `init(managedObjectModel:)`, with Core Data's model.
    public convenience init(managedObjectModel model: NSManagedObjectModel) {
        self.init(managedObjectModel: model.runtimeModel)
        declaredModel = model
        model.markLoaded()
    }

    /// Core Data's `addPersistentStore(ofType:configurationName:at:options:)`. Only SQLite
    /// stores exist here; `NSInMemoryStoreType` opens a SQLite store in a temporary
    /// file that is removed when the process ends, and `NSBinaryStoreType` (Core Data's
    /// atomic store of one file) a SQLite store at its URL: its file is not Apple's
    /// binary format.
    @discardableResult
    public func addPersistentStore(ofType storeType: String, configurationName: String?, at storeURL: URL?, options: [AnyHashable: Any]? = nil) throws -> NSPersistentStore {
        let url: URL
        switch storeType {
        case NSSQLiteStoreType, NSBinaryStoreType:
            guard let storeURL else {
                throw ManagedContextError(.storeOpenFailed, "A\(storeType == NSBinaryStoreType ? " binary" : "n SQLite") store needs a URL. Pass the store file's URL.")
            }
            url = storeURL
        case NSInMemoryStoreType:
            url = InMemoryStores.newURL()
        default:
            throw ManagedContextError(.storeOpenFailed, "The store type '\(storeType)' is not available on Linux; use NSSQLiteStoreType, NSBinaryStoreType or NSInMemoryStoreType.")
        }
        func flag(_ key: String) -> Bool {
            switch options?[key] {
            case let b as Bool: b
            case let n as NSNumber: n.boolValue
            default: false
            }
        }
        var storeOptions = StoreOptions(readOnly: flag(NSReadOnlyPersistentStoreOption))
        // Core Data's coordinator migrates only when asked; the container asks by default.
        storeOptions.shouldMigrateStoreAutomatically = flag(NSMigratePersistentStoresAutomaticallyOption)
        storeOptions.shouldInferMappingModelAutomatically = flag(NSInferMappingModelAutomaticallyOption)
        storeOptions.pragmas = try SQLitePragmas.parse(options?[NSSQLitePragmasOption])
        storeOptions.persistentHistoryTracking = flag(NSPersistentHistoryTrackingKey)
        storeOptions.postsRemoteChangeNotifications = flag(NSPersistentStoreRemoteChangeNotificationPostOptionKey)
        if NSPersistentStoreCoordinator.isFileStore(storeType), !storeOptions.readOnly {
            try AutomaticMigration.beforeOpening(
                url, coordinator: self, options: options, migrate: storeOptions.shouldMigrateStoreAutomatically, infer: storeOptions.shouldInferMappingModelAutomatically)
        }
        let store = try addPersistentStore(at: url, options: storeOptions) { _ in
            NSPersistentStore(type: storeType, configurationName: configurationName, at: storeURL ?? url, options: options)
        }
        NotificationCenter.default.post(name: .NSPersistentStoreCoordinatorStoresDidChange, object: self, userInfo: [NSAddedPersistentStoresKey: [store]])
        return store
    }

    /// Closes the added store, telling observers before and after, as Core Data does.
    func removeAnnouncing(_ store: NSPersistentStore) {
        NotificationCenter.default.post(name: .NSPersistentStoreCoordinatorWillRemoveStore, object: store)
        removePersistentStore()
        NotificationCenter.default.post(name: .NSPersistentStoreCoordinatorStoresDidChange, object: self, userInfo: [NSRemovedPersistentStoresKey: [store]])
    }

    /// Core Data's `persistentStores`: the one store, once added (the same object each time).
    public var persistentStores: [NSPersistentStore] {
        persistentStoreForAddedStore.map { [$0] } ?? []
    }

    /// Core Data's `persistentStore(for:)`: the store at `url`, if it is this coordinator's.
    public func persistentStore(for url: URL) -> NSPersistentStore? {
        guard let store = persistentStoreForAddedStore, let storeURL = store.url,
            storeURL.standardizedFileURL.path == url.standardizedFileURL.path
        else { return nil }
        return store
    }

    /// Core Data's `remove(_:)`: closes the store; contexts on it can fetch or save no more.
    public func remove(_ store: NSPersistentStore) throws {
        guard let added = persistentStoreForAddedStore, added === store else {
            throw ManagedContextError(.noStore, "That store is not this coordinator's (it has \(storeURL?.path ?? "no store")). Remove a store from the coordinator that added it.")
        }
        removeAnnouncing(added)
    }

    private var persistentStoreForAddedStore: NSPersistentStore? {
        storeFace { url in NSPersistentStore(type: NSSQLiteStoreType, configurationName: nil, at: url, options: nil) }
    }
}

/// Temporary files for `NSInMemoryStoreType` and `/dev/null` store URLs (a common
/// way to ask Core Data for an in-memory SQLite store in tests).
enum InMemoryStores {
    static func newURL() -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ctxdebug-inmemory-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent("\(UUID().uuidString).sqlite")
    }
}

/// Core Data's `NSPersistentContainer`: a model, a coordinator, its store, and the
/// view context, set up together. Subclass it as in Core Data.
///
/// Built on the runtime's `PersistentContainer`, the one container implementation: the
/// coordinator, the view context and the background contexts are its, so they are made
/// and named in reports as under `import ManagedContext`. What is Core Data's own is kept
/// here: the `NSManagedObjectModel`, the store descriptions and their loading.
///
/// `@unchecked Sendable`: set up on one thread (init, descriptions, load) before use,
/// as Core Data's container is; its contexts check their own queues.
open class NSPersistentContainer: NSObject, @unchecked Sendable {
    /// The runtime's container under this one. Its `storeURL` is the first default
    /// description's and is not used: the stores are `persistentStoreDescriptions`'.
    private let container: PersistentContainer
    /// The container's name: the model's (`init(name:)`) and the default store file's.
    open var name: String { container.name }
    open private(set) var managedObjectModel: NSManagedObjectModel
    /// The coordinator every context of the container saves through.
    open var persistentStoreCoordinator: NSPersistentStoreCoordinator { container.persistentStoreCoordinator }
    /// The stores `loadPersistentStores(completionHandler:)` opens: by default one,
    /// `defaultDirectoryURL()/<name>.sqlite`. Set before loading.
    open var persistentStoreDescriptions: [NSPersistentStoreDescription]
    /// Why the model could not be used (reported by `loadPersistentStores`).
    private let modelError: ModelCompileError?

    /// Core Data's `init(name:)`: the model named `name` (`name.xcdatamodeld`) from the
    /// program's resources, as Core Data finds `name.momd` in the app bundle.
    public convenience init(name: String) {
        guard let model = ModelLookup.model(named: name) else {
            FileHandle.standardError.write(
                Data("CoreData: error: Failed to load model named \(name). Add \(name).xcdatamodeld to the target's resources (Package.swift: resources: [.copy(\"\(name).xcdatamodeld\")]).\n".utf8))
            self.init(name: name, managedObjectModel: NSManagedObjectModel())
            return
        }
        self.init(name: name, managedObjectModel: model)
    }

    /// Core Data's `init(name:managedObjectModel:)`: a container for `model`, whose store
    /// is `defaultDirectoryURL()/<name>.sqlite` until `persistentStoreDescriptions` says
    /// otherwise. A model the runtime cannot use is reported by `loadPersistentStores`.
    public init(name: String, managedObjectModel model: NSManagedObjectModel) {
        self.managedObjectModel = model
        var compileError: ModelCompileError?
        do {
            _ = try ModelCompiler.checkedDeclarations(of: model)
        } catch {
            compileError = error
        }
        self.modelError = compileError
        let coordinator = compileError == nil
            ? NSPersistentStoreCoordinator(managedObjectModel: model)
            : NSPersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(declarations: []))
        let storeURL = Self.defaultDirectoryURL().appendingPathComponent("\(name).sqlite")
        self.container = PersistentContainer(name: name, persistentStoreCoordinator: coordinator, storeURL: storeURL)
        self.persistentStoreDescriptions = [NSPersistentStoreDescription(url: storeURL)]
    }

    /// Where stores go by default: `$XDG_DATA_HOME/ctxdebug` or `~/.local/share/ctxdebug`
    /// (Core Data's is the app's Application Support folder).
    ///
    /// The folder is made if it is missing, as iOS and macOS give an app its Application
    /// Support folder: a fresh Linux user has no `~/.local/share`, and stacks copy a seeded
    /// store into this folder before they load it (Core Data by Tutorials' SurfJournal).
    open class func defaultDirectoryURL() -> URL {
        let url = PersistentContainer.defaultDirectoryURL()
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The main-queue context, on the coordinator (named `viewContext` in reports).
    open var viewContext: NSManagedObjectContext { container.viewContext }

    /// Loads each described store, calling `block` once for each with nil or the error,
    /// before returning (later, on a background queue, for a description that says
    /// `shouldAddStoreAsynchronously`).
    open func loadPersistentStores(completionHandler block: @escaping (NSPersistentStoreDescription, (any Error)?) -> Void) {
        for description in persistentStoreDescriptions {
            guard description.shouldAddStoreAsynchronously else {
                loadReporting(description, to: block)
                continue
            }
            nonisolated(unsafe) let block = block
            DispatchQueue.global(qos: .userInitiated).async { self.loadReporting(description, to: block) }
        }
    }

    private func loadReporting(_ description: NSPersistentStoreDescription, to block: (NSPersistentStoreDescription, (any Error)?) -> Void) {
        do {
            if let modelError {
                throw ManagedContextError(.storeOpenFailed, "The model \(name) cannot be used: \(modelError)")
            }
            try persistentStoreCoordinator.addPersistentStore(with: description)
            block(description, nil)
        } catch {
            block(description, error)
        }
    }

    /// A new private-queue context on the coordinator (`background #2` in reports, as the
    /// runtime's container names it).
    open func newBackgroundContext() -> NSManagedObjectContext {
        container.newBackgroundContext()
    }

    /// Runs `block` on a new private-queue context, on its queue.
    open func performBackgroundTask(_ block: @escaping @Sendable (NSManagedObjectContext) -> Void) {
        container.performBackgroundTask(block)
    }

    /// The same, awaiting the block's value.
    public func performBackgroundTask<T: Sendable, E: Error>(_ block: @escaping @Sendable (NSManagedObjectContext) throws(E) -> T) async throws(E) -> T {
        try await container.performBackgroundTask(block)
    }
}

/// Finds a model by name for `NSPersistentContainer(name:)`.
enum ModelLookup {
    static func model(named name: String) -> NSManagedObjectModel? {
        XcodeModelLocator.modelURL(named: name).flatMap { NSManagedObjectModel(contentsOf: $0) }
    }
}
