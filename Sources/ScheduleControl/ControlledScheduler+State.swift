import CtxdebugHelpers
import ExploreModel
import Dispatch
import Foundation
import Synchronization

extension ControlledScheduler {
    enum Mode { case controlling, aborting, released }

    enum UnitStatus: Equatable {
        case running, ready, draining, done
        /// The driver's task awaits an async `perform` block.
        case awaiting
        /// In `performAndWait`, queued on the logical queue with this key.
        case waiting(String)
        /// In a semaphore or group wait (the object's key) that would block, and whether
        /// the schedule may let its timeout pass.
        case blocked(String, timeout: WaitTimeout)
        /// In a sleep: it goes on once virtual time passes (a choice of the schedule).
        case sleeping
        /// The main thread's run loop waits for work (XCTest's `wait(for:timeout:)`).
        case spinning
        /// The main thread, spinning its run loop, runs a main-queue block nested in it.
        case hosting
        /// Blocked in the kernel while it held the turn (UncontrolledWaits.swift): out of
        /// the schedule until it reaches its next point.
        case outside
    }

    /// A modelled wait's timeout: none; a short one (a second or less), whose passing is
    /// a choice like any other; a long one (a watchdog's, a test's), which passes only
    /// when nothing else can run.
    enum WaitTimeout: Equatable { case none, short, long }

    /// Where a queue's blocks really run.
    enum QueueTarget {
        /// A context's queue (or the main queue), from Swift.
        case queue(DispatchQueue)
        /// A libdispatch queue the app uses, seen by the preload library.
        case dispatch(RawDispatchObject)

        func submit(_ block: @escaping @Sendable () -> Void) {
            switch self {
            case .queue(let queue): queue.async(execute: block)
            case .dispatch(let queue): DispatchControl.submit(block, to: queue)
            }
        }
    }

    /// A timer of virtual time (`dispatch_after`): when its deadline passes is a choice.
    struct VirtualTimer {
        let id: Int
        let deadline: UInt64
        /// More than a second away when set: it passes only when nothing else can run.
        let isLong: Bool
        let queue: RawDispatchObject
        let block: @Sendable () -> Void
        let addresses: [UInt]
    }

    /// A `dispatch_group_notify` block waiting for its group to empty.
    struct PendingNotify {
        let queue: RawDispatchObject
        let block: @Sendable () -> Void
        let addresses: [UInt]
    }

    struct UnitState {
        var actor: String
        var status: UnitStatus = .ready
        /// When it last became ready: the FIFO order of the default choice.
        var since = 0
        /// Given its queue to unwind a deadlock (see `Grant.forced`).
        var forced = false
        /// The thread it runs on, for a hang's stack (StackSampler's handle).
        var thread: UInt = 0
        /// Its kernel thread id, whose state tells a wait in the kernel (0: not known yet).
        var tid: Int32 = 0
        /// Noticed blocked in the kernel with the turn: it waits for its turn again at
        /// its next point, without deciding (another unit holds the turn meanwhile).
        var outside = false
        /// The main thread waits in its run loop for real (nothing of the run can run):
        /// a wait in the kernel that is the scheduler's own, not an uncontrolled one.
        var realWait = false
        /// How often virtual time passed for it (a timeout, a sleep, a run loop's wait)
        /// while other work could run: after `earlyTimeLimit`, only when nothing else can,
        /// so a loop that waits with a timeout or polls with a sleep cannot livelock a
        /// strategy that keeps choosing it (PCT's fixed priorities).
        var earlyTime = 0
        /// The main-queue work the main thread's unit, waiting in its run loop, runs next
        /// (on its own thread, before it goes back into the app's code): XCTest's wait
        /// loop must not see its run loop return before the work the schedule started.
        var hosted: HostedWork?
        /// The unit whose `DispatchQueue.main.sync` (or main-queue `performAndWait`) the
        /// main thread serves now: the schedule gave that unit the main queue while the
        /// main thread waited in its run loop.
        var servesSyncOf: Int?
        /// Whether its wait's timeout passed (it was chosen as a timeout).
        var timedOut = false
        /// Where it waits to go on: what the step that resumes it says it did.
        var pendingPoint = SchedulingPoint.blockStart
        var pendingAddresses: [UInt] = []
        /// The task an async driver runs in (its threads change at each await).
        var task: Int?
        /// Set for a driver whose awaited block ran: choosing it resumes its task.
        var pendingResume: (@Sendable () -> Void)?
        let semaphore: DispatchSemaphore
    }

