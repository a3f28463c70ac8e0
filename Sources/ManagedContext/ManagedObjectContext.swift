@_spi(Runtime) public import ConcurrencyDebug
import CtxdebugHelpers
import Dispatch
public import Foundation
import struct ScheduleControl.ScheduleDoor
import Synchronization

/// A scratchpad of managed objects, confined to one queue: the main queue, or a
/// private serial queue of its own. Names and semantics are Core Data's.
///
/// `@unchecked Sendable`: a context is handed between queues only to call
/// `perform`/`performAndWait`, and its mutable state is touched only inside them
/// (on its queue), which the concurrency debugger checks; its configuration
/// (`name`, `parent`, coordinator, merge settings) is behind a lock.
///
/// An `NSObject`, as Core Data's context is, equal only to itself, and open: a test's
/// mock may subclass it and override Core Data's overridable members (`save()`,
/// `hasChanges`, `perform`, `performAndWait`, `processPendingChanges()`, `reset()`,
/// `rollback()`). The runtime itself calls the final implementations, as a mock's
/// override is the test's, not the runtime's.
open class ManagedObjectContext: NSObject, @unchecked Sendable, AccessDescribing {
    /// The queue a context's work runs on, as Core Data's `concurrencyType`.
    public enum ConcurrencyType: Sendable, Hashable {
        /// `mainQueue`: the main queue, for the UI (`.mainQueueConcurrencyType`);
        /// `privateQueue`: a serial queue of the context's own (`.privateQueueConcurrencyType`).
        case mainQueue, privateQueue
    }

    /// Disfavored: CoreData's `concurrencyType` is Core Data's own enum (with
    /// `.confinementConcurrencyType`), and `import CoreData` code gets that one.
    @_disfavoredOverload public let concurrencyType: ConcurrencyType
    /// Core Data's `userInfo`: the app's own values, kept with the context. Not checked,
    /// as the context's other settings; a dictionary shared between queues needs the
    /// app's own care, as on Apple platforms.
    public let userInfo = NSMutableDictionary()
    /// The queue identity objects of this context are confined to.
    package let queueIdentity: QueueIdentity
    let queue: DispatchQueue
    /// libdispatch's handle of a private context's queue: the level-2 check compares
    /// the queue running a block with it. Nil for the main queue (checked the main
    /// queue's own way).
    let dispatchQueueHandle: UnsafeRawPointer?
    let number: UInt32
    /// The door of the controlled run that made this context, when one does
    /// (`ctxdebug explore`, `explore { }`): nil otherwise, and then the runtime pays this
    /// one branch. The context is one logical queue of the run (ManagedObjectContext+Scheduling.swift).
    let explorer: ScheduleDoor?

    enum ParentStore {
        case none
        case coordinator(PersistentStoreCoordinator)
        case context(ManagedObjectContext)
    }

    /// What code may set from any thread, as in Core Data (name, parent, merge
    /// policy, staleness...): one value behind one lock.
    struct Configuration: @unchecked Sendable {  // holds a context reference; guarded by the lock
        var name: String?
        var parentStore: ParentStore = .none
        var mergePolicy: MergePolicy = .error
        var automaticallyMergesChangesFromParent = false
        /// How the context was made, for its name in reports when it has none:
        /// "background" for `newBackgroundContext()`.
        var origin: String?
        var stalenessInterval: TimeInterval = -1
        var shouldDeleteInaccessibleFaults = true
        var transactionAuthor: String?
    }
    let configuration = LockedValue(Configuration())

    // Confined to the queue.
    var registry = ObjectRegistry()
    /// The one weak reference to this context that its objects share, with the
    /// context's guard (ContextGuard.swift).
    let objectsReference: ContextReference
    /// Set once this context merged another's save (missing-merge stays quiet then).
    var hasMerged = false
    /// The unsaved changes, and the changes not yet announced.
    var changeSets = ChangeSets()
    /// The unsaved links of many-to-many relationships (their join tables' rows).
    var joinChanges = JoinChanges()
    /// The undo manager and the changes not yet registered with it; nil without one.
    var undoRecording: UndoRecording?
    /// The query generation the context is pinned to; nil reads the latest.
    var queryGeneration: QueryGeneration?
    /// Notification observer tokens; set from any thread (configuration setters).
    let observers = LockedValue<[ObserverToken]>([])

    private static let nextNumber = Atomic<UInt32>(1)

