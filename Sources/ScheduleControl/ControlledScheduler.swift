@_spi(Runtime) import ConcurrencyDebug
import CtxdebugHelpers
package import ExploreModel
import Dispatch
import Foundation

/// Runs the contexts made inside one controlled run one unit at a time, and lets a
/// strategy choose, at each scheduling point, which unit runs next (docs/explore.md).
///
/// A *unit* is a thread the scheduler controls: the run's driver (the test's own
/// thread) or a thread running one block of an explored context's queue. Each
/// context queue is a logical FIFO of blocks and `performAndWait` waiters; a block
/// starts on the context's real dispatch queue (the main queue's on the real main
/// queue) only when the strategy chooses it. Exactly one unit holds the baton; the
/// others wait on their own semaphore. So every schedule is one libdispatch could
/// have run, and the same choices give the same run.
package final class ControlledScheduler: Sendable {
    package typealias Chooser = @Sendable (SchedulingDecision) -> SchedulingAnswer

    package let granularity: ExploreGranularity
    package let allowsUncontrolled: Bool
    let chooser: Chooser
    let state = LockedValue(State())
    /// Signalled once when the run is over (the driver ended and everything drained).
    let finished = DispatchSemaphore(value: 0)

    /// Whether each point keeps its stack, for the source sites of a schedule file
    /// (a few microseconds a point: taken for the runs that confirm a failure).
    let capturesSites: Bool
    /// Whether a question says what each candidate would do (for a parent process).
    let describesCandidates: Bool

    @inline(__always)
    func sites() -> [UInt] { capturesSites ? StackTrace.capture(maximumDepth: 24) : [] }

    /// Whether the first thread that reaches a point becomes the run's driver (a
    /// process run by `ctxdebug explore`, whose driver is whatever thread uses the
    /// runtime first).
    let adoptsDriver: Bool

    package init(
        granularity: ExploreGranularity = .coarse, allowsUncontrolled: Bool = false, adoptsDriver: Bool = false,
        capturesSites: Bool = true, describesCandidates: Bool = false,
        onFailure: (@Sendable (ControlledRunFailure) -> Void)? = nil, chooser: @escaping Chooser
    ) {
        self.granularity = granularity
        self.allowsUncontrolled = allowsUncontrolled
        self.adoptsDriver = adoptsDriver
        self.capturesSites = capturesSites
        self.describesCandidates = describesCandidates
        self.chooser = chooser
        state.withLock { $0.onFailure = onFailure }
        ScheduleControlRuntimeFrames.registered
        // Before any unit starts: each unit's thread lets the sampling signal in when it
        // starts (StackSampler.currentThread), so a hung one can be sampled.
        StackSampler.install()
    }

    // MARK: What the run saw

    package var steps: [ControlledStep] { state.withLock { $0.steps } }
    package var failure: ControlledRunFailure? { state.withLock { $0.failure } }
    package var stepCount: Int { state.withLock { $0.steps.count } }
    /// Whether another schedule of the same choices gives the same run (no uncontrolled
    /// work slipped in).
    package var isReproducible: Bool { state.withLock { !$0.sawUncontrolled } }

    // MARK: The driver

    /// Runs `body` as the run's driver on the calling thread, then waits until every
    /// explored queue is idle. The caller must be a thread of its own for the run.
    package func runDriver(_ body: () -> Void) {
        let unit = state.withLock { s in makeDriver(&s) }
        ThreadUnit.setCurrent(unit)
        body()
        drain()
        ThreadUnit.setCurrent(nil)
        let action = state.withLock { s -> Handoff in
            s.units[unit.id] = nil  // done: out of every later decision
            s.running = nil
            return decide(&s, from: unit, point: .drain, addresses: [])
        }
        action.perform(self)
        let rest = state.withLock { s in
            s.finished = true
            return s.release()
        }
        for handoff in rest { handoff.perform(self) }
        finished.signal()
        // A waiter on the main thread sleeps in its run loop: an empty main-queue block
        // wakes it now rather than at its deadline.
        if state.withLock({ $0.mainThreadWaits }) { DispatchQueue.main.async {} }
    }

    /// Ends a run that has no driver body to end it (an async driver's): control is
    /// given up, and contexts made from now on belong to no run.
    package func finish() {
        let handoffs = state.withLock { s -> [Handoff] in
            s.finished = true
            return s.release()
        }
        for handoff in handoffs { handoff.perform(self) }
    }

    package var isFinished: Bool { state.withLock { $0.finished } }

    /// Waits for the run to end. When no decision is taken for `hangTimeout` seconds,
    /// a unit is stuck outside the scheduler's control (a semaphore, a sleep, a lock
    /// of the app's): the run fails as hung, with that unit's stack, and control is
    /// given up. Returns whether the run ended (a hung unit may never end). On the
    /// main thread it keeps the main queue served meanwhile.
    package func waitForEnd(hangTimeout: Double) -> Bool {
        var seen = state.withLock { $0.progress }
        while true {
            if waitForFinish(seconds: hangTimeout) { return true }
            let now = state.withLock { $0.progress }
            if now != seen {
                seen = now
                continue
            }
            recordHang(after: hangTimeout)
            return waitForFinish(seconds: hangTimeout)
        }
    }

    private func waitForFinish(seconds: Double) -> Bool {
        guard Thread.isMainThread else { return finished.wait(timeout: .now() + seconds) == .success }
        // The run's main-queue blocks need the main thread, so it serves its run loop
        // meanwhile; the driver's end wakes it (see `runDriver`). The flag is set before
        // the semaphore is looked at, so an end is never missed.
        state.withLock { $0.mainThreadWaits = true }
        let deadline = Date(timeIntervalSinceNow: seconds)
        while Date() < deadline {
            if finished.wait(timeout: .now()) == .success { return true }
            _ = RunLoop.current.run(mode: .default, before: deadline)
        }
        return finished.wait(timeout: .now()) == .success
    }

    /// How far the run got, and whether some unit or block waits for its turn.
    package var progressAndWaiting: (Int, Bool) {
        state.withLock { s in
            let waiting = s.mode != .released
                && (s.queues.values.contains { !$0.items.isEmpty }
                    || s.units.contains {
                        $0.value.status == .ready || $0.value.status == .draining || $0.value.status == .outside
                            || { if case .waiting = $0 { true } else { false } }($0.value.status)
                    })
            return (s.progress, waiting)
        }
    }

    package func declareHang(after seconds: Double) { recordHang(after: seconds) }

    private func recordHang(after seconds: Double) {
        StackSampler.install()
        if recordOutsideHang(after: seconds) { return }
        let (actor, thread, step) = state.withLock { s in
            let unit = s.running.flatMap { s.units[$0] }
            return (unit?.actor ?? "no unit", unit?.thread ?? 0, s.steps.count)
        }
        let addresses = thread == 0 ? [] : StackSampler.sample(thread, timeoutMs: StackSampler.reportTimeoutMs)
        let handoffs = state.withLock { s -> [Handoff] in
            s.fail(ControlledRunFailure(
                kind: .hang,
                message: "\(actor) ran for \(seconds) s without reaching a scheduling point: it waits outside "
                    + "the runtime (a semaphore, a sleep, a lock of the app's, an await the scheduler cannot see). "
                    + "Under explore, wait with performAndWait or drain(); raise --hang-timeout for long computations.",
                step: step, addresses: addresses))
            return s.release()
        }
        for handoff in handoffs { handoff.perform(self) }
    }

    /// The driver for a thread that is no unit: the task of a driver that awaited a
    /// block and was resumed goes on here; or, in a process run by `ctxdebug explore`,
    /// the first thread to use the runtime.
    private func adoptDriver(_ s: inout State) -> ThreadUnit? {
        let task = ThreadUnit.currentTask
        if let driver = s.driver, let unit = s.units[driver], unit.task.map({ $0 == task }) ?? s.vacantDriver {
            // The driver's task, resumed after an awaited block or moved to another
            // thread by an await: this thread goes on as the driver.
            s.vacantDriver = false
            s.units[driver]?.thread = StackSampler.currentThread
            s.units[driver]?.tid = UncontrolledWaits.currentTID
            s.units[driver]?.task = task
            if Thread.isMainThread { s.mainThreadUnit = driver } else if s.mainThreadUnit == driver { s.mainThreadUnit = nil }
            return ThreadUnit(id: driver, actor: unit.actor, semaphore: unit.semaphore, scheduler: self, task: task)
        }
        guard adoptsDriver && s.driver == nil && s.mode == .controlling else { return nil }
        let unit = makeDriver(&s)
        s.units[unit.id]?.task = task
        return ThreadUnit(id: unit.id, actor: unit.actor, semaphore: unit.semaphore, scheduler: self, task: task)
    }

    /// The main thread as the driver, when the run has none yet.
    func adoptMainDriver(_ s: inout State) -> ThreadUnit? {
        guard s.driver == nil && s.mode == .controlling else { return nil }
        return makeDriver(&s)
    }

    private func makeDriver(_ s: inout State) -> ThreadUnit {
        let unit = s.makeUnit(actor: "driver", scheduler: self)
        if Thread.isMainThread {
            s.mainThreadUnit = unit.id
        } else if let work = DispatchControl.earlyWorkOfThread() {
            // A work item that will end (a test's job that awaits): the driver ends with
            // it (`earlyWorkEnded`); one of the main queue holds the main queue till then,
            // as the main thread does outside its run loop.
            s.driverWork = work.token
            if work.onMainQueue { s.mainThreadUnit = unit.id }
        }
        s.units[unit.id]?.status = .running
        s.units[unit.id]?.thread = StackSampler.currentThread
        s.units[unit.id]?.tid = UncontrolledWaits.currentTID
        s.running = unit.id
        s.driver = unit.id
        return unit
    }

    /// Waits until every explored queue is idle and no other unit runs: the other
    /// units run meanwhile, in the strategy's order.
    package func drain() {
        guard let unit = controlledUnit(at: .drain) else { return }
        let action = state.withLock { s -> Handoff in
            if s.mode == .released { return .none }
            s.units[unit.id]?.status = .draining
            return decide(&s, from: unit, point: .drain, addresses: [])
        }
        action.perform(self)
        if action.parksCaller(unit) { unit.park() }
        if state.withLock({ $0.mode == .released }) { releasedDrain() }
    }

    /// After control was given up, a drain waits on the real queues instead.
    private func releasedDrain() {
        let queues = state.withLock { s in
            s.queues.compactMap { entry -> DispatchQueue? in
                if case .queue(let queue) = entry.value.real { queue } else { nil }
            }
        }
        for queue in queues where !(queue === DispatchQueue.main && ConcurrencyDebug.isOnMainQueue) {
            DispatchBypass.run { queue.sync {} }
        }
    }

    // MARK: Points reached by the runtime

    /// A unit reached `point`: the strategy may run another unit first.
    package func reach(_ point: SchedulingPoint, on queue: LogicalQueue?, describedAs description: @autoclosure () -> String) {
        if point.isFine && granularity == .coarse { return }
        guard let unit = controlledUnit(at: point, describedAs: queue == nil ? nil : description()) else { return }
        let addresses = sites()
        let action = state.withLock { s -> Handoff in
            guard s.mode != .released else { return .none }
            s.units[unit.id]?.status = .ready
            return decide(&s, from: unit, point: point, context: queue?.name, addresses: addresses)
        }
        action.perform(self)
        if action.parksCaller(unit) { unit.park() }
    }

    /// `perform`: puts `block` on `queue`'s logical queue, then lets the strategy
    /// choose (the new block may start before the caller goes on).
    package func enqueue(_ block: @escaping @Sendable () -> Void, on queue: LogicalQueue, describedAs description: @autoclosure () -> String) {
        guard let unit = controlledUnit(at: .performEnqueue, describedAs: description()) else {
            return queue.queue.async(execute: block)
        }
        let addresses = sites()
        let action = state.withLock { s -> Handoff in
            if s.mode == .released {
                return .dispatch(.queue(queue.queue), block)
            }
            let key = s.queueKey(for: queue)
            s.append(.block(block, addresses), to: key)
            s.units[unit.id]?.status = .ready
            return decide(&s, from: unit, point: .performEnqueue, context: queue.name, addresses: addresses)
        }
        action.perform(self)
        if action.parksCaller(unit) { unit.park() }
    }

    /// The async `perform` from the run's driver: the driver gives up its turn until
    /// the block ran and the strategy chooses it again; then its task resumes, on
    /// whatever thread, and that thread goes on as the driver.
    nonisolated(nonsending) package func performAwaited<T: Sendable, E: Error>(
        _ block: @escaping @Sendable () throws(E) -> T, on queue: LogicalQueue,
        work: @escaping @Sendable (@escaping @Sendable () -> Void) -> @Sendable () -> Void
    ) async throws(E) -> T {
        let result = LockedValue<Result<T, E>?>(nil)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            enqueueAwaited(work { result.withLock { $0 = Result { () throws(E) -> T in try block() } } }, on: queue) {
                continuation.resume()
            }
        }
        return try result.withLock { $0! }.get()
    }

    private func enqueueAwaited(_ work: @escaping @Sendable () -> Void, on queue: LogicalQueue, resume: @escaping @Sendable () -> Void) {
        guard let unit = ThreadUnit.current, unit.scheduler === self else {
            return queue.queue.async { work(); resume() }
        }
        if DispatchControl.controls(self) {
            // The task's continuation is resumed through libdispatch, which is controlled:
            // the task goes on as a unit of its own, and the caller's thread goes on now.
            return enqueue({ work(); resume() }, on: queue, describedAs: queue.name)
        }
        let addresses = sites()
        let action = state.withLock { s -> Handoff in
            if s.mode == .released { return .dispatch(.queue(queue.queue), { work(); resume() }) }
            let key = s.queueKey(for: queue)
            let awaited: @Sendable () -> Void = { [self] in
                work()
                // The driver may go on from the next decision on, which the block's end takes.
                state.withLock { s in
                    guard s.mode != .released else { return resume() }
                    s.units[unit.id]?.status = .ready
                    s.units[unit.id]?.pendingResume = resume
                    s.sequence += 1
                    s.units[unit.id]?.since = s.sequence
                }
            }
            s.append(.block(awaited, addresses), to: key)
            s.units[unit.id]?.status = .awaiting
            return decide(&s, from: unit, point: .performEnqueue, context: queue.name, addresses: addresses)
        }
        // The task suspends now; its next thread takes the driver's part when it resumes.
        ThreadUnit.setCurrent(nil)
        action.perform(self)
    }

    /// How a `performAndWait` caller got its queue (the door's word).
    package typealias Grant = ScheduleDoor.Grant

    /// `performAndWait` on `queue` from a unit that does not hold it: waits, as a FIFO
    /// waiter, until the strategy gives the queue to it.
    package func acquire(_ queue: LogicalQueue, describedAs description: @autoclosure () -> String) -> Grant {
        guard let unit = controlledUnit(at: .performAndWait, describedAs: description()) else { return .uncontrolled }
        let addresses = sites()
        let action = state.withLock { s -> Handoff in
            if s.mode == .released { return .none }
            let key = s.queueKey(for: queue)
            s.append(.waiter(unit.id), to: key)
            s.units[unit.id]?.status = .waiting(key)
            return decide(&s, from: unit, point: .performAndWait, context: queue.name, addresses: addresses)
        }
        action.perform(self)
        if action.parksCaller(unit) { unit.park() }
        return state.withLock { s in
            if s.mode == .released { return .uncontrolled }
            if s.units[unit.id]?.forced == true {
                s.units[unit.id]?.forced = false
                return .forced
            }
            return .granted
        }
    }

    /// The `performAndWait` block on `queue` ended: it is free.
    package func relinquish(_ queue: LogicalQueue, _ grant: Grant) {
        guard grant != .uncontrolled else { return }
        state.withLock { s in
            let key = s.queueKey(for: queue)
            if grant == .granted { s.queues[key]?.busy = false }
            s.queues[key]?.touch(&s.sequence)
        }
    }

    /// The unit the calling thread is, or nil when the call is not controlled: after the
    /// run gave up control, or from a thread that is no unit of this run (recorded as
    /// uncontrolled work unless allowed).
    private func controlledUnit(at point: SchedulingPoint, describedAs description: @autoclosure () -> String? = nil) -> ThreadUnit? {
        if let unit = ThreadUnit.current, unit.scheduler === self { return unit }
        if let driver = state.withLock({ s in adoptDriver(&s) }) {
            ThreadUnit.setCurrent(driver)
            return driver
        }
        let addresses = StackTrace.capture(maximumDepth: 24)
        let names = description().map { " on \($0)" } ?? ""
        let handoffs = state.withLock { s -> [Handoff] in
            s.sawUncontrolled = true
            guard s.mode != .released, !allowsUncontrolled else { return [] }
            s.fail(ControlledRunFailure(
                kind: .uncontrolled,
                message: "\(point.rawValue)\(names) was called from a thread the scheduler does not control "
                    + "(a plain DispatchQueue, Thread or Task). Send the work through the context instead: "
                    + "context.perform { } or performAndWait { }, or call it from the explored body; "
                    + "or pass --allow-uncontrolled (the schedules are then not reproducible).",
                step: s.steps.count, addresses: addresses))
            return s.release()
        }
        for handoff in handoffs { handoff.perform(self) }
        return nil
    }

    // MARK: Blocks

    /// Runs one block of a logical queue on its real queue, as the unit `unit`.
    func runBlock(_ block: @Sendable () -> Void, as unit: ThreadUnit, queue key: String) {
        state.withLock { s in
            s.units[unit.id]?.thread = StackSampler.currentThread
            s.units[unit.id]?.tid = UncontrolledWaits.currentTID
        }
        // A main-queue block run by the main thread in its run loop is nested in the
        // main thread's own unit, which goes on after it.
        let host = MainThread.isCurrent ? ThreadUnit.slot : nil
        ThreadUnit.setCurrent(unit)
        block()
        ThreadUnit.setCurrent(host)
        let action = state.withLock { s -> Handoff in
            let wasOutside = s.units[unit.id]?.outside == true
            s.units[unit.id] = nil  // done: out of every later decision
            if s.running == unit.id { s.running = nil }
            s.queues[key]?.busy = false
            s.queues[key]?.touch(&s.sequence)
            s.blockEnded(key)
            if key == "main", let id = s.mainThreadUnit, s.units[id]?.status == .hosting {
                s.units[id]?.status = .spinning
                s.sequence += 1
                s.units[id]?.since = s.sequence
            }
            guard s.mode != .released else { return .none }
            // Back from an uncontrolled wait to end: the turn is another unit's.
            if wasOutside, let running = s.running, s.units[running] != nil { return .none }
            return decide(&s, from: unit, point: .blockEnd, context: s.queues[key]?.name, addresses: [])
        }
        action.perform(self, caller: host)
        // The main thread ran this block in its run loop for its own unit, which waits
        // there: it goes on (back into the app's code) only once the schedule chooses it,
        // unless the schedule starts the next main-queue block, which `runHostedBlocks`
        // runs first.
        if case .startHosted(_, let hostID) = action, hostID == host?.id { return }
        if let host, host.scheduler === self, state.withLock({ $0.mainThreadUnit == host.id && $0.mode != .released }) {
            host.park()
        }
    }

    /// The main thread's unit, waiting in its run loop, was woken or chose: it runs the
    /// main-queue blocks the schedule started on it, one after the other, on this thread,
    /// and returns once the schedule lets it go on (back into its run loop's caller).
    func runHostedBlocks(_ host: ThreadUnit) {
        while let work = state.withLock({ s -> HostedWork? in
            defer { s.units[host.id]?.hosted = nil }
            return s.units[host.id]?.hosted
        }) {
            switch work {
            case .block(let block, let unit): runBlock(block, as: unit, queue: "main")
            case .sync(let block, let waiter, let done, let tid, let thread): runHostedSync(block, for: waiter, done, tid: tid, thread: thread, host: host)
            }
        }
    }

    /// `waiter` was given the main queue while the main thread waited in its run loop, and
    /// its `DispatchQueue.main.sync` (or main-queue `performAndWait`) reached the real
    /// call: the main thread runs the block for it, as libdispatch does, and the waiter
    /// waits meanwhile. Returns false when the main thread does not serve this waiter's
    /// sync (the real `dispatch_sync` then runs it).
    func hostMainSync(_ work: DispatchWork, for waiter: ThreadUnit) -> Bool {
        guard !MainThread.isCurrent else { return false }
        let done = DispatchSemaphore(value: 0)
        let hostSemaphore = state.withLock { s -> DispatchSemaphore? in
            guard s.mode != .released, let hostID = s.mainThreadUnit, let main = s.units[hostID], main.status == .hosting,
                main.servesSyncOf == waiter.id, main.hosted == nil, let own = s.units[waiter.id]
            else { return nil }
            s.units[hostID]?.hosted = .sync(work.run, waiter: waiter, done: done, tid: own.tid, thread: own.thread)
            // The waiter's work is on the main thread now: a wait in the kernel there is its own.
            s.units[waiter.id]?.tid = main.tid
            s.units[waiter.id]?.thread = main.thread
            return main.semaphore
        }
        guard let hostSemaphore else { return false }
        ControlCost.exclude {
            DispatchBypass.run {
                hostSemaphore.signal()
                done.wait()
            }
        }
        return true
    }

    /// The main thread runs the block of `waiter`'s main-queue sync as `waiter`, then waits
    /// in its run loop again, until the schedule lets it go on.
    private func runHostedSync(
        _ block: @Sendable () -> Void, for waiter: ThreadUnit, _ done: DispatchSemaphore, tid: Int32, thread: UInt, host: ThreadUnit
    ) {
        let slot = ThreadUnit.slot
        ThreadUnit.setCurrent(waiter)
        DispatchBypass.lifted { block() }  // the app's work: runLoopIdle counts it apart
        ThreadUnit.setCurrent(slot)
        let parks = state.withLock { s -> Bool in
            s.units[waiter.id]?.tid = tid
            s.units[waiter.id]?.thread = thread
            s.units[host.id]?.servesSyncOf = nil
            if s.units[host.id]?.status == .hosting {
                s.units[host.id]?.status = .spinning
                s.sequence += 1
                s.units[host.id]?.since = s.sequence
            }
            return s.mainThreadUnit == host.id && s.mode != .released
        }
        DispatchBypass.run { done.signal() }
        if parks { host.park() }
    }
}
