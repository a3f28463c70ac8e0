public import CConcurrencyDebug
import CtxdebugHelpers
import Dispatch
import Foundation
import Synchronization

/// What kind of access was made: a number from 1 to 31, stored in 5 bits of a journal
/// record. The checker names only its own (`get`, `set`, `other`); a client names
/// the rest with `register(_:as:)`, once, before it journals them. ManagedContext
/// registers Core Data's (fetch, save, object(with:) ...).
public struct AccessOperation: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    /// `rawValue` must be in `1...31`.
    @inlinable
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// A read of a value or a property.
    @inlinable public static var get: AccessOperation { AccessOperation(rawValue: 1) }
    /// A write of a value or a property.
    @inlinable public static var set: AccessOperation { AccessOperation(rawValue: 2) }
    /// An access of no more precise kind ("access").
    @inlinable public static var other: AccessOperation { AccessOperation(rawValue: 20) }

    /// The numbers an operation may have.
    public static let validRawValues: ClosedRange<UInt8> = 1...31

    /// Names `rawValue` for reports and the journal; returns its operation. The same
    /// name again is fine; a different name for a number already named, or a number
    /// outside `validRawValues`, is a programming error.
    @_spi(Runtime) @discardableResult
    public static func register(_ name: String, as rawValue: UInt8) -> AccessOperation {
        precondition(validRawValues.contains(rawValue), "an access operation is a number in 1...31, not \(rawValue)")
        AccessOperationNames.shared.register(name, as: rawValue)
        return AccessOperation(rawValue: rawValue)
    }

    /// The registered name, or "op N" for a number nobody named.
    public var description: String {
        AccessOperationNames.shared.name(of: rawValue) ?? "op \(rawValue)"
    }

    /// True when a name was registered for this number (the checker's own always are).
    public var isRegistered: Bool { AccessOperationNames.shared.name(of: rawValue) != nil }
}

/// The process's operation names, by number. Read on slow paths only (a report, a
/// journal block's first use of an operation).
package final class AccessOperationNames: Sendable {
    static let shared = AccessOperationNames()

    package init() {}

    private let names = LockedValue<[String?]>({
        var names = [String?](repeating: nil, count: 32)
        names[Int(AccessOperation.get.rawValue)] = "get"
        names[Int(AccessOperation.set.rawValue)] = "set"
        names[Int(AccessOperation.other.rawValue)] = "access"
        return names
    }())

    package func register(_ name: String, as rawValue: UInt8) {
        names.withLock { names in
            if let existing = names[Int(rawValue)] {
                precondition(existing == name, "access operation \(rawValue) is already named '\(existing)', not '\(name)'")
            }
            names[Int(rawValue)] = name
        }
    }

    package func name(of rawValue: UInt8) -> String? {
        guard Int(rawValue) < 32 else { return nil }
        return names.withLock { $0[Int(rawValue)] }
    }
}

/// One access, in numbers only: cheap to build, and what the journal stores. The
/// checker gives the numbers no meaning beyond equality; its client does (for
/// ManagedContext: the context, the entity, the property, the object).
public struct AccessEvent: Sendable, Hashable {
    /// What the access did (a read, a write, a fetch...), as the client registered it.
    public var operation: AccessOperation
    /// The queue that owns what was touched.
    public var owner: QueueIdentity
    /// A small serial number of the container that confines what was touched (a
    /// managed object context), 0 when there is none.
    public var context: UInt32
    /// The kind of thing touched (for ManagedContext, its entity number), 0 for none.
    public var subject: UInt16
    /// The member of `subject` touched (a property index), or `UInt16.max` for none.
    public var member: UInt16
    /// Which instance was touched (a key or serial number), 0 for none.
    public var instance: Int64

    /// An access of `operation` to something `owner` owns; the other numbers default
    /// to none.
    @inlinable
    public init(
        operation: AccessOperation, owner: QueueIdentity, context: UInt32 = 0,
        subject: UInt16 = 0, member: UInt16 = .max, instance: Int64 = 0
    ) {
        self.operation = operation
        self.owner = owner
        self.context = context
        self.subject = subject
        self.member = member
        self.instance = instance
    }
}

