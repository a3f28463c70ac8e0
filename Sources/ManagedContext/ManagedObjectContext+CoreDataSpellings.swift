@_spi(Runtime) import ConcurrencyDebug
public import Foundation

// What Core Data users type, spelled as Core Data spells it (without the NS prefix):
// the async `perform(schedule:_:)`, the concurrency-type and merge-policy constants'
// names, the notification names, `refreshAllObjects()`, `stalenessInterval`,
// `transactionAuthor`, `Entity.fetchRequest()` and the container's
// `loadPersistentStores(completionHandler:)`. docs/getting-started.md lists what
// stays unsupported, with the way to write it here.

/// Per-context state of the Core Data spellings and of how the context was made;
/// behind the context's lock (`ManagedObjectContext.spellings`).
struct CoreDataSpellingState: Sendable {
    /// How the context was made, for its name in reports when it has none:
    /// "background" for `newBackgroundContext()`.
    var origin: String?
    var stalenessInterval: TimeInterval = -1
    var transactionAuthor: String?
}

extension ManagedObjectContext {
    /// When a block given to the async `perform(schedule:_:)` runs, as Core Data's
    /// `NSManagedObjectContext.ScheduledTaskType`.
    public enum ScheduledTaskType: Sendable, Hashable {
        /// Runs at once when the caller already runs on the context's queue (a
        /// main-queue context called from the main actor, or inside one of the
        /// context's own blocks); otherwise enqueued.
        case immediate
        /// Always appended to the context's queue, after the blocks already on it,
        /// as `perform(_:)` does.
        case enqueued
    }

    /// Runs `block` on the context's queue and returns its value, as Core Data's
    /// `perform(schedule:_:) async rethrows -> T`: a block that cannot throw needs no
    /// `try` (`await context.perform { ... }`); a throwing one rethrows its error.
    /// It runs on the caller's executor (`nonisolated(nonsending)`), so `.immediate`
    /// sees the main actor's caller on the main queue.
    nonisolated(nonsending) public func perform<T: Sendable, E: Error>(
        schedule: ScheduledTaskType = .immediate, _ block: @escaping @Sendable () throws(E) -> T
    ) async throws(E) -> T {
        if schedule == .immediate, runsOnOwnQueueNow {
            do {
                return try performAndWait { try block() }
            } catch {
                throw error as! E  // performAndWait rethrows only what the block threw
            }
        }
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            perform {
                continuation.resume(returning: Result { () throws(E) -> T in try block() })
            }
        }
        return try result.get()
    }

    /// True when the caller runs on this context's queue now: in one of its blocks,
    /// or on the main queue for a main-queue context.
    private var runsOnOwnQueueNow: Bool {
        if ConcurrencyDebug.currentOwner == queueIdentity { return true }
        if HeldQueues.contains(queueIdentity) { return true }
        return concurrencyType == .mainQueue && ConcurrencyDebug.isOnMainQueue
    }

    /// Refreshes every registered object, keeping unsaved changes: Core Data's
    /// `refreshAllObjects()`, which calls `refresh(_:mergeChanges: true)` on each
    /// (unchanged objects become faults and load the store's current values on next
    /// access; changed ones get the store's values under their changes).
    public func refreshAllObjects() {
        operation(.refresh) {
            for object in registry.objects {
                refresh(object, mergeChanges: true)
            }
        }
    }

    /// Core Data's `stalenessInterval`: how old cached row data may be when a fault
    /// fires. Kept for code that sets it. This runtime has no row cache: a fault
    /// always loads from the parent or the store, as Core Data does with 0. The
    /// default is -1 (Core Data's "any staleness").
    public var stalenessInterval: TimeInterval {
        get { spellings.withLock { $0.stalenessInterval } }
        set { spellings.withLock { $0.stalenessInterval = newValue } }
    }

    /// Core Data's `transactionAuthor`, kept for code that sets it. There is no
    /// persistent history here, so it is not written anywhere.
    public var transactionAuthor: String? {
        get { spellings.withLock { $0.transactionAuthor } }
        set { spellings.withLock { $0.transactionAuthor = newValue } }
    }

    /// Core Data's `undoManager` (nil on iOS by default) is not supported.
    @available(*, unavailable, message: "ctxdebug keeps no undo stack; use rollback() to drop unsaved changes, or a child context as a scratchpad you can throw away (docs/getting-started.md)")
    public var undoManager: AnyObject? {
        get { nil }
        set {}
    }

    /// The name for reports of a context with no `name`: how it was made.
    var madeAsName: String {
        if let parent { return "child of \(parent.shortName)" }
        if let origin = spellings.withLock({ $0.origin }) { return "\(origin) #\(number)" }
        return concurrencyType == .mainQueue ? "main #\(number)" : "private #\(number)"
    }
}

extension ManagedObjectContext.ConcurrencyType {
    /// Core Data's `.mainQueueConcurrencyType`.
    public static var mainQueueConcurrencyType: Self { .mainQueue }
    /// Core Data's `.privateQueueConcurrencyType`.
    public static var privateQueueConcurrencyType: Self { .privateQueue }
}

extension Notification.Name {
    /// Core Data's `NSManagedObjectContextObjectsDidChange`.
    public static let ManagedObjectContextObjectsDidChange = ManagedObjectContext.didChangeObjectsNotification
    /// Core Data's `NSManagedObjectContextWillSave`.
    public static let ManagedObjectContextWillSave = ManagedObjectContext.willSaveObjectsNotification
    /// Core Data's `NSManagedObjectContextDidSave`.
    public static let ManagedObjectContextDidSave = ManagedObjectContext.didSaveObjectsNotification
}

