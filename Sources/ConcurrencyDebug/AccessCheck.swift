public import CConcurrencyDebug
import Dispatch
import Foundation

/// What kind of access was made. Stored in one byte in the journal.
public enum AccessOperation: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case get = 1, set, fireFault
    case fetch, count, insert, delete, save, rollback, reset, refresh
    case objectWithID, existingObject, registeredObject, obtainPermanentIDs
    case hasChanges, changedObjects, merge, perform, other

    public var description: String {
        switch self {
        case .get: "get"
        case .set: "set"
        case .fireFault: "fire fault"
        case .fetch: "fetch"
        case .count: "count"
        case .insert: "insert"
        case .delete: "delete"
        case .save: "save"
        case .rollback: "rollback"
        case .reset: "reset"
        case .refresh: "refresh"
        case .objectWithID: "object(with:)"
        case .existingObject: "existingObject(with:)"
        case .registeredObject: "registeredObject(for:)"
        case .obtainPermanentIDs: "obtainPermanentIDs(for:)"
        case .hasChanges: "hasChanges"
        case .changedObjects: "inserted/updated/deletedObjects"
        case .merge: "mergeChanges(fromContextDidSave:)"
        case .perform: "perform"
        case .other: "access"
        }
    }

    /// Context methods, as opposed to attribute and relationship accesses.
    public var isContextMethod: Bool { rawValue >= AccessOperation.fetch.rawValue }
}

/// One access, in numbers only: cheap to build, and what the journal stores.
public struct AccessEvent: Sendable, Hashable {
    public var operation: AccessOperation
    /// The queue that owns what was touched.
    public var owner: QueueIdentity
    /// A small serial number of the context (0 when there is none).
    public var context: UInt32
    /// The entity number (Core Data's Z_ENT), 0 for a context method.
    public var entity: UInt16
    /// The attribute or relationship index within its entity, or `UInt16.max`.
    public var attribute: UInt16
    /// The object's primary key, or minus a temporary object's serial; 0 for none.
    public var object: Int64

    public init(
        operation: AccessOperation, owner: QueueIdentity, context: UInt32 = 0,
        entity: UInt16 = 0, attribute: UInt16 = .max, object: Int64 = 0
    ) {
        self.operation = operation
        self.owner = owner
        self.context = context
        self.entity = entity
        self.attribute = attribute
        self.object = object
    }
}

/// What a report says about an access, in words. Built only on the slow path.
public struct AccessDescription: Sendable, Hashable, Codable {
    public var operation: String
    public var entity: String?
    public var attribute: String?
    public var objectID: String?
    public var contextName: String?
    public var ownerQueueLabel: String
    public var fixHint: String

    public init(
        operation: String, entity: String? = nil, attribute: String? = nil, objectID: String? = nil,
        contextName: String? = nil, ownerQueueLabel: String, fixHint: String
    ) {
        self.operation = operation
        self.entity = entity
        self.attribute = attribute
        self.objectID = objectID
        self.contextName = contextName
        self.ownerQueueLabel = ownerQueueLabel
        self.fixHint = fixHint
    }

    /// "operation of Entity.attribute" (or "operation of attribute", or the operation
    /// alone): how every report names the access.
    public var summary: String {
        if let entity { return operation + " of " + entity + (attribute.map { "." + $0 } ?? "") }
        if let attribute { return operation + " of " + attribute }
        return operation
    }
}

/// Something confined to a queue that can say, in words, what an access to it was.
/// Contexts and managed objects conform; so does `QueueConfined`.
public protocol AccessDescribing: AnyObject {
    func describe(_ event: AccessEvent) -> AccessDescription
}

public enum ConcurrencyDebug {
    /// Checks one access against the queue that owns it.
    ///
    /// The hot path: with checking off, one load and one predictable branch; with
    /// checking on and the right queue running, a thread-local load and an integer
    /// compare. A main-queue object touched from plain main-queue code (outside
    /// `perform`, as UI code reads) adds one call into libdispatch for its current
    /// queue. Everything else (configuring, queues that only target the main queue,
    /// journaling, reporting) is on the out-of-line slow path.
    @inlinable @inline(__always)
    public static func check(
        _ subject: some AccessDescribing, owner: QueueIdentity, _ event: @autoclosure () -> AccessEvent
    ) {
        let mode = ctxdebug_access_mode()
        if _fastPath(mode == 0) { return }
        if _fastPath(mode == 1) {
            if _fastPath(ctxdebug_current_owner() == owner.rawValue) { return }
            if owner == .main && ctxdebug_on_main_queue() != 0 { return }
        }
        slowPath(subject, owner: owner, event: event())
    }

    /// The queue identity of the perform block running now on this thread.
    @inlinable
    public static var currentOwner: QueueIdentity {
        QueueIdentity(rawValue: ctxdebug_current_owner())
    }

    /// Makes `owner` the queue identity running now on this thread. Pair every call
    /// with one that restores the previous owner (see `withOwner`).
    @inlinable
    public static func setCurrentOwner(_ owner: QueueIdentity) {
        ctxdebug_set_current_owner(owner.rawValue)
    }

    /// Runs `body` as `owner`: what a perform block of that queue's context does.
    /// Restores the previous owner after, so nested `performAndWait` works.
    @inlinable
    public static func withOwner<T, E: Error>(_ owner: QueueIdentity, _ body: () throws(E) -> T) throws(E) -> T {
        let previous = ctxdebug_current_owner()
        ctxdebug_set_current_owner(owner.rawValue)
        defer { ctxdebug_set_current_owner(previous) }
        return try body()
    }

    /// True when the code running now is on the main queue: a main-queue work item
    /// (on whatever thread `dispatchMain()` or the run loop services it), a queue
    /// that targets the main queue, or the main thread itself. Cheap when it is true
    /// for a main-queue work item or the main thread (libdispatch's current queue);
    /// otherwise it costs a queue-specific lookup.
    public static var isOnMainQueue: Bool {
        if ctxdebug_current_owner() == QueueIdentity.main.rawValue { return true }
        if ctxdebug_on_main_queue() != 0 { return true }
        MainQueueMarker.install()
        if DispatchQueue.getSpecific(key: MainQueueMarker.key) != nil { return true }
        return Thread.isMainThread
    }

    /// True when `owner`'s code may run now: its perform block is running, or
    /// owner is the main queue and this is main-queue code.
    public static func isRunning(_ owner: QueueIdentity) -> Bool {
        if ctxdebug_current_owner() == owner.rawValue { return true }
        return owner == .main && isOnMainQueue
    }

    @usableFromInline @inline(never)
    static func slowPath(_ subject: some AccessDescribing, owner: QueueIdentity, event: AccessEvent) {
        // Not confined to any queue (an object not inserted into a context yet).
        if owner == .none && ctxdebug_access_mode() >= 0 { return }
        Checker.shared.handle(subject, owner: owner, event: event)
    }
}

enum MainQueueMarker {
    static let key = DispatchSpecificKey<UInt8>()
    private static let installed: Bool = {
        DispatchQueue.main.setSpecific(key: key, value: 1)
        return true
    }()
    static func install() { _ = installed }
}
