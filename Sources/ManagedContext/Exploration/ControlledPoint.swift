/// Where a controlled run may switch to another unit (docs/explore.md, "Scheduling
/// points"). The raw values are the schedule file's point names.
package enum ControlledPoint: String, Sendable, Hashable, CaseIterable {
    /// A block of a context's queue starts (the choice that starts it).
    case blockStart = "block-start"
    /// A block ends and its queue is free for the next one.
    case blockEnd = "block-end"
    /// `perform` has put a block on a context's queue.
    case performEnqueue = "perform-enqueue"
    /// `performAndWait` waits for a context's queue.
    case performAndWait = "perform-and-wait"
    /// A save is about to write the store.
    case storeWrite = "store-write"
    /// A save is about to post its did-save notification.
    case didSave = "did-save"
    /// A context is about to merge another's save.
    case merge
    /// A fetch (or count) is about to read the store.
    case fetch
    /// Waiting for every explored queue to be idle (`drain()`, the end of a run).
    case drain
    // libdispatch's entry points, in a process whose dispatch is controlled (the preload
    // library of `ctxdebug explore`; DispatchControl.swift).
    /// `dispatch_async` (and barrier, group) has put a block on a dispatch queue.
    case dispatchAsync = "dispatch-async"
    /// `dispatch_sync` waits for a serial dispatch queue.
    case dispatchSync = "dispatch-sync"
    /// `dispatch_after` has set a timer of virtual time.
    case dispatchAfter = "dispatch-after"
    /// A timer's deadline passed (virtual time): its block goes on its queue.
    case timerFire = "timer-fire"
    /// A semaphore wait that would block.
    case semaphoreWait = "semaphore-wait"
    /// A group wait that would block.
    case groupWait = "group-wait"
    /// A semaphore was signalled or a group emptied, and a waiter may go on.
    case signal
    /// A timed wait's timeout passed (virtual time).
    case timeout
    /// `nanosleep`, `usleep`, `Thread.sleep`: a yield while virtual time passes.
    case sleep
    /// The main thread's run loop waits (XCTest's `wait(for:timeout:)`).
    case runLoop = "run-loop"
    /// The main thread parks in `dispatchMain()`.
    case dispatchMain = "dispatch-main"
    /// A unit blocked in the kernel while it held the turn (a lock of the app's, a pipe):
    /// the turn passed on; the unit rejoins the schedule at its next point.
    case uncontrolledWait = "uncontrolled-wait"
    /// Fine granularity only: a fault fires.
    case fault
    /// Fine granularity only: an object is refreshed.
    case refresh

    /// Points taken only with `--granularity fine`.
    package var isFine: Bool { self == .fault || self == .refresh }
}

/// How many points a run stops at.
package enum ControlledGranularity: String, Sendable, Hashable, CaseIterable {
    /// Block starts, enqueues, waits, store writes, did-save posts, merges, fetches.
    case coarse
    /// Also fault fires and refreshes.
    case fine
}

/// One decision of a controlled run: who reached which point, what could run next,
/// and what ran.
package struct ControlledStep: Sendable {
    package var step: Int
    /// The actor that reached the point ("driver", "main", "q1"...).
    package var actor: String
    package var point: ControlledPoint
    /// The name of the context the point concerns, when there is one.
    package var contextName: String?
    /// The return addresses where the point was reached (symbolicated only for a report).
    package var addresses: [UInt]
    package var enabled: [String]
    package var defaultIndex: Int
    package var chosen: Int
    /// What the chosen actor did: the point it went on from (a block's start, or where
    /// it had stopped), on which context, and where.
    package var chosenPoint: ControlledPoint
    package var chosenContext: String?
    package var chosenAddresses: [UInt]

    package var isDeviation: Bool { chosen != defaultIndex }
    package var chosenActor: String { enabled[chosen] }
}

/// What ended a controlled run early, or made it fail.
package struct ControlledRunFailure: Sendable, Error {
    package enum Kind: String, Sendable {
        case deadlock, hang, uncontrolled, diverged
    }
    package var kind: Kind
    package var message: String
    /// The steps at which it was seen, and the stack where that matters (an
    /// uncontrolled call's).
    package var step: Int
    package var addresses: [UInt] = []
    /// Already symbolicated text that replaces the stack of `addresses` in a report
    /// (a hang's stacks of every unit's thread).
    package var detail: String?
}

/// What a strategy is asked at each decision: the actors that may run next, in
/// canonical order ("driver", "main", then "q1", "q2"...), and which of them the FIFO,
/// no-preemption order would run.
package struct SchedulingQuestion: Sendable {
    package var step: Int
    package var enabled: [String]
    package var defaultIndex: Int
    /// Who reached the point, which point, on which context.
    package var actor = "driver"
    package var point = ControlledPoint.blockStart
    package var context: String?
    /// What each enabled actor does if chosen: its point and context.
    package var candidates: [(point: ControlledPoint, context: String?)] = []

    package init(step: Int, enabled: [String], defaultIndex: Int) {
        self.step = step
        self.enabled = enabled
        self.defaultIndex = defaultIndex
    }
}

/// A strategy's answer.
package enum SchedulingAnswer: Sendable, Equatable {
    case run(Int)
    /// A replayed schedule does not fit this run: the code changed.
    case diverged(String)
}