    /// What the main thread, waiting in its run loop, runs for the schedule.
    enum HostedWork {
        /// A main-queue block, as the new unit `unit`.
        case block(@Sendable () -> Void, ThreadUnit)
        /// The block of `waiter`'s `DispatchQueue.main.sync` (or main-queue
        /// `performAndWait`), as libdispatch runs it: on the main thread, while the waiter
        /// waits. `done` lets the waiter go on; `tid` and `thread` are the waiter's own.
        case sync(@Sendable () -> Void, waiter: ThreadUnit, done: DispatchSemaphore, tid: Int32, thread: UInt)
    }

    enum QueueItem {
        /// A `perform` block, with where it was enqueued.
        case block(@Sendable () -> Void, [UInt])
        case waiter(Int)
    }

    struct QueueState {
        let key: String
        let name: String
        let real: QueueTarget
        var items = FIFO<QueueItem>()
        var busy = false
        /// Who holds it while busy, for a deadlock's message.
        var holder: String?
        var since = 0
        /// The concurrent queue (by address) whose gate this logical queue is in: its block
        /// or `sync` keeps that queue's barriers.
        var gate: UInt?
        /// The serial queue (by address) whose one-at-a-time order this logical queue
        /// shares: the outermost serial queue of its target chain (a serial queue's own,
        /// when it targets none).
        var domain: UInt?
        /// It holds one block or one `sync` only (a concurrent queue's): it leaves its gate
        /// and its order when that finished.
        var transient = false

        /// The libdispatch queue it stands for when it is a serial queue's (it stays for the
        /// queue's next blocks); nil for a context's, the main queue's and a concurrent
        /// queue's block.
        var serialQueueAddress: UInt? {
            guard !transient, case .dispatch(let queue) = real else { return nil }
            return queue.address
        }

        mutating func append(_ item: QueueItem, _ sequence: inout Int) {
            items.append(item)
            if items.count == 1 { touch(&sequence) }
        }

        /// The queue may have become startable: it joins the FIFO order now.
        mutating func touch(_ sequence: inout Int) {
            guard !busy, !items.isEmpty else { return }
            sequence += 1
            since = sequence
        }
    }

    struct State {
        var mode = Mode.controlling
        var sequence = 0
        var nextUnit = 0
        /// By id, in the order they were made.
        var units = SortedTable<UnitState>()
        var running: Int?
        var queues = QueueTable()
        /// The logical queues of registered queues, by their `LogicalQueue.key`.
        var keysByRegistrant = SortedTable<String>()
        var privateQueues = 0
        var steps: [ControlledStep] = []
        var failure: ControlledRunFailure?
        var sawUncontrolled = false
        var finished = false
        /// Grows at every decision: a run whose count stands still is hung.
        var progress = 0
        /// The run's driver, once there is one.
        var driver: Int?
        /// The driver's task was resumed and its next thread has not come yet.
        var vacantDriver = false
        /// The work item the driver was adopted in, when a thread other than the main
        /// thread made the run's first call inside work submitted before the control was
        /// installed (a Swift Testing test's job): the driver ends with it.
        var driverWork: UInt?
        /// The run is waited for on the main thread, in its run loop (`waitForEnd`).
        var mainThreadWaits = false
        /// Told of each failure as it is recorded (a child of `ctxdebug explore` sends it on).
        var onFailure: (@Sendable (ControlledRunFailure) -> Void)?
        // Dispatch control (DispatchControl.swift).
        var timers: [VirtualTimer] = []
        var nextTimer = 0
        /// The `dispatch_group_notify` blocks waiting, by group.
        var notifies = SortedTable<[PendingNotify]>()
        /// The unit on the main thread (its driver), if any: main-queue blocks start only
        /// while it waits in its run loop, or after it parked in dispatchMain().
        var mainThreadUnit: Int?
        /// Whether some wait of the run touched a wait the scheduler does not model.
        var touchedUncontrolledWait = false
        /// Barriers, target queues, dispatch_apply, timer sources (ControlledScheduler+Primitives.swift).
        var primitives = ControlledScheduler.PrimitiveState()

