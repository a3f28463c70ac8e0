// The words of exploration, shared by the runtime's scheduler, the CLI, the in-process
// API, the schedule file and the child's messages: where a run may switch
// (`SchedulingPoint`), how many points it stops at (`ExploreGranularity`), and what
// ended it (`FailureKind`).

/// A scheduling point's kind: where a controlled run may switch to another unit
/// (docs/explore.md, "Scheduling points"), named as the schedule file names it.
///
/// Open, not an enum: a schedule file written by another version of ctxdebug, with a
/// point this one does not know, still reads. The members are `@inlinable` so that a
/// point named on the runtime's hot path costs nothing when exploration is off.
public struct SchedulingPoint: RawRepresentable, Codable, Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    public var rawValue: String
    @inlinable public init(rawValue: String) { self.rawValue = rawValue }
    @inlinable public init(_ rawValue: String) { self.rawValue = rawValue }
    @inlinable public init(stringLiteral value: String) { rawValue = value }
    public var description: String { rawValue }

    // The runtime's own points (coarse).
    /// A block of a context's (or dispatch queue's) queue starts: the choice that starts it.
    @inlinable public static var blockStart: SchedulingPoint { "block-start" }
    /// A block ends and its queue is free for the next one.
    @inlinable public static var blockEnd: SchedulingPoint { "block-end" }
    /// `perform` has put a block on a context's queue.
    @inlinable public static var performEnqueue: SchedulingPoint { "perform-enqueue" }
    /// `performAndWait` waits for a context's queue.
    @inlinable public static var performAndWait: SchedulingPoint { "perform-and-wait" }
    /// A save is about to write the store.
    @inlinable public static var storeWrite: SchedulingPoint { "store-write" }
    /// A save is about to post its did-save notification.
    @inlinable public static var didSave: SchedulingPoint { "did-save" }
    /// A context is about to merge another's save.
    @inlinable public static var merge: SchedulingPoint { "merge" }
    /// A fetch (or count) is about to read the store.
    @inlinable public static var fetch: SchedulingPoint { "fetch" }
    /// Waiting for every explored queue to be idle (`drain()`, the end of a run).
    @inlinable public static var drain: SchedulingPoint { "drain" }

    // libdispatch's entry points, in a process whose dispatch is controlled (the preload
    // library of `ctxdebug explore`).
    /// `dispatch_async` (and barrier, group) has put a block on a dispatch queue.
    @inlinable public static var dispatchAsync: SchedulingPoint { "dispatch-async" }
    /// `dispatch_sync` waits for a serial dispatch queue.
    @inlinable public static var dispatchSync: SchedulingPoint { "dispatch-sync" }
    /// `dispatch_after` has set a timer of virtual time.
    @inlinable public static var dispatchAfter: SchedulingPoint { "dispatch-after" }
    /// A timer's deadline passed (virtual time): its block goes on its queue.
    @inlinable public static var timerFire: SchedulingPoint { "timer-fire" }
    /// `dispatch_apply` (`concurrentPerform`) has put its iterations on a queue, and its
    /// caller waits until every one ran.
    @inlinable public static var dispatchApply: SchedulingPoint { "dispatch-apply" }
    /// A semaphore wait that would block.
    @inlinable public static var semaphoreWait: SchedulingPoint { "semaphore-wait" }
    /// A group wait that would block.
    @inlinable public static var groupWait: SchedulingPoint { "group-wait" }
    /// A semaphore was signalled or a group emptied, and a waiter may go on.
    @inlinable public static var signal: SchedulingPoint { "signal" }
    /// A timed wait's timeout passed (virtual time).
    @inlinable public static var timeout: SchedulingPoint { "timeout" }
    /// `nanosleep`, `usleep`, `Thread.sleep`: a yield while virtual time passes.
    @inlinable public static var sleep: SchedulingPoint { "sleep" }
    /// The main thread's run loop waits (XCTest's `wait(for:timeout:)`).
    @inlinable public static var runLoop: SchedulingPoint { "run-loop" }
    /// The main thread parks in `dispatchMain()`.
    @inlinable public static var dispatchMain: SchedulingPoint { "dispatch-main" }
    /// A unit blocked in the kernel while it held the turn (a lock of the app's, a pipe):
    /// the turn passed on; the unit rejoins the schedule at its next point.
    @inlinable public static var uncontrolledWait: SchedulingPoint { "uncontrolled-wait" }

    // Fine granularity only.
    /// A fault fires.
    @inlinable public static var fault: SchedulingPoint { "fault" }
    /// An object is refreshed.
    @inlinable public static var refresh: SchedulingPoint { "refresh" }

    /// Every point this version knows, coarse ones first.
    public static let known: [SchedulingPoint] = [
        .blockStart, .blockEnd, .performEnqueue, .performAndWait, .storeWrite, .didSave, .merge, .fetch, .drain,
        .dispatchAsync, .dispatchSync, .dispatchAfter, .dispatchApply, .timerFire, .semaphoreWait, .groupWait, .signal, .timeout, .sleep,
        .runLoop, .dispatchMain, .uncontrolledWait, .fault, .refresh,
    ]

    /// Points taken only with `--granularity fine`.
    @inlinable public var isFine: Bool { self == .fault || self == .refresh }
}

/// Which points are scheduling points: `coarse` (the default) or `fine` (adds faults
/// and refreshes).
public enum ExploreGranularity: String, Codable, Sendable, CaseIterable {
    case coarse, fine
}

/// What ended a run as a failure. The runtime's scheduler ends a run with `deadlock`,
/// `hang`, `uncontrolled`, `diverged` or `limit`; the others are seen by what runs it
/// (the body threw, the process crashed, a violation was reported).
///
/// `limit` is explore's own limit, not the program's: a long deadline (a watchdog's, a
/// test's timeout) would have passed in virtual time while a unit still had work that a
/// real run does long before it (a sleep or a timed wait of a second or less). The
/// driver sets such a run aside (counted in the report) and never reports it as a bug.
public enum FailureKind: String, Codable, Sendable, CaseIterable {
    case assertion, crash, violation, deadlock, hang, uncontrolled, diverged, limit
}
