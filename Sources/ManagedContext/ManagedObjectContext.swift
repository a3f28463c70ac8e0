@_spi(Runtime) public import ConcurrencyDebug
import CtxdebugHelpers
import Dispatch
public import Foundation
import Synchronization

/// A scratchpad of managed objects, confined to one queue: the main queue, or a
/// private serial queue of its own. Names and semantics are Core Data's.
///
/// `@unchecked Sendable`: a context is handed between queues only to call
/// `perform`/`performAndWait`, and its mutable state is touched only inside them
/// (on its queue), which the concurrency debugger checks; its configuration
/// (`name`, `parent`, coordinator, merge settings) is behind a lock.
public final class ManagedObjectContext: @unchecked Sendable, AccessDescribing, CustomStringConvertible {
    public enum ConcurrencyType: Sendable, Hashable {
        case mainQueue, privateQueue
    }

    /// The notifications a context posts, on its own queue.
    public static let didChangeObjectsNotification = Notification.Name("ManagedObjectContextObjectsDidChange")
    public static let willSaveObjectsNotification = Notification.Name("ManagedObjectContextWillSave")
    public static let didSaveObjectsNotification = Notification.Name("ManagedObjectContextDidSave")

    /// Keys of the notifications' `userInfo`. Object sets are `Set<ManagedObject>`,
    /// objectID sets `Set<ManagedObjectID>`; `invalidatedAllObjects`, posted by
    /// `reset()`, holds an array of the forgotten objects' IDs (`[ManagedObjectID]`),
    /// as Core Data's `NSInvalidatedAllObjectsKey` holds an array of objectIDs.
    public enum NotificationKey: String, Sendable {
        case insertedObjects = "inserted", updatedObjects = "updated", deletedObjects = "deleted"
        case refreshedObjects = "refreshed", invalidatedAllObjects = "invalidatedAll"
        case insertedObjectIDs, updatedObjectIDs, deletedObjectIDs, refreshedObjectIDs
    }

    public let concurrencyType: ConcurrencyType
    /// The queue identity objects of this context are confined to.
    package let queueIdentity: QueueIdentity
    let queue: DispatchQueue
    let number: UInt32

    enum ParentStore {
        case none
        case coordinator(PersistentStoreCoordinator)
        case context(ManagedObjectContext)
    }

    private struct Configuration: @unchecked Sendable {  // holds a context reference; guarded by the lock
        var name: String?
        var parentStore: ParentStore = .none
        var mergePolicy: MergePolicy = .error
        var automaticallyMergesChangesFromParent = false
    }
    private let configuration = LockedValue(Configuration())

    // Confined to the queue.
    var registry = ObjectRegistry()
    /// The one weak reference to this context that its objects share, with the
    /// context's guard (ContextGuard.swift).
    let objectsReference: ContextReference
    /// Set once this context merged another's save (missing-merge stays quiet then).
    var hasMerged = false
    /// The unsaved changes, and the changes not yet announced.
    var changeSets = ChangeSets()
    /// Notification observer tokens; set from any thread (configuration setters).
    let observers = LockedValue<[ObserverToken]>([])

    private static let nextNumber = Atomic<UInt32>(1)

    public init(concurrencyType: ConcurrencyType) {
        Diagnostics.registered
        ConcurrencyDebug.configureIfNeeded()
        ManagedContextOperations.register()
        ManagedContextRuntimeFrames.registered
        self.concurrencyType = concurrencyType
        self.number = Self.nextNumber.add(1, ordering: .relaxed).oldValue
        switch concurrencyType {
        case .mainQueue:
            queueIdentity = .main
            queue = .main
        case .privateQueue:
            let label = "ctxdebug.context.\(number)"
            queueIdentity = QueueIdentity.makePrivate(label: label)
            queue = DispatchQueue(label: label)
            ConcurrencyDebugHooks.tag(queue, queueIdentity)
        }
        objectsReference = ContextReference(contextGuard: ContextGuard(queue: queue))
        objectsReference.context = self
    }