    /// A context whose work runs on the main queue or on a private queue of its own;
    /// give it a `persistentStoreCoordinator` or a `parent` before it fetches or saves.
    @_disfavoredOverload  // CoreData's init takes Core Data's enum; `import CoreData` code gets that one
    public init(concurrencyType: ConcurrencyType) {
        let number = Self.registerNew()
        let queues = QueueSetup(concurrencyType, number: number)
        self.concurrencyType = concurrencyType
        self.number = number
        self.isConfinement = false
        explorer = ScheduleDoor.forNewQueue()
        (queueIdentity, queue, dispatchQueueHandle) = (queues.identity, queues.queue, queues.handle)
        objectsReference = ContextReference(contextGuard: ContextGuard(queue: queue))
        super.init()
        objectsReference.context = self
    }

    /// Core Data's deprecated `.confinementConcurrencyType`: a context with no queue of its
    /// own, used by the thread that made it. Made on the main thread it is checked as a
    /// main-queue context (that thread runs the main queue); made on another thread it is
    /// not checked, as the checker knows queues, not threads. `perform` is refused, as
    /// Core Data raises for it; `performAndWait` runs the block (Core Data raises there too).
    @_spi(CoreData) public init(confinedToCallingThread: Void) {
        let number = Self.registerNew()
        let onMain = Thread.isMainThread
        self.concurrencyType = onMain ? .mainQueue : .privateQueue
        self.number = number
        self.isConfinement = true
        explorer = nil
        queueIdentity = onMain ? .main : .none
        queue = onMain ? .main : DispatchQueue(label: "ctxdebug.context.\(number).confinement")
        dispatchQueueHandle = nil
        objectsReference = ContextReference(contextGuard: ContextGuard(queue: queue))
        super.init()
        objectsReference.context = self
    }

    /// Core Data's `init()`, deprecated there since iOS 9: a confinement context.
    @available(*, deprecated, message: "Use init(concurrencyType:) instead")
    public convenience override init() { self.init(confinedToCallingThread: ()) }

    /// True for a `.confinementConcurrencyType` context.
    @_spi(CoreData) public let isConfinement: Bool

    /// The runtime's concurrency type, for CoreData (whose `concurrencyType` is its own).
    @_spi(CoreData) public var runtimeConcurrencyType: ConcurrencyType { concurrencyType }

    /// Sets up the process's checker and runtime on the first context; the next number.
    private static func registerNew() -> UInt32 {
        Diagnostics.registered
        ConcurrencyDebug.configureIfNeeded()
        ManagedContextOperations.register()
        ManagedContextRuntimeFrames.registered
        return nextNumber.add(1, ordering: .relaxed).oldValue
    }

    /// The queue a context of a concurrency type is confined to.
    private struct QueueSetup {
        let identity: QueueIdentity
        let queue: DispatchQueue
        let handle: UnsafeRawPointer?

        init(_ type: ConcurrencyType, number: UInt32) {
            switch type {
            case .mainQueue:
                (identity, queue, handle) = (.main, .main, nil)
            case .privateQueue:
                let label = "ctxdebug.context.\(number)"
                identity = QueueIdentity.makePrivate(label: label)
                queue = DispatchQueue(label: label)
                handle = ConcurrencyDebugHooks.tag(queue, identity)
            }
        }
    }

    deinit {
        // Releasing a context with changes is how an app cancels: not reported (see unsaved-ancestor).
        Diagnostics.ancestorSaved(self)
        for o in observers.withLock({ $0 }) { NotificationCenter.default.removeObserver(o.token) }
        if concurrencyType == .privateQueue && !isConfinement { QueueIdentity.unregister(queueIdentity) }
    }

    // MARK: Configuration (not checked, as in Core Data)

    /// The context's name in reports and in `description`; nil until set (a report
    /// then names the context by how it was made: `viewContext`, `background #2`).
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

    /// How a save settles a conflict with what another context saved first (by
    /// default `.error`: the save fails with the conflicts, as in Core Data).
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

    /// The model of the context's coordinator (through its parents), for Core Data's API.
    @_spi(CoreData) public var runtimeModel: ManagedObjectModel { model }

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

    open override var description: String { "<ManagedObjectContext \(debugName)>" }

    /// The same context (identity), as Core Data's `==` (NSObject's `isEqual:`) is:
    /// `if context != mainContext` and `Set<NSManagedObjectContext>` work as on Apple platforms.
    public final override func isEqual(_ object: Any?) -> Bool { self === (object as AnyObject?) }
    public final override var hash: Int { ObjectIdentifier(self).hashValue }

    // MARK: Core Data's overridable members (the runtime calls the final ones they wrap)

    /// True when the context has unsaved inserts, updates or deletes.
    open var hasChanges: Bool { hasUnsavedChanges }

