import CtxdebugHelpers
public import Foundation
import Synchronization
import Dispatch
import ConcurrencyDebug

/// Options for opening a store.
public struct StoreOptions: Sendable, Hashable {
    /// Open the store read-only: fetches work, saves fail with `.readOnlyStore`.
    public var readOnly: Bool = false
    /// Core Data's `shouldMigrateStoreAutomatically`
    /// (`NSMigratePersistentStoresAutomaticallyOption`). With
    /// `shouldInferMappingModelAutomatically`, a store that does not fit the model is
    /// migrated in place when Core Data could infer the mapping; off, it is refused.
    @_spi(CoreData) public var shouldMigrateStoreAutomatically = false
    /// Core Data's `shouldInferMappingModelAutomatically` (`NSInferMappingModelAutomaticallyOption`).
    @_spi(CoreData) public var shouldInferMappingModelAutomatically = false
    /// Core Data's `NSSQLitePragmasOption`: SQLite pragmas run on each of the store's
    /// connections as it opens (`PRAGMA name = value`), by name. Names must be SQL
    /// identifiers and values numbers, identifiers or quoted strings (`SQLitePragma`).
    @_spi(CoreData) public var pragmas: [SQLitePragma] = []
    /// Core Data's `NSPersistentHistoryTrackingKey`: every save records a transaction and
    /// its changes in the store's history tables (docs/coredata-on-linux.md, "Persistent history").
    public var persistentHistoryTracking = false
    /// Core Data's `NSPersistentStoreRemoteChangeNotificationPostOptionKey`: post
    /// `PersistentStoreCoordinator.remoteChangeNotification` after each write to the store,
    /// by this process or another (needs `persistentHistoryTracking` here).
    public var postsRemoteChangeNotifications = false
    public init(readOnly: Bool = false) { self.readOnly = readOnly }
}

/// Connects contexts to a store: one SQLite file in Core Data's layout.
/// An `NSObject`, as Core Data's coordinator is, equal only to itself. Sendable: its
/// state is behind locks and its own queue.
public final class PersistentStoreCoordinator: NSObject, @unchecked Sendable {
    /// Disfavored: CoreData's `managedObjectModel` is the `NSManagedObjectModel`.
    @_disfavoredOverload public let managedObjectModel: ManagedObjectModel
    /// The runtime's model, for CoreData (whose `managedObjectModel` is its own).
    @_spi(CoreData) public var runtimeModel: ManagedObjectModel { managedObjectModel }
    /// The model CoreData's `init(managedObjectModel:)` was given, kept alive as long as the
    /// coordinator is, as Core Data's coordinator keeps its model (set once, at that init).
    @_spi(CoreData) public var declaredModel: AnyObject?
    private let storeBox = LockedValue<AddedStore?>(nil)
    /// The store's persistent history and remote-change watcher (History/).
    let history = HistoryCoordination()

    /// The store once added, and the object `import CoreData` hands out for it (its
    /// `NSPersistentStore`), made at most once per added store.
    private struct AddedStore: Sendable {
        let store: SQLiteStore
        var face: (any AnyObject & Sendable)? = nil
    }
    /// Temporary ID → permanent ID of every object saved or given a permanent ID
    /// through this coordinator, and back: contexts deeper in a stack keep the
    /// temporary ID of an object their ancestor has since saved.
    private let aliases = LockedValue<(toPermanent: [ManagedObjectID: ManagedObjectID], toTemporary: [ManagedObjectID: ManagedObjectID])>(([:], [:]))

    /// The last save of each object, for missing-merge reports (kept while that
    /// diagnostic is on; bounded).
    struct SaveRecord: Sendable {
        let saver: String
        let stack: [UInt]
        /// When, by `MonotonicClock.now()`.
        let time: UInt64
        /// The row version (`Z_OPT`) the save wrote.
        let version: Int64
    }
    private let saves = LockedValue<[ManagedObjectID: SaveRecord]>([:])

    /// The saves of this stack's contexts so far, to the store or to a parent: a fault
    /// holding the row a fetch read (`returnsObjectsAsFaults`) fires from it only while
    /// this has not moved, as Core Data's row cache, which every save updates.
    let savesSoFar = Atomic<UInt64>(0)

    /// Records a save's rows (permanent IDs and the versions written), then moves the
    /// process's save count, so a read that sees the new count finds the record.
    func recordSave(_ rows: [(id: ManagedObjectID, version: Int64)], by saver: String, stack: [UInt]) {
        let time = MonotonicClock.now()
        saves.withLock { s in
            if s.count + rows.count > 200_000 { s = [:] }
            for row in rows { s[row.id] = SaveRecord(saver: saver, stack: stack, time: time, version: row.version) }
        }
        Diagnostics.countSave()
    }

    func lastSave(of id: ManagedObjectID) -> SaveRecord? {
        saves.withLock { $0[permanent(id)] }
    }

    /// The coordinator's own serial queue (Core Data's `perform`, `performAndWait`).
    private let queue: DispatchQueue
    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    public init(managedObjectModel: ManagedObjectModel) {
        self.managedObjectModel = managedObjectModel
        self.queue = DispatchQueue(label: "ctxdebug.coordinator")
        super.init()
        queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
    }

