public import Dispatch
import Synchronization

/// A value confined to one queue, checked on every get and set through the same
/// access check as managed objects: swift-nio's `NIOLoopBound`, for queues.
///
///     let counter = QueueConfined(0, owner: .main, name: "counter")
///     DispatchQueue.main.async { counter.value += 1 }        // fine: main-queue code
///     context.perform { counter.value += 1 }                  // a violation, unless
///                                                             // context is main-queue
///
/// For a context, pass the context (`QueueConfined(value, context: ctx)`, in
/// ManagedContext): the value may then be touched inside that context's perform blocks
/// only. For a queue of your own, pass the queue: the value may then be touched by
/// code running on it.
///
///     let cache = QueueConfined([String: Int](), queue: cacheQueue)
///     cacheQueue.async { cache.value["a"] = 1 }               // fine
///     DispatchQueue.global().async { _ = cache.value }         // a violation
///
/// It is `@unchecked Sendable` on purpose, like `NIOLoopBound`: it may be handed to
/// other queues (that is what lets it be captured into a closure that is sent back to
/// its queue), but its value may only be touched on its owner's queue. That rule is
/// what keeps it free of data races, and the checker enforces it at run time when
/// checking is on (level 1 or more): any touch from another queue is a violation.
/// With checking off, as with Core Data's managed objects, the rule is the caller's
/// to keep.
public final class QueueConfined<Value>: AccessDescribing, @unchecked Sendable {
    /// The queue the value belongs to.
    public let owner: QueueIdentity
    /// A name for reports; defaults to "QueueConfined #n".
    public let name: String
    private let serial: Int64
    private var storage: Value

    /// Confines `value` to the queue `owner` (`.main`, or a queue's identity), under
    /// `name` in reports.
    public init(_ value: Value, owner: QueueIdentity, name: String? = nil) {
        let serial = Int64(nextSerial.add(1, ordering: .relaxed).newValue)
        self.owner = owner
        self.serial = serial
        self.name = name ?? "QueueConfined #\(serial)"
        self.storage = value
    }

    /// A value confined to `queue`, a dispatch queue you own (or `.main`): code
    /// running on it may touch the value, any other code may not. The queue is tagged
    /// with a queue identity (the same one for every value bound to it).
    public convenience init(_ value: Value, queue: DispatchQueue, name: String? = nil) {
        self.init(value, owner: ConcurrencyDebug.identity(of: queue), name: name)
    }

    /// The value. Every get and set is checked against `owner`.
    public var value: Value {
        get {
            ConcurrencyDebug.check(self, owner: owner, event(.get))
            return storage
        }
        set {
            ConcurrencyDebug.check(self, owner: owner, event(.set))
            storage = newValue
        }
        _modify {
            ConcurrencyDebug.check(self, owner: owner, event(.set))
            yield &storage
        }
    }

    /// Runs `body` with the value in place: one check (as a set) for the whole body.
    public func withValue<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        ConcurrencyDebug.check(self, owner: owner, event(.set))
        return try body(&storage)
    }

    @inline(__always)
    private func event(_ operation: AccessOperation) -> AccessEvent {
        AccessEvent(operation: operation, owner: owner, instance: serial)
    }

    /// A report's words for an access to the value: its name, its queue, and how to
    /// reach the value from the right one.
    public func describe(_ event: AccessEvent) -> AccessDescription {
        let fixHint: String
        if owner == .main {
            fixHint =
                "touch '\(name)' only from main-queue code: hop with `DispatchQueue.main.async { }` (or `await MainActor.run { }`), and send a Sendable copy of what you need to other queues."
        } else if ConcurrencyDebug.isUserQueue(owner) {
            fixHint =
                "touch '\(name)' only from code running on queue '\(owner.label)' (`queue.async { }` or `queue.sync { }`), and send a Sendable copy of what you need to other queues."
        } else {
            fixHint =
                "touch '\(name)' only inside a perform block of the context on queue '\(owner.label)' (`context.perform { }`), and send a Sendable copy of what you need to other queues."
        }
        return AccessDescription(
            operation: event.operation.description, entity: "QueueConfined<\(Value.self)>", objectID: name,
            ownerQueueLabel: owner.label, fixHint: fixHint)
    }
}

private let nextSerial = Atomic<Int>(0)