    /// Saves the context's changes: into the store in one SQLite transaction for a
    /// context on the coordinator, or into the parent context (and nothing to disk)
    /// for a child. A save that fails changes nothing, neither on disk nor in the
    /// context, whose changes stay in place to retry or roll back. It throws a
    /// `ManagedContextError` (untyped here, as Core Data's `save()`, so that an
    /// override may throw its own).
    open func save() throws { try saveChanges() }

    /// Posts `didChangeObjectsNotification` for the changes made since the last
    /// call. The runtime runs it at the end of every perform block.
    open func processPendingChanges() { postPendingChanges() }

    /// Drops every unsaved change, and empties the undo manager's stacks (Core Data:
    /// "Removes everything from the undo stack, discards all insertions and deletions,
    /// and restores updated objects to their last committed values").
    open func rollback() { rollbackChanges() }

    /// Forgets every object: they become invalid, and the context is as new. The undo
    /// manager's stacks are emptied too: their actions would act on forgotten objects.
    open func reset() { resetObjects() }

    /// Runs `block` on the context's queue and waits for it (Core Data's
    /// `performAndWait(_:)` without a result; the generic one below returns the
    /// block's value or rethrows its error).
    open func performAndWait(_ block: () -> Void) { runAndWait(block) }

    // MARK: Running work

    /// Core Data raises here: "Can only use -performBlock: on an NSManagedObjectContext
    /// that was created with a queue."
    static func refuseConfinedPerform() -> Never {
        preconditionFailure("Can only use -performBlock: on an NSManagedObjectContext that was created with a queue. A .confinementConcurrencyType context has none: use it directly on the thread that made it, or make it with .mainQueueConcurrencyType or .privateQueueConcurrencyType.")
    }

    /// Runs `block` asynchronously on the context's queue, in FIFO order.
    open func perform(_ block: @escaping @Sendable () -> Void) {
        if _slowPath(isConfinement) { Self.refuseConfinedPerform() }
        enqueue(block)
    }

    /// `perform(_:)` as the runtime calls it (an automatic merge), on any context.
    final func enqueue(_ block: @escaping @Sendable () -> Void) {
        // A nil test (no retain), and a closure made in each branch (no extra retain of it).
        if _slowPath(explorer != nil) { return explorer!.enqueue(performWork(block), on: logicalQueue, describedAs: debugName) }
        queue.async(execute: performWork(block))
    }

    /// What the context's queue runs for a `perform` block.
    @inline(__always)
    func performWork(_ block: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        { [self] in
            let span = ContextInstrumentation.begin(.perform, self)
            defer { span.end() }
            ConcurrencyDebug.entering(
                queueIdentity, dispatched: true, onDispatchQueue: dispatchQueueHandle, describedBy: { self.performDescription() }) {
                CurrentContext.with(self, block)
                postPendingChanges()
            }
        }
    }

    // The async `perform(schedule:_:)` is in ManagedObjectContext+AsyncPerform.swift.