extension MergePolicy {
    /// Core Data's `NSErrorMergePolicy`.
    public static var errorMergePolicy: MergePolicy { .error }
    /// Core Data's `NSMergeByPropertyStoreTrumpMergePolicy`.
    public static var mergeByPropertyStoreTrumpMergePolicy: MergePolicy { .mergeByPropertyStoreTrump }
    /// Core Data's `NSMergeByPropertyObjectTrumpMergePolicy`.
    public static var mergeByPropertyObjectTrumpMergePolicy: MergePolicy { .mergeByPropertyObjectTrump }
    /// Core Data's `NSOverwriteMergePolicy`.
    public static var overwriteMergePolicy: MergePolicy { .overwrite }
    /// Core Data's `NSRollbackMergePolicy`.
    public static var rollbackMergePolicy: MergePolicy { .rollback }
}

/// Core Data's global merge-policy constants, without the NS prefix, so that
/// `context.mergePolicy = MergeByPropertyObjectTrumpMergePolicy` reads as it does there.
public let ErrorMergePolicy = MergePolicy.error
public let MergeByPropertyStoreTrumpMergePolicy = MergePolicy.mergeByPropertyStoreTrump
public let MergeByPropertyObjectTrumpMergePolicy = MergePolicy.mergeByPropertyObjectTrump
public let OverwriteMergePolicy = MergePolicy.overwrite
public let RollbackMergePolicy = MergePolicy.rollback

/// Gives every `ManagedObject` subclass Core Data's generated class method
/// `fetchRequest()`: `Sample.fetchRequest()` is a `FetchRequest<Sample>`.
public protocol FetchRequestProviding: ManagedObject {}

extension ManagedObject: FetchRequestProviding {}

extension FetchRequestProviding {
    /// A fetch request for every object of this entity, as Core Data's generated
    /// `fetchRequest()` of a managed object subclass.
    public static func fetchRequest() -> FetchRequest<Self> { FetchRequest<Self>() }
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

// MARK: Temporary IDs are dead after the save

extension ManagedObjectContext {
    /// The permanent ID that replaced `id`, when `id` is a temporary ID whose object
    /// was saved (or given a permanent ID) since, and no context of this stack still
    /// has an object under it. Core Data: "If the receiver has not yet been saved,
    /// the object ID is a temporary value that will change when the object is saved"
    /// (NSManagedObject.objectID); the old value names nothing after that. The
    /// runtime's own lookups still follow the coordinator's alias (a child keeps the
    /// temporary ID of an object its parent saved, as in Core Data).
    func deadTemporaryID(_ id: ManagedObjectID) -> ManagedObjectID? {
        guard id.isTemporaryID, let permanent = persistentStoreCoordinator?.alias(of: id) else { return nil }
        return stackHoldsObject(under: id) ? nil : permanent
    }

    /// True when this context has no object under the temporary `id`, which was
    /// saved since (`registeredObject(for:)` looks in this context only).
    func isDeadTemporaryIDHere(_ id: ManagedObjectID) -> Bool {
        id.isTemporaryID && registry.object(for: id) == nil && persistentStoreCoordinator?.alias(of: id) != nil
    }

    /// True when this context or an ancestor has a live object registered under `id`
    /// itself (not under its alias).
    private func stackHoldsObject(under id: ManagedObjectID) -> Bool {
        if registry.object(for: id) != nil { return true }
        guard let parent else { return false }
        return parent.performAndWait { parent.confined { parent.stackHoldsObject(under: id) } }
    }

    /// For `object(with:)` given a dead temporary ID: reports it, and returns an
    /// object that has no values (Core Data returns a fault that raises "could not
    /// fulfill a fault" when it fires). Nil when `id` is not dead.
    func deadTemporaryIDObject(_ id: ManagedObjectID) -> ManagedObject? {
        guard let permanent = deadTemporaryID(id) else { return nil }
        reportDeadTemporaryID(id, permanent: permanent, operation: "object(with:)")
        let o = id.entity.managedObjectClass.init(entity: id.entity, insertInto: nil)
        o.objectID = id
        o.managedObjectContext = self
        o.queueOwner = queueIdentity
        o.contextNumber = number
        o.values = o.entity.attributes.map { _ in .null }
        o.isStale = true
        FileHandle.standardError.write(Data("ctxdebug: object(with:) was given \(id), a temporary objectID that died when its object was saved as \(permanent); the object returned has no values (Core Data raises \"could not fulfill a fault\" when it fires).\n".utf8))
        return o
    }

    /// For `existingObject(with:)`: throws `.objectNotFound` for a dead temporary ID,
    /// as Core Data throws when "the object doesn't exist in both the context and the
    /// persistent store".
    func refuseDeadTemporaryID(_ id: ManagedObjectID) throws(ManagedContextError) {
        guard let permanent = deadTemporaryID(id) else { return }
        reportDeadTemporaryID(id, permanent: permanent, operation: "existingObject(with:)")
        throw ManagedContextError(
            .objectNotFound,
            "No object for \(id): it is a temporary objectID, and its object was saved since as \(permanent). A temporary ID names an object only until the save; use the object's objectID after it.")
    }

    private func reportDeadTemporaryID(_ id: ManagedObjectID, permanent: ManagedObjectID, operation: String) {
        guard Diagnostics.isOn(.temporaryID) else { return }
        Diagnostics.report(
            .temporaryID,
            Diagnostics.describe(
                self, operation: operation, objectID: id,
                hint: "take the objectID after the save (it is \(permanent) now), or call obtainPermanentIDs(for:) before handing it out"),
            "\(operation) was given the temporary objectID \(id), kept from before its object was saved: the save gave the object the permanent ID \(permanent), and, as in Core Data, the temporary ID names nothing after it.")
    }
}
