package import Dispatch
package import ExploreModel

/// A queue as the schedule control sees it: what a logical queue of a controlled run is
/// keyed by and made from. A runtime registers its queues this way (ManagedContext: one
/// per context, keyed by the context's number); the schedule control never sees who
/// registered it.
package struct LogicalQueue: Sendable {
    /// Tells the registrant's queues apart for the run: the same key, the same logical queue.
    package var key: Int
    /// Its name in steps and reports, read at each point (a context's name may change).
    package var name: String
    /// The real queue its blocks start on.
    package var queue: DispatchQueue
    /// Whether it is the main queue: every main logical queue is the one "main".
    package var isMain: Bool

    package init(key: Int, name: String, queue: DispatchQueue, isMain: Bool) {
        self.key = key
        self.name = name
        self.queue = queue
        self.isMain = isMain
    }
}

/// The one door through which a runtime reaches the schedule control (docs/explore.md,
/// docs/architecture.md), as Fray's RuntimeDelegate is the one door of the JVM's
/// intercepted calls: keyed by a logical queue, never by what owns it. The preload
/// library's hooks (DispatchControl.swift) end in the same scheduler.
///
/// A value is the run a queue belongs to; nil (almost always) when no run controls it,
/// and then the caller pays one branch.
package struct ScheduleDoor: Sendable {
    let scheduler: ControlledScheduler

    /// Where a unit may be preempted: ExploreModel's word, the schedule file's.
    package typealias Point = SchedulingPoint

    /// The run a queue registered now belongs to: the calling thread's unit's, the task's,
    /// or the process's when `ctxdebug explore` runs it; nil otherwise.
    package static func forNewQueue() -> ScheduleDoor? {
        Exploration.scheduler(forNewQueue: ()).map(ScheduleDoor.init(scheduler:))
    }

    /// A scheduling point on `queue`: the strategy may run another unit first.
    /// `description` names the queue in a failure ("context 'a' (ctxdebug.context.3)").
    package func reach(_ point: SchedulingPoint, on queue: LogicalQueue?, describedAs description: @autoclosure () -> String) {
        scheduler.reach(point, on: queue, describedAs: description())
    }

    /// An asynchronous block on `queue` (a context's `perform`): put on its logical queue,
    /// and the new block may start before the caller goes on.
    package func enqueue(_ block: @escaping @Sendable () -> Void, on queue: LogicalQueue, describedAs description: @autoclosure () -> String) {
        scheduler.enqueue(block, on: queue, describedAs: description())
    }

    /// Whether the calling thread is a unit of this run.
    package var controlsCaller: Bool { ThreadUnit.current?.scheduler === scheduler }

    /// An awaited block on `queue` from the run's driver: the driver gives up its turn until
    /// the block ran (`work` wraps it as the queue runs it).
    nonisolated(nonsending) package func performAwaited<T: Sendable, E: Error>(
        _ block: @escaping @Sendable () throws(E) -> T, on queue: LogicalQueue,
        work: @escaping @Sendable (@escaping @Sendable () -> Void) -> @Sendable () -> Void
    ) async throws(E) -> T {
        try await scheduler.performAwaited(block, on: queue, work: work)
    }

    /// How a waiter (a context's `performAndWait`) got its queue.
    package enum Grant: Sendable {
        /// In turn, as libdispatch would give it: go on with the real wait.
        case granted
        /// After a deadlock was found, to let the run unwind: run the block now on the
        /// caller's thread, without waiting for the queue (the run is already failed).
        case forced
        /// Not controlled (released, or an uncontrolled call allowed): the real wait.
        case uncontrolled
    }

    /// A synchronous wait for `queue` (a context's `performAndWait`) from a unit that does
    /// not hold it: waits, as a FIFO waiter, until the strategy gives the queue to it.
    package func acquire(_ queue: LogicalQueue, describedAs description: @autoclosure () -> String) -> Grant {
        scheduler.acquire(queue, describedAs: description())
    }

    /// The wait's block ended: `queue` is free.
    package func relinquish(_ queue: LogicalQueue, _ grant: Grant) {
        scheduler.relinquish(queue, grant)
    }

    /// The calling thread's part in a run, carried to the thread that runs a block for it
    /// (the main thread, for a main-queue wait).
    package struct Turn {
        let unit: ThreadUnit?

        /// The calling thread's, when `grant` gave it the queue in turn; none otherwise.
        package init(_ grant: Grant) { unit = grant == .granted ? ThreadUnit.current : nil }

        /// Runs `body` as the unit the turn was taken from.
        package func acting<T>(_ body: () -> T) -> T { ThreadUnit.acting(as: unit, body) }
    }
}