        mutating func makeUnit(actor: String, scheduler: ControlledScheduler) -> ThreadUnit {
            let unit = ThreadUnit(id: nextUnit, actor: actor, scheduler: scheduler)
            nextUnit += 1
            units[unit.id] = UnitState(actor: actor, semaphore: unit.semaphore)
            return unit
        }

        /// The logical queue of a registered queue (a context's): "main" for every main
        /// one (they share the main queue), "q1", "q2"... for the others in first-use order.
        mutating func queueKey(for queue: LogicalQueue) -> String {
            if let key = keysByRegistrant[queue.key] { return key }
            let key: String
            if queue.isMain {
                key = "main"
            } else {
                privateQueues += 1
                key = "q" + String(privateQueues)
            }
            keysByRegistrant[queue.key] = key
            if queues[key] == nil {
                queues[key] = QueueState(key: key, name: queue.name, real: .queue(queue.queue))
            }
            return key
        }

        /// The logical queue of a libdispatch queue: "main" for the main queue, the same
        /// "qN" for every block of a serial queue, a new "qN" for each block of a
        /// concurrent one (which may start any of its blocks).
        mutating func queueKey(for queue: RawDispatchObject, concurrent: Bool, label: QueueLabel) -> String {
            if queue.address == DispatchControl.mainQueueAddress { return ensureMain() }
            if !concurrent, let key = queues.key(ofSerialQueue: queue.address) { return key }
            privateQueues += 1
            let key = "q" + String(privateQueues)
            // A concurrent queue's block starts on a thread of its own (its pool may be narrower
            // than the units parked in it); a serial queue's on the queue, as the app asked.
            let real = concurrent ? DispatchControl.overcommitQueue ?? queue : queue
            var state = QueueState(key: key, name: label.text, real: .dispatch(real))
            enterPrimitives(&state, queue: queue, concurrent: concurrent, label: label)
            queues[key] = state
            return key
        }

        mutating func ensureMain() -> String {
            if queues["main"] == nil {
                queues["main"] = QueueState(key: "main", name: "main queue", real: .queue(DispatchQueue.main))
            }
            return "main"
        }

        /// Whether the main queue's blocks can start: the main thread is no unit of the
        /// run, or it waits in its run loop.
        var mainQueueServed: Bool {
            guard let id = mainThreadUnit, let unit = units[id] else { return true }
            return unit.status == .spinning
        }

        mutating func append(_ item: QueueItem, to key: String) {
            queues[key]?.append(item, &sequence)
        }

        mutating func fail(_ failure: ControlledRunFailure) {
            guard self.failure == nil else { return }
            self.failure = failure
            onFailure?(failure)
        }

        /// Gives up control: every queued block goes to its real queue in order, and
        /// every parked unit goes on; from now on the runtime works as it does unexplored.
        mutating func release() -> [Handoff] {
            guard mode != .released else { return [] }
            mode = .released
            var handoffs: [Handoff] = []
            for key in queues.orderedKeys {
                guard let queue = queues[key] else { continue }
                for item in queue.items {
                    if case .block(let block, _) = item { handoffs.append(.dispatch(queue.real, block)) }
                }
                queues[key]?.items = FIFO()
            }
            for (id, unit) in units where unit.status != .running && unit.status != .done {
                units[id]?.status = .running
                if case .blocked = unit.status { units[id]?.timedOut = false }
                if let resume = unit.pendingResume {
                    units[id]?.pendingResume = nil
                    handoffs.append(.resumeTask(resume))
                } else if unit.status != .awaiting {
                    handoffs.append(.signal(unit.semaphore))
                }
            }
            vacantDriver = false
            for timer in timers { handoffs.append(.dispatch(.dispatch(timer.queue), timer.block)) }
            timers.removeAll()
            for (_, pending) in notifies {
                for notify in pending { handoffs.append(.dispatch(.dispatch(notify.queue), notify.block)) }
            }
            notifies = SortedTable()
            return handoffs
        }
    }