/// Something confined to a queue that can say, in words, what an access to it was.
/// Contexts and managed objects conform; so does `QueueConfined`.
public protocol AccessDescribing: AnyObject {
    /// What `event`, an access to this, was, in words: called only for a violation,
    /// so it may be slow.
    func describe(_ event: AccessEvent) -> AccessDescription
}

/// The concurrency checker: `check(_:owner:_:)` at every access, configured by
/// the environment (`CTXDEBUG_CONCURRENCY`, `CTXDEBUG_ON_VIOLATION`...) or by
/// `configure(_:)`, and what it recorded (`recordedViolations`).
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
        if _fastPath(mode == Int32(CTXDEBUG_ACCESS_OFF)) { return }
        if _fastPath(mode == Int32(CTXDEBUG_ACCESS_CHECK)) {
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
        if owner == .none && ctxdebug_access_mode() != Int32(CTXDEBUG_ACCESS_UNCONFIGURED) { return }
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

extension ConcurrencyDebug {
    /// What `checkGuarded` found, for a runtime that keeps its own state whole when the
    /// program goes on after a violation.
    @_spi(Runtime) public enum GuardVerdict: Sendable {
        /// The fast path: the owner's access, and nothing in the process is guarded.
        case unguarded
        /// An allowed access while the process guards some owner (after
        /// `beginGuarding()`): the caller takes its lock if its owner is guarded.
        case owner
        /// A violation the handler went on from (report or log mode, a suppression,
        /// an interceptor): the caller guards its owner and takes its lock.
        case violation
    }

    /// `check(_:owner:_:)`, telling a runtime what to do around the access. Its fast
    /// path is `check`'s and returns `.unguarded`: until some violation guards an
    /// owner, this costs what `check` costs. `beginGuarding()` turns the fast path off
    /// for the rest of the process, so that an owner's access reaches its lock.
    @_spi(Runtime) @inlinable @inline(__always)
    public static func checkGuarded(
        _ subject: some AccessDescribing, owner: QueueIdentity, _ event: @autoclosure () -> AccessEvent
    ) -> GuardVerdict {
        let mode = ctxdebug_access_mode()
        if _fastPath(mode == Int32(CTXDEBUG_ACCESS_OFF)) { return .unguarded }
        if _fastPath(mode == Int32(CTXDEBUG_ACCESS_CHECK)) {
            if _fastPath(ctxdebug_current_owner() == owner.rawValue) { return .unguarded }
            if owner == .main && ctxdebug_on_main_queue() != 0 { return .unguarded }
        }
        return guardedSlowPath(subject, owner: owner, event: event())
    }

    /// `checkGuarded`'s out-of-line path (public for inlining only).
    @_spi(Runtime) @inline(never)
    public static func guardedSlowPath(_ subject: some AccessDescribing, owner: QueueIdentity, event: AccessEvent) -> GuardVerdict {
        if owner == .none && ctxdebug_access_mode() != Int32(CTXDEBUG_ACCESS_UNCONFIGURED) { return .unguarded }
        if Checker.shared.handle(subject, owner: owner, event: event) { return .violation }
        return Guarding.isOn ? .owner : .unguarded
    }

    /// Sends every checked access of the process through the out-of-line path from
    /// now on, for a runtime whose owner's accesses must see that it guards an owner
    /// (ManagedContext: after a context's first violation in report or log mode).
    /// Stays on for the life of the process, `configure(_:)` included.
    @_spi(Runtime) public static func beginGuarding() {
        Guarding.begin()
    }
}

/// Whether the process guards some owner, and the access mode that says so.
enum Guarding {
    private static let on = Atomic<Bool>(false)

    static var isOn: Bool { on.load(ordering: .sequentiallyConsistent) }

    static func begin() {
        if on.load(ordering: .sequentiallyConsistent) { return }
        on.store(true, ordering: .sequentiallyConsistent)
        _ = ctxdebug_replace_access_mode(Int32(CTXDEBUG_ACCESS_CHECK), Int32(CTXDEBUG_ACCESS_CHECK_GUARDED))
    }

    /// `mode` as the process should have it: plain checking becomes guarded checking
    /// once guarding is on. Called after each change of the mode.
    static func settle() {
        if isOn { _ = ctxdebug_replace_access_mode(Int32(CTXDEBUG_ACCESS_CHECK), Int32(CTXDEBUG_ACCESS_CHECK_GUARDED)) }
    }
}
