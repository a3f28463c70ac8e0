public import CConcurrencyDebug
#if canImport(Glibc)
import Glibc
#endif

/// The queues a logical call chain holds right now, innermost last.
///
/// Core Data runs `performAndWait` on the calling thread and lets the block re-enter
/// any queue the chain already holds: main-queue code that calls
/// `child.performAndWait { try child.save() }` still holds the main queue inside the
/// block, so the save into the main-queue parent runs at once instead of waiting for
/// a queue that can never come free. The chain lives in a thread-local stack; when a
/// synchronous wait runs its block on another thread (`DispatchQueue.main.sync` from a
/// worker), the block inherits the waiting chain's queues for its duration.
@_spi(Runtime) public enum HeldQueues {
    /// A chain's queues, taken on one thread to be inherited on another.
    public struct Chain: @unchecked Sendable {  // plain integers; handed to the thread that runs the block
        let queues: [UInt]
        let thread: pthread_t
        public var identities: [QueueIdentity] { queues.map(QueueIdentity.init(rawValue:)) }
    }

    /// True when the chain running on this thread holds `queue`.
    @inlinable
    public static func contains(_ queue: QueueIdentity) -> Bool {
        ctxdebug_held_contains(queue.rawValue) != 0
    }

    /// Runs `body` holding `queue`.
    @inlinable
    public static func holding<T, E: Error>(_ queue: QueueIdentity, _ body: () throws(E) -> T) throws(E) -> T {
        ctxdebug_held_push(queue.rawValue)
        defer { ctxdebug_held_pop() }
        return try body()
    }

    /// The chain running on this thread now.
    public static func current() -> Chain {
        let count = Int(min(ctxdebug_held_count(), CTXDEBUG_HELD_MAX))
        // No unsafe initializer for an empty chain: with capacity 0 it would write the
        // count into the shared empty-array storage, which ThreadSanitizer reports.
        guard count > 0 else { return Chain(queues: [], thread: pthread_self()) }
        let queues = [UInt](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = Int(ctxdebug_held_copy(buffer.baseAddress, Int32(count)))
        }
        return Chain(queues: queues, thread: pthread_self())
    }

    /// Runs `body` holding `chain`'s queues too, when it runs on another thread than
    /// the one that took `chain` (on the same thread it holds them already).
    public static func inheriting<T, E: Error>(_ chain: Chain, _ body: () throws(E) -> T) throws(E) -> T {
        if chain.queues.isEmpty || pthread_equal(chain.thread, pthread_self()) != 0 { return try body() }
        let mark = ctxdebug_held_count()
        for q in chain.queues { ctxdebug_held_push(q) }
        defer { ctxdebug_held_truncate(mark) }
        return try body()
    }
}

extension ConcurrencyDebug {
    /// Runs `body` as work of `queue`: the one way into a queue, as GRDB's
    /// `SchedulingWatchdog.allowing(databases:execute:)` is. For the body's duration the
    /// thread's current owner is `queue` and the call chain holds it (so a
    /// `performAndWait` inside may re-enter it); at level 2 and up, when the block was
    /// `dispatched` onto `queue`, it must also be running on `queue`'s dispatch queue
    /// (`assertPerformQueue`, reporting what `describe` says; `dispatchQueue`, what
    /// `tagContextQueue` returned for it, makes that one compare). Everything is restored on
    /// the way out, so entries nest. Both closures are non-escaping: entering allocates
    /// nothing.
    @_spi(Runtime) @inlinable
    public static func entering<T, E: Error>(
        _ queue: QueueIdentity, dispatched: Bool, onDispatchQueue dispatchQueue: UnsafeRawPointer? = nil,
        describedBy describe: () -> AccessDescription,
        _ body: () throws(E) -> T
    ) throws(E) -> T {
        let previous = ctxdebug_current_owner()
        ctxdebug_set_current_owner(queue.rawValue)
        ctxdebug_held_push(queue.rawValue)
        defer {
            ctxdebug_held_pop()
            ctxdebug_set_current_owner(previous)
        }
        if dispatched && ctxdebug_access_mode() >= Int32(CTXDEBUG_ACCESS_CHECK) && level >= .performQueues {
            assertPerformQueue(expected: queue, dispatchQueue: dispatchQueue, describedBy: describe)
        }
        return try body()
    }
}