    deinit {
        // Releasing a context with changes is how an app cancels: not reported (see unsaved-ancestor).
        Diagnostics.ancestorSaved(self)
        for o in observers.withLock({ $0 }) { NotificationCenter.default.removeObserver(o.token) }
        if concurrencyType == .privateQueue { QueueIdentity.unregister(queueIdentity) }
    }

    // MARK: Configuration (not checked, as in Core Data)

    public var name: String? {
        get { configuration.withLock { $0.name } }
        set { configuration.withLock { $0.name = newValue } }
    }

    /// The parent context, for a child scratchpad. Set it (or the coordinator)
    /// before the first use.
    public var parent: ManagedObjectContext? {
        get { configuration.withLock { if case .context(let p) = $0.parentStore { p } else { nil } } }
        set {
            configuration.withLock { $0.parentStore = newValue.map { .context($0) } ?? .none }
            if newValue != nil { installAutomaticMergingIfNeeded() }
        }
    }

    /// The coordinator: set for a context on the store, or the root's for a child.
    public var persistentStoreCoordinator: PersistentStoreCoordinator? {
        get {
            switch configuration.withLock({ $0.parentStore }) {
            case .coordinator(let c): c
            case .context(let p): p.persistentStoreCoordinator
            case .none: nil
            }
        }
        set {
            configuration.withLock { $0.parentStore = newValue.map { .coordinator($0) } ?? .none }
            if newValue != nil { installAutomaticMergingIfNeeded() }
        }
    }

    var parentStore: ParentStore { configuration.withLock { $0.parentStore } }

    public var mergePolicy: MergePolicy {
        get { configuration.withLock { $0.mergePolicy } }
        set { configuration.withLock { $0.mergePolicy = newValue } }
    }

    /// Merge the parent's saves (or, on the coordinator, sibling contexts' saves)
    /// into this context automatically.
    public var automaticallyMergesChangesFromParent: Bool {
        get { configuration.withLock { $0.automaticallyMergesChangesFromParent } }
        set {
            configuration.withLock { $0.automaticallyMergesChangesFromParent = newValue }
            installAutomaticMergingIfNeeded()
        }
    }

    var model: ManagedObjectModel {
        guard let c = persistentStoreCoordinator else {
            preconditionFailure("Context \(debugName) has neither a parent nor a persistent store coordinator. Set one before inserting or fetching.")
        }
        return c.managedObjectModel
    }

    var coordinator: PersistentStoreCoordinator {
        get throws(ManagedContextError) {
            guard let c = persistentStoreCoordinator else {
                throw ManagedContextError(.noStore, "Context \(debugName) has neither a parent nor a persistent store coordinator.")
            }
            return c
        }
    }

    /// The name for reports: the context's name, or how it was made
    /// (`background #2`, `child of viewContext`, `private #4`).
    var shortName: String { name ?? madeAsName }

    var debugName: String {
        let n = name.map { "'\($0)'" } ?? madeAsName
        return "context \(n) (\(concurrencyType == .mainQueue ? "main queue" : queueIdentity.label))"
    }

    public var description: String { "<ManagedObjectContext \(debugName)>" }

    // MARK: Running work

    /// Runs `block` asynchronously on the context's queue, in FIFO order.
    public func perform(_ block: @escaping @Sendable () -> Void) {
        queue.async { [self] in
            let span = ContextInstrumentation.begin(.perform, self)
            defer { span.end() }
            ConcurrencyDebug.entering(queueIdentity, dispatched: true, describedBy: { self.performDescription() }) {
                block()
                processPendingChanges()
            }
        }
    }

    // The async `perform(schedule:_:)` is in ManagedObjectContext+CoreDataSpellings.swift.