    /// Core Data's `perform(_:)`: runs `block` later on the coordinator's own serial queue.
    public func perform(_ block: @escaping @Sendable () -> Void) {
        queue.async(execute: block)
    }

    /// Core Data's `performAndWait(_:)`: runs `block` on the coordinator's queue and waits
    /// for it; inside a block already on that queue, runs it at once (reentrant, as Core
    /// Data's is).
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        if DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(self) { return try block() }
        return try queue.sync(execute: block)
    }

    /// The same coordinator (identity), as Core Data's `==` (NSObject's `isEqual:`) is.
    public override func isEqual(_ object: Any?) -> Bool { self === (object as AnyObject?) }
    public override var hash: Int { ObjectIdentifier(self).hashValue }

    /// Opens (or creates) the SQLite store at `url`.
    ///
    /// Throws a `ManagedContextError` that says what is wrong and where when the
    /// file is not SQLite, is cut short, belongs to another model or schema, or its
    /// directory is missing or unwritable. Nothing is written to a file it refuses.
    public func addPersistentStore(at url: URL, options: StoreOptions = StoreOptions()) throws(ManagedContextError) {
        let store = try openStore(at: url, options: options)
        storeBox.withLock { $0 = AddedStore(store: store) }
    }

    /// Adds the store and, in the same step, the object that stands for it in Core Data's
    /// API (made by `make` from the store's URL), so no reader sees the store without it.
    @_spi(CoreData) public func addPersistentStore<Face: AnyObject & Sendable>(
        at url: URL, options: StoreOptions, face make: (URL) -> Face
    ) throws(ManagedContextError) -> Face {
        let store = try openStore(at: url, options: options)
        let face = make(store.url)
        storeBox.withLock { $0 = AddedStore(store: store, face: face) }
        return face
    }

    private func openStore(at url: URL, options: StoreOptions) throws(ManagedContextError) -> SQLiteStore {
        let migrate = options.shouldMigrateStoreAutomatically && options.shouldInferMappingModelAutomatically
        let store = try SQLiteStore(url: url, model: managedObjectModel, readOnly: options.readOnly, migrate: migrate, pragmas: options.pragmas)
        return try startHistory(store, options: options)
    }

    /// The one object that stands for the added store in Core Data's API: the one made
    /// when it was added, or else made by `make` (given the store's URL) the first time;
    /// the same object after that, as Core Data hands out the same `NSPersistentStore`
    /// each time. Nil when no store is added.
    @_spi(CoreData) public func storeFace<Face: AnyObject & Sendable>(making make: (URL) -> Face) -> Face? {
        storeBox.withLock { added -> Face? in
            guard let store = added?.store else { return nil }
            if let face = added?.face as? Face { return face }
            let face = make(store.url)
            added?.face = face
            return face
        }
    }

    /// The URL of the store, once added.
    public var storeURL: URL? { storeBox.withLock { $0?.store.url } }

    /// The store's UUID (`Z_METADATA.Z_UUID`).
    public var storeUUID: String? { storeBox.withLock { $0?.store.identity.uuid } }

    func store() throws(ManagedContextError) -> SQLiteStore {
        guard let s = storeBox.withLock({ $0?.store }) else {
            throw ManagedContextError(.noStore, "The coordinator has no store. Call addPersistentStore(at:) (or PersistentContainer.loadPersistentStores()) first.")
        }
        return s
    }

    /// The objectID a URI made by `uriRepresentation()` names, or nil when the URI
    /// is malformed, names an entity the model lacks, or belongs to another store.
    public func managedObjectID(forURIRepresentation url: URL) -> ManagedObjectID? {
        ManagedObjectID.parse(url.absoluteString, model: managedObjectModel, store: storeBox.withLock { $0?.store.identity })
    }

    /// Closes the store's connections. Contexts on it can't fetch or save after.
    public func removePersistentStore() {
        let s = storeBox.withLock { s in
            let old = s?.store
            s = nil
            return old
        }
        history.stop()
        s?.close()
    }

    func recordPermanentIDs(_ map: [ManagedObjectID: ManagedObjectID]) {
        guard !map.isEmpty else { return }
        aliases.withLock { a in
            // Grown once for the save, not doubled (and every ID rehashed) a dozen times.
            a.toPermanent.reserveCapacity(a.toPermanent.count + map.count)
            a.toTemporary.reserveCapacity(a.toTemporary.count + map.count)
            for (t, p) in map {
                a.toPermanent[t] = p
                a.toTemporary[p] = t
            }
        }
    }

    /// The other name of an object: its permanent ID for a temporary one that has
    /// been saved, or the temporary ID it was inserted with for a permanent one.
    @_spi(CoreData) public func alias(of id: ManagedObjectID) -> ManagedObjectID? {
        aliases.withLock { id.isTemporaryID ? $0.toPermanent[id] : $0.toTemporary[id] }
    }

    func permanent(_ id: ManagedObjectID) -> ManagedObjectID {
        id.isTemporaryID ? (aliases.withLock { $0.toPermanent[id] } ?? id) : id
    }
}