    /// Runs `block` on the context's queue and waits for it, as Core Data does:
    /// a private context runs the block on the calling thread, holding its queue,
    /// and the block may re-enter every queue its call chain already holds (an
    /// outer perform block of this context, or the main queue for main-queue code
    /// that called it) at once, where `dispatch_sync` would deadlock.
    @inlinable
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        // Generic only here, inlined where `T` is known: the queue work below is not
        // generic, so a call pays no generic metadata lookups.
        try withResult(of: block, rescue: { throw $0 })
    }

    /// `block`'s result or error through `runAndWait`, as libdispatch's `sync` keeps
    /// `rethrows` (the rescue closure rethrows the block's own error).
    @inlinable
    func withResult<T>(of block: () throws -> T, rescue: (any Error) throws -> T) rethrows -> T {
        var result: T?
        var failure: (any Error)?
        runAndWait {
            do { result = try block() } catch { failure = error }
        }
        if let failure { return try rescue(failure) }
        return result!
    }

    /// `performAndWait` without a result: where the rules of which queue runs the
    /// block live.
    @usableFromInline
    func runAndWait(_ body: () -> Void) {
        let owner = ConcurrencyDebug.currentOwner
        if owner == queueIdentity { return body() }
        if HeldQueues.contains(queueIdentity) {
            // Dispatch sees the innermost queue, not this one: skip the level-2 check.
            return runAsOwner(body, checkQueue: false)
        }
        // Main-queue code outside any perform block holds the main queue too. (Inside
        // a block, the chain's stack says so already: no queue-specific lookup then.)
        let callerOnMainQueue = owner == .main || (owner == .none && ConcurrencyDebug.isOnMainQueue)
        if concurrencyType == .mainQueue && callerOnMainQueue { return runAsOwner(body) }
        if callerOnMainQueue && !HeldQueues.contains(.main) {
            return HeldQueues.holding(.main) { waitForQueue(body, callerOnMainQueue: true) }
        }
        waitForQueue(body, callerOnMainQueue: callerOnMainQueue)
    }

    /// Blocks until the context's queue runs `body`. The block inherits the caller's
    /// chain of held queues when it runs on another thread (the main queue's).
    private func waitForQueue(_ body: () -> Void, callerOnMainQueue: Bool) {
        if _slowPath(explorer != nil) { return waitForExploredQueue(body, explorer!) }  // a nil test: no retain
        let timed = concurrencyType == .privateQueue && callerOnMainQueue && Diagnostics.isOn(bit: Diagnostics.mainQueueWaitBit)
        // Read before the wait is recorded: a test that sees the wait may move the clock.
        let asked = timed ? MonotonicClock.now() : 0
        let wait = WaitForGraph.beginWait(for: queueIdentity, operation: "performAndWait on \(debugName)", callerOnMainQueue: callerOnMainQueue)
        defer { WaitForGraph.endWait(wait) }
        if concurrencyType == .mainQueue {
            // dispatch_sync runs a private queue's block on the calling thread, which
            // holds the chain already; only the main queue's may run on another thread.
            let chain = HeldQueues.current()
            return queue.sync {
                WaitForGraph.served(wait)
                HeldQueues.inheriting(chain) { runAsOwner(body) }
            }
        }
        if timed { return timedWait(body, wait, asked: asked) }
        // Each block first says the wait is served: the queue is running it now.
        queue.sync {
            WaitForGraph.served(wait)
            runAsOwner(body)
        }
    }

    /// Under a controlled run the caller first waits for its turn on the logical
    /// queue, and the real wait then finds the queue idle. The scheduler finds
    /// deadlocks itself, and waits take no time worth diagnosing.
    @inline(never)
    private func waitForExploredQueue(_ body: () -> Void, _ explorer: ScheduleDoor) {
        let grant = explorer.acquire(logicalQueue, describedAs: debugName)
        defer { explorer.relinquish(logicalQueue, grant) }
        if grant == .forced { return runAsOwner(body, checkQueue: false) }
        // The real wait is the scheduler's (its turn was given above), the body the app's.
        guard concurrencyType == .mainQueue else { return DispatchBypass.run { queue.sync { DispatchBypass.lifted { runAsOwner(body) } } } }
        // The main thread runs the block for the unit waiting here.
        let chain = HeldQueues.current()
        let turn = ScheduleDoor.Turn(grant)
        DispatchBypass.run {
            queue.sync { DispatchBypass.lifted { turn.acting { HeldQueues.inheriting(chain) { runAsOwner(body) } } } }
        }
    }

    /// A private queue waited for from the main queue, with main-queue-wait on.
    private func timedWait(_ body: () -> Void, _ wait: WaitForGraph.Wait?, asked: UInt64) {
        var running: UInt64 = 0
        defer { diagnoseMainQueueWait(on: self, waited: running &- asked) }
        queue.sync {
            WaitForGraph.served(wait)
            running = MonotonicClock.now()
            runAsOwner(body)
        }
    }

    /// `performAndWait` keeping the runtime's typed error, for internal calls.
    func performAndWaitTyped<T>(_ block: () throws(ManagedContextError) -> T) throws(ManagedContextError) -> T {
        var result: Result<T, ManagedContextError>!
        runAndWait { result = Result { () throws(ManagedContextError) -> T in try block() } }
        return try result.get()
    }

    private func runAsOwner(_ body: () -> Void, checkQueue: Bool = true) {
        let span = ContextInstrumentation.begin(.performAndWait, self)
        defer { span.end() }
        ConcurrencyDebug.entering(
            queueIdentity, dispatched: checkQueue, onDispatchQueue: dispatchQueueHandle, describedBy: { self.performDescription() }) {
            CurrentContext.with(self, body)
            postPendingChanges()
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

}

/// Calls into the checker that only matter at level 2, kept in one place.
enum ConcurrencyDebugHooks {
    static func tag(_ queue: DispatchQueue, _ identity: QueueIdentity) -> UnsafeRawPointer? {
        ConcurrencyDebug.tagContextQueue(queue, as: identity)
    }
}

/// `@unchecked Sendable`: the token is only handed back to NotificationCenter,
/// which is thread-safe.
struct ObserverToken: @unchecked Sendable {
    let token: any NSObjectProtocol
}