    /// Runs `block` on the context's queue and waits for it, as Core Data does:
    /// a private context runs the block on the calling thread, holding its queue,
    /// and the block may re-enter every queue its call chain already holds (an
    /// outer perform block of this context, or the main queue for main-queue code
    /// that called it) at once, where `dispatch_sync` would deadlock.
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        let owner = ConcurrencyDebug.currentOwner
        if owner == queueIdentity {
            return try block()
        }
        if HeldQueues.contains(queueIdentity) {
            // Dispatch sees the innermost queue, not this one: skip the level-2 check.
            return try runAsOwner(block, checkQueue: false)
        }
        // Main-queue code outside any perform block holds the main queue too. (Inside
        // a block, the chain's stack says so already: no queue-specific lookup then.)
        let callerOnMainQueue = owner == .main || (owner == .none && ConcurrencyDebug.isOnMainQueue)
        if concurrencyType == .mainQueue && callerOnMainQueue {
            return try runAsOwner(block)
        }
        if callerOnMainQueue && !HeldQueues.contains(.main) {
            return try HeldQueues.holding(.main) { try waitForQueue(block, callerOnMainQueue: true) }
        }
        return try waitForQueue(block, callerOnMainQueue: callerOnMainQueue)
    }

    /// Blocks until the context's queue runs `block`. The block inherits the caller's
    /// chain of held queues when it runs on another thread (the main queue's).
    private func waitForQueue<T>(_ block: () throws -> T, callerOnMainQueue: Bool) rethrows -> T {
        // dispatch_sync runs a private queue's block on the calling thread, which holds
        // the chain already; only the main queue's may run on another thread.
        let chain = concurrencyType == .mainQueue ? HeldQueues.current() : nil
        let timed = concurrencyType == .privateQueue && callerOnMainQueue && Diagnostics.isOn(.mainQueueWait)
        // Read before the wait is recorded: a test that sees the wait may move the clock.
        let asked = timed ? MonotonicClock.now() : 0
        let wait = WaitForGraph.beginWait(for: queueIdentity, operation: "performAndWait on \(debugName)")
        defer { WaitForGraph.endWait(wait) }
        // Each block first says the wait is served: the queue is running it now.
        guard timed else {
            guard let chain else {
                return try queue.sync {
                    WaitForGraph.served(wait)
                    return try runAsOwner(block)
                }
            }
            return try queue.sync {
                WaitForGraph.served(wait)
                return try HeldQueues.inheriting(chain) { try runAsOwner(block) }
            }
        }
        var running: UInt64 = 0
        defer { diagnoseMainQueueWait(on: self, waited: running &- asked) }
        return try queue.sync {
            WaitForGraph.served(wait)
            running = MonotonicClock.now()
            return try runAsOwner(block)
        }
    }

    /// `performAndWait` keeping the runtime's typed error, for internal calls.
    func performAndWaitTyped<T>(_ block: () throws(ManagedContextError) -> T) throws(ManagedContextError) -> T {
        do {
            return try performAndWait { try block() }
        } catch let e as ManagedContextError {
            throw e
        } catch {
            throw ManagedContextError(.fetchFailed, "\(error)")
        }
    }

    private func runAsOwner<T>(_ block: () throws -> T, checkQueue: Bool = true) rethrows -> T {
        let span = ContextInstrumentation.begin(.performAndWait, self)
        defer { span.end() }
        return try ConcurrencyDebug.entering(queueIdentity, dispatched: checkQueue, describedBy: { self.performDescription() }) {
            defer { processPendingChanges() }
            return try block()
        }
    }

    /// What a level-2 report says of a block found off its context's queue.
    private func performDescription() -> AccessDescription {
        describe(AccessEvent(operation: .perform, owner: queueIdentity, context: number))
    }

    @inline(__always)
    func check(_ op: AccessOperation) {
        ConcurrencyDebug.check(self, owner: queueIdentity, AccessEvent(operation: op, owner: queueIdentity, context: number))
    }

    /// Runs one of the context's operations: checks it and, when the check leaves its
    /// fast path (a violation the program goes on from, or an owner's operation once
    /// the process guards a context), runs it through the context's guard, which keeps
    /// the context's bookkeeping whole (ContextGuard.swift). On the fast path, `body`
    /// runs as it is.
    @inline(__always)
    func operation<R, E: Error>(_ op: AccessOperation, _ body: () throws(E) -> R) throws(E) -> R {
        let verdict = ConcurrencyDebug.checkGuarded(self, owner: queueIdentity, AccessEvent(operation: op, owner: queueIdentity, context: number))
        if case .unguarded = verdict { return try body() }
        return try contextGuard.run(verdict, body)
    }

    /// The runtime's own work on this context's state inside a perform block (not
    /// checked): under the guard's lock once the context is guarded.
    @inline(__always)
    func confined<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        try contextGuard.confined(body)
    }

    var contextGuard: ContextGuard { objectsReference.contextGuard }

    @_spi(Runtime) public func describe(_ event: AccessEvent) -> AccessDescription {
        AccessDescription(
            operation: "\(event.operation)", entity: nil, attribute: nil, objectID: nil,
            contextName: shortName, ownerQueueLabel: queueIdentity.label,
            fixHint: concurrencyType == .mainQueue
                ? "call the main-queue context's methods on the main queue, or inside viewContext.perform { }"
                : "call this context's methods inside context.perform { } or context.performAndWait { }")
    }

    // MARK: Registration

    func register(_ o: ManagedObject) {
        registry.register(o)
        adopt(o)
    }

    /// Makes `o`, already in the registry, this context's object.
    func adopt(_ o: ManagedObject) {
        o.managedObjectContext = self
        o.queueOwner = queueIdentity
        o.contextNumber = number
    }

    /// The registered object for `id` or for its other name (temporary/permanent).
    func registered(_ id: ManagedObjectID) -> ManagedObject? {
        if let o = registry.object(for: id) { return o }
        guard let c = persistentStoreCoordinator, let alias = c.alias(of: id) else { return nil }
        return registry.object(for: alias)
    }

    func reKey(_ o: ManagedObject, to newID: ManagedObjectID) {
        registry.remove(o.objectID)
        o.objectID = newID
        registry.register(o)
    }

    public var registeredObjects: Set<ManagedObject> {
        operation(.registeredObject) { Set(registry.objects) }
    }

    // MARK: Changes

    public func insert(_ object: ManagedObject) {
        operation(.insert) { insertChecked(object) }
    }

    private func insertChecked(_ object: ManagedObject) {
        if object.managedObjectContext === self && (object.insertedFlag || registry.object(for: object.objectID) != nil) { return }
        precondition(
            object.managedObjectContext == nil,
            "\(object.objectID) already belongs to \(object.managedObjectContext!.debugName); an object can be in one context only. Insert a new object, or use object(with:) on its objectID.")
        object.insertedFlag = true
        object.deletedFlag = false
        register(object)
        changeSets.inserted.insert(object)
        changeSets.pendingInserted.insert(object)
    }

    public func delete(_ object: ManagedObject) {
        operation(.delete) { deleteChecked(object) }
    }

    private func deleteChecked(_ object: ManagedObject) {
        // Deleted and saved already: gone from every context, nothing left to delete.
        if object.isRemovedByDelete { return }
        guard object.managedObjectContext === self else {
            preconditionFailure("delete(_:) was given \(object.objectID), which belongs to \(object.managedObjectContext?.debugName ?? "no context"), not to \(debugName).")
        }
        if object.deletedFlag { return }
        object.fireFaultIfNeeded()
        applyDeleteRules(object)
        if object.insertedFlag {
            object.insertedFlag = false
            changeSets.inserted.remove(object)
            changeSets.pendingInserted.remove(object)
            registry.remove(object.objectID)
            object.deletedFlag = true
            changeSets.deletedInserts.insert(object)
            return
        }
        object.deletedFlag = true
        changeSets.updated.remove(object)
        changeSets.deleted.insert(object)
        changeSets.pendingDeleted.insert(object)
    }

    private func applyDeleteRules(_ object: ManagedObject) {
        for r in object.entity.relationships {
            guard let inverse = r.inverseRelationship else { continue }
            let related = object.relatedObjects(forRelationshipNamed: r.name)
            for other in related where !other.deletedFlag {
                switch r.deleteRule {
                case .cascade:
                    delete(other)
                case .nullify:
                    if !inverse.isToMany { other.setToOne(inverse, to: nil, maintainInverse: false) }
                }
            }
        }
    }

    /// Called by an object the first time it changes.
    func objectDidChange(_ o: ManagedObject) {
        guard !o.insertedFlag, !o.deletedFlag, o.managedObjectContext === self else { return }
        o.updatedFlag = true
        changeSets.updated.insert(o)
        changeSets.pendingUpdated.insert(o)
    }

    public var hasChanges: Bool {
        operation(.hasChanges) { changeSets.hasUnsavedChanges }
    }

    public var insertedObjects: Set<ManagedObject> { operation(.changedObjects) { changeSets.inserted } }
    public var updatedObjects: Set<ManagedObject> { operation(.changedObjects) { changeSets.updated } }
    public var deletedObjects: Set<ManagedObject> { operation(.changedObjects) { changeSets.deleted } }

    /// Posts `didChangeObjectsNotification` for the changes made since the last
    /// call. Runs at the end of every perform block.
    public func processPendingChanges() {
        // Runs at the end of every perform block: no closure on the unguarded path.
        let contextGuard = self.contextGuard
        if _fastPath(!contextGuard.isGuarded) {
            postPendingChanges(through: contextGuard)
        } else {
            confined { postPendingChanges(through: contextGuard) }
        }
    }

    private func postPendingChanges(through contextGuard: ContextGuard) {
        guard changeSets.hasPendingChanges else { return }
        let pending = changeSets.takePending()
        let info: [String: Any] = [
            NotificationKey.insertedObjects.rawValue: pending.inserted,
            NotificationKey.updatedObjects.rawValue: pending.updated,
            NotificationKey.deletedObjects.rawValue: pending.deleted,
            NotificationKey.refreshedObjects.rawValue: pending.refreshed,
        ]
        contextGuard.post(Self.didChangeObjectsNotification, object: self, userInfo: info)
    }

    /// Drops every unsaved change.
    public func rollback() {
        operation(.rollback) { rollbackChecked() }
    }

    private func rollbackChecked() {
        Diagnostics.ancestorSaved(self)
        for o in changeSets.inserted.union(changeSets.deletedInserts) {
            o.insertedFlag = false
            o.deletedFlag = false
            registry.remove(o.objectID)
            o.managedObjectContext = nil
            o.queueOwner = .none
        }
        for o in changeSets.updated.union(changeSets.deleted) {
            o.updatedFlag = false
            o.deletedFlag = false
            restoreFromSnapshot(o)
        }
        changeSets.dropUnsaved()
    }

    private func restoreFromSnapshot(_ o: ManagedObject) {
        if let s = o.snapshot {
            o.values = s.values
            o.toOne = s.toOne
            o.changedAttributes = ChangeMask()
            o.changedToOne = ChangeMask()
            o.changedToMany = ChangeMask()
        } else {
            o.turnIntoFault()
        }
    }

    /// Forgets every object. Objects fetched before are invalid after. Posts
    /// `didChangeObjectsNotification` with `NotificationKey.invalidatedAllObjects` (the
    /// objectIDs of the objects it forgot), as Core Data's `reset()` does with
    /// `NSInvalidatedAllObjectsKey`: how an observer learns that every object is gone.
    public func reset() {
        operation(.reset) { resetChecked() }
    }

    private func resetChecked() {
        Diagnostics.ancestorSaved(self)
        let invalidated = registry.objects
        for o in invalidated {
            o.turnIntoFault()
            o.isInvalidated = true
            o.insertedFlag = false
            o.updatedFlag = false
            o.deletedFlag = false
        }
        registry.removeAll()
        changeSets = ChangeSets()
        contextGuard.post(
            Self.didChangeObjectsNotification, object: self,
            userInfo: [NotificationKey.invalidatedAllObjects.rawValue: invalidated.map(\.objectID)])
    }

    /// Turns `object` back into a fault, dropping its changes (`mergeChanges: false`),
    /// or reloads it from the parent and puts its unsaved changes back on top
    /// (`mergeChanges: true`).
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        operation(.refresh) { refreshChecked(object, mergeChanges: mergeChanges) }
    }

    private func refreshChecked(_ object: ManagedObject, mergeChanges: Bool) {
        guard object.managedObjectContext === self, !object.insertedFlag else { return }
        if !mergeChanges || !object.updatedFlag {
            if object.updatedFlag {
                object.updatedFlag = false
                changeSets.updated.remove(object)
            }
            if !mergeChanges || object.snapshot != nil { object.turnIntoFault() }
            changeSets.pendingRefreshed.insert(object)
            return
        }
        let fresh = try? loadSnapshots([object.objectID], skipSelf: true)[object.objectID]
        guard let fresh else { return }
        reapply(object, onto: fresh)
        changeSets.pendingRefreshed.insert(object)
    }

    /// Makes `fresh` the object's committed state and keeps its changed
    /// properties on top, as Core Data's merge and refresh do.
    func reapply(_ o: ManagedObject, onto fresh: RowSnapshot) {
        var values = fresh.values
        var toOne = fresh.toOne
        for i in 0..<values.count where o.changedAttributes.contains(i) { values[i] = o.values[i] }
        for i in 0..<toOne.count where o.changedToOne.contains(i) { toOne[i] = o.toOne[i] }
        o.values = values
        o.toOne = toOne
        o.snapshot = fresh
        o.isFaultFlag = false
    }

    // MARK: Lookup

    /// The object for `objectID`: the registered one, or a fault that loads its
    /// values on first access.
    public func object(with objectID: ManagedObjectID) -> ManagedObject {
        operation(.objectWithID) {
            if let dead = deadTemporaryIDObject(objectID) { return dead }
            return resolvedObject(with: objectID)
        }
    }

    /// `object(with:)` for the runtime's own lookups: a temporary ID whose object an
    /// ancestor has since saved still resolves, through the coordinator's alias.
    func resolvedObject(with objectID: ManagedObjectID) -> ManagedObject {
        if let o = registered(objectID) { return o }
        diagnoseTemporaryLookup(objectID, "object(with:)")
        return makeFault(objectID)
    }

    func makeFault(_ id: ManagedObjectID) -> ManagedObject {
        let o = id.entity.managedObjectClass.init(entity: id.entity, insertInto: nil)
        o.objectID = id
        o.turnIntoFault()
        register(o)
        return o
    }

    /// The object for `objectID` with its values loaded; throws when its row is gone.
    public func existingObject(with objectID: ManagedObjectID) throws(ManagedContextError) -> ManagedObject {
        try operation(.existingObject) { () throws(ManagedContextError) -> ManagedObject in
            try refuseDeadTemporaryID(objectID)
            return try resolvedExistingObject(with: objectID)
        }
    }

    /// `existingObject(with:)` for the runtime's own lookups (aliases resolve).
    func resolvedExistingObject(with objectID: ManagedObjectID) throws(ManagedContextError) -> ManagedObject {
        if let o = registered(objectID), !o.isFaultFlag, !o.deletedFlag { return o }
        if registered(objectID) == nil { diagnoseTemporaryLookup(objectID, "existingObject(with:)") }
        guard let snapshot = try loadSnapshots([objectID], skipSelf: true)[objectID] else {
            throw ManagedContextError(.objectNotFound, "No object for \(objectID): its row is not in the store (deleted, or never saved).")
        }
        return materialize(objectID, snapshot)
    }

    /// The object registered in this context for `objectID`, or nil.
    public func registeredObject(for objectID: ManagedObjectID) -> ManagedObject? {
        operation(.registeredObject) {
            if isDeadTemporaryIDHere(objectID) { return nil }
            return registered(objectID)
        }
    }

    func materialize(_ id: ManagedObjectID, _ snapshot: RowSnapshot?) -> ManagedObject {
        if let o = registered(id) {
            if let snapshot, !o.isFaultFlag, o.checkedSaveCount != Diagnostics.saveCount {
                diagnoseMissingMerge(o, storeVersion: snapshot.version, operation: "fetch")
            }
            if o.isFaultFlag, !o.isInvalidated, let snapshot {
                o.values = snapshot.values
                o.toOne = snapshot.toOne
                o.snapshot = snapshot
                o.isFaultFlag = false
            }
            return o
        }
        let o = id.entity.managedObjectClass.init(entity: id.entity, insertInto: nil)
        o.objectID = id
        if let snapshot {
            o.values = snapshot.values
            o.toOne = snapshot.toOne
            o.snapshot = snapshot
        } else {
            o.turnIntoFault()
        }
        register(o)
        return o
    }

    /// Loads a fault's values from the parent (or store).
    func fulfillFault(_ o: ManagedObject) {
        if o.isInvalidated || o.objectID.isTemporaryID && o.snapshot == nil && !o.insertedFlag && persistentStoreCoordinator?.alias(of: o.objectID) == nil && parent == nil {
            markStale(o)
            return
        }
        let loaded: RowSnapshot?
        do {
            loaded = try loadSnapshots([o.objectID], skipSelf: true)[o.objectID]
        } catch {
            FileHandle.standardError.write(Data("ctxdebug: could not fulfill a fault for \(o.objectID): \(error)\n".utf8))
            loaded = nil
        }
        guard let loaded else {
            markStale(o)
            return
        }
        o.values = loaded.values
        o.toOne = loaded.toOne
        o.snapshot = loaded
        o.isFaultFlag = false
    }

    private func markStale(_ o: ManagedObject) {
        let wasReset = o.isInvalidated
        o.isFaultFlag = false
        o.isStale = true
        diagnoseStaleObject(o, reset: wasReset)
        o.values = o.entity.attributes.map { _ in .null }
        FileHandle.standardError.write(Data("ctxdebug: could not fulfill a fault for \(o.objectID): its row is gone (deleted and saved, or its context was reset). Its values read as nil.\n".utf8))
    }

    // MARK: Permanent IDs

    /// Gives each inserted object a permanent ID now, before the save, so its ID
    /// can be handed to other contexts.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws(ManagedContextError) {
        try operation(.obtainPermanentIDs) { () throws(ManagedContextError) in try obtainPermanentIDsChecked(for: objects) }
    }

    private func obtainPermanentIDsChecked(for objects: [ManagedObject]) throws(ManagedContextError) {
        let store = try coordinator.store()
        let temporary = objects.filter { $0.objectID.isTemporaryID }
        var byEntity: [Int: [ManagedObject]] = [:]
        for o in temporary { byEntity[o.entity.index, default: []].append(o) }
        var map: [ManagedObjectID: ManagedObjectID] = [:]
        for (_, group) in byEntity {
            let entity = group[0].entity
            let keys = try store.reservePrimaryKeys(entity: entity, count: group.count)
            for (o, key) in zip(group, keys) {
                let permanent = ManagedObjectID(entity: entity, store: store.identity, primaryKey: key)
                map[o.objectID] = permanent
                reKey(o, to: permanent)
            }
        }
        try coordinator.recordPermanentIDs(map)
    }

    /// The state of the Core Data spellings (ManagedObjectContext+CoreDataSpellings.swift).
    var spellings: LockedValue<CoreDataSpellingState> { spellingsState }
    // Stored here, at the end of the class, so other edits of this file merge cleanly.
    private let spellingsState = LockedValue(CoreDataSpellingState())
}

/// Calls into the checker that only matter at level 2, kept in one place.
enum ConcurrencyDebugHooks {
    static func tag(_ queue: DispatchQueue, _ identity: QueueIdentity) {
        ConcurrencyDebug.tag(queue, as: identity)
    }
}

/// `@unchecked Sendable`: the token is only handed back to NotificationCenter,
/// which is thread-safe.
struct ObserverToken: @unchecked Sendable {
    let token: any NSObjectProtocol
}