    /// What the thread that decided does once the lock is released.
    enum Handoff {
        /// Nothing: nobody to run (or control given up); the caller goes on.
        case none
        /// The caller itself was chosen: it goes on.
        case continueCaller
        /// Another parked unit goes on; the caller parks.
        case resume(DispatchSemaphore)
        /// A queued block starts on its real queue as a new unit; the caller parks.
        case start(QueueTarget, @Sendable () -> Void, ThreadUnit, String)
        /// A main-queue block starts on the main thread, which waits in its run loop (the
        /// host): the host wakes to run it, unless the host is the caller itself.
        /// (The block waits in the host's `hosted`; `runHostedBlocks` runs it.)
        case startHosted(DispatchSemaphore, hostID: Int)
        /// After control was given up: plain dispatch and wake-ups; the caller goes on.
        case dispatch(QueueTarget, @Sendable () -> Void)
        case signal(DispatchSemaphore)
        /// The driver's awaited block ran: its task resumes (on some thread); the caller parks.
        case resumeTask(@Sendable () -> Void)
        /// The caller came back from an uncontrolled wait while another unit holds the
        /// turn: it parks until a decision chooses it.
        case awaitTurn
        case all([Handoff])

        /// Done with the app's dispatch calls bypassing control: these are the scheduler's.
        func perform(_ scheduler: ControlledScheduler, caller: ThreadUnit? = nil) {
            DispatchBypass.run { performBypassed(scheduler, caller: caller) }
        }

        private func performBypassed(_ scheduler: ControlledScheduler, caller: ThreadUnit?) {
            switch self {
            case .none, .continueCaller, .awaitTurn: break
            case .resume(let semaphore), .signal(let semaphore): semaphore.signal()
            case .resumeTask(let resume): resume()
            case .start(let queue, let block, let unit, let key):
                ControlCost.submitting { queue.submit { scheduler.runBlock(block, as: unit, queue: key) } }
            case .startHosted(let host, let hostID):
                if caller?.id != hostID { host.signal() }
            case .dispatch(let queue, let block): queue.submit(block)
            case .all(let handoffs): for handoff in handoffs { handoff.performBypassed(scheduler, caller: caller) }
            }
        }

        /// Whether the unit that decided must wait for its turn.
        func parksCaller(_ unit: ThreadUnit) -> Bool {
            switch self {
            case .resume, .start, .resumeTask, .awaitTurn: true
            case .startHosted(_, let hostID): hostID != unit.id
            default: false
            }
        }
    }
}

/// A thread the scheduler controls, and its parking place.
///
/// `@unchecked Sendable`: all stored properties are immutable, and a semaphore is
/// thread-safe.
package final class ThreadUnit: @unchecked Sendable {
    let id: Int
    let actor: String
    package let scheduler: ControlledScheduler
    let semaphore: DispatchSemaphore

    /// The task this unit runs in, when it is an async driver: on a thread that a
    /// task of its own left behind (a pool thread), the unit is not the thread's.
    let task: Int?

    init(id: Int, actor: String, scheduler: ControlledScheduler) {
        self.id = id
        self.actor = actor
        self.scheduler = scheduler
        semaphore = DispatchSemaphore(value: 0)
        task = nil
    }

    /// The same unit again, for the thread that takes it over.
    init(id: Int, actor: String, semaphore: DispatchSemaphore, scheduler: ControlledScheduler, task: Int?) {
        self.id = id
        self.actor = actor
        self.scheduler = scheduler
        self.semaphore = semaphore
        self.task = task
    }

    /// The identity of the task running on this thread, if any.
    static var currentTask: Int? { withUnsafeCurrentTask { $0?.hashValue } }

    /// Waits for the baton (the scheduler's own wait: never a point of the schedule).
    func park() { ControlCost.exclude { DispatchBypass.run { semaphore.wait() } } }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in pointer.map(recordLeftByExitedThread) }
        return key
    }()

    /// The units whose threads exited with them in their slot (an async driver's pool
    /// thread that its task left), still retained. They are released later, by the next
    /// `setCurrent` on a live thread, never in the slot's destructor: it runs after
    /// libdispatch's own thread cleanup, and a last release there (a scheduler, its
    /// contexts and their dispatch queues) calls libdispatch again, which re-registers its
    /// thread state and frees its continuation cache a second time at the thread's end
    /// ("double free or corruption" in `_dispatch_cache_cleanup`).
    private static let leftByExitedThreads = LockedValue<[UInt]>([])
    private static let leftCount = Atomic<Int>(0)

    /// Called from the slot's destructor: only records the reference, allocating nothing
    /// beyond the list and releasing nothing.
    private static func recordLeftByExitedThread(_ pointer: UnsafeMutableRawPointer) {
        leftByExitedThreads.withLock { $0.append(UInt(bitPattern: pointer)) }
        leftCount.add(1, ordering: .releasing)
    }

    /// Releases, on this live thread, the units that exited threads left.
    @inline(never)
    private static func releaseUnitsOfExitedThreads() {
        let left = leftByExitedThreads.withLock { list -> [UInt] in
            defer { list.removeAll() }
            return list
        }
        leftCount.subtract(left.count, ordering: .relaxed)
        for bits in left { Unmanaged<ThreadUnit>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release() }
    }

    /// The unit in this thread's slot, whatever task runs (for a nested unit to restore).
    static var slot: ThreadUnit? {
        guard let raw = pthread_getspecific(key) else { return nil }
        return Unmanaged<ThreadUnit>.fromOpaque(raw).takeUnretainedValue()
    }

    /// The unit the calling thread runs as, if any.
    package static var current: ThreadUnit? {
        guard let raw = pthread_getspecific(key) else { return nil }
        let unit = Unmanaged<ThreadUnit>.fromOpaque(raw).takeUnretainedValue()
        if let task = unit.task, task != currentTask { return nil }
        return unit
    }

    static func setCurrent(_ unit: ThreadUnit?) {
        if let old = pthread_getspecific(key) { Unmanaged<ThreadUnit>.fromOpaque(old).release() }
        pthread_setspecific(key, unit.map { Unmanaged.passRetained($0).toOpaque() })
        if leftCount.load(ordering: .acquiring) > 0 { releaseUnitsOfExitedThreads() }
    }

    /// Runs `body` as `unit` on this thread: the main thread runs a main-queue
    /// `performAndWait` block for the unit that waits in `DispatchQueue.main.sync`.
    static func acting<T>(as unit: ThreadUnit?, _ body: () -> T) -> T {
        guard let unit else { return body() }
        let previous = current
        setCurrent(unit)
        defer { setCurrent(previous) }
        return body()
    }
}

/// A queue whose `removeFirst` is O(1): a logical queue may hold thousands of blocks.
struct FIFO<Element>: Sequence {
    private var storage: [Element] = []
    private var head = 0

    var isEmpty: Bool { head == storage.count }
    var count: Int { storage.count - head }
    var first: Element? { isEmpty ? nil : storage[head] }

    mutating func append(_ element: Element) { storage.append(element) }

    mutating func removeFirst() -> Element? {
        guard !isEmpty else { return nil }
        let element = storage[head]
        head += 1
        if head > 64 && head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    mutating func removeAll(where match: (Element) -> Bool) {
        storage = Array(storage[head...].filter { !match($0) })
        head = 0
    }

    func makeIterator() -> ArraySlice<Element>.Iterator { storage[head...].makeIterator() }
}

