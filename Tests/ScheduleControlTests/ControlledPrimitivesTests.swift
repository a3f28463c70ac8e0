@testable import ScheduleControl
import ExploreModel
import Synchronization
import Testing

/// The models of libdispatch's barriers and timer sources in the controlled scheduler
/// (ControlledScheduler+Primitives.swift, docs/explore.md "What is controlled"), on the
/// scheduler's state alone: the queues and sources are addresses the model only compares
/// (no preload library is loaded here). Their app-style cases, explored through the
/// library, are in Tests/ExploreAppCorpus (`barrier-cache-dirty-read`,
/// `timer-debounce-before-save`, ExploreAppCorpusTests).
@Suite struct ControlledPrimitivesTests {
    /// Always the FIFO choice.
    static let fifo: ControlledScheduler.Chooser = { .run($0.defaultIndex) }

    static func object(_ address: UInt) -> RawDispatchObject { RawDispatchObject(pointer: UnsafeMutableRawPointer(bitPattern: address)!) }

    /// Submits one block to the concurrent queue `queue` (a barrier when asked); returns its logical queue.
    static func submit(_ s: inout ControlledScheduler.State, to queue: RawDispatchObject, label: String, barrier: Bool = false) -> String {
        let key = s.queueKey(for: queue, concurrent: true, label: .made(label))
        s.append(.block({}, []), to: key)
        if barrier { s.markBarrier(key) }
        return key
    }

    // libdispatch's rule (dispatch_barrier_async(3)): "the barrier block will not run until
    // all blocks submitted to the queue earlier have completed, and any blocks submitted
    // to the queue after a barrier block will not run until the barrier block has completed";
    // on a global concurrent queue, a barrier block behaves like one submitted with dispatch_async.
    @Test("a barrier on a concurrent queue waits for every earlier block, and holds back every later one until it ended")
    func barrierWaitsAndHoldsBack() {
        let scheduler = ControlledScheduler(chooser: Self.fifo)
        var s = ControlledScheduler.State()
        let cache = Self.object(0x1000)
        let earlier = Self.submit(&s, to: cache, label: "cache")
        let barrier = Self.submit(&s, to: cache, label: "cache", barrier: true)
        let later = Self.submit(&s, to: cache, label: "cache")
        #expect(scheduler.enabledCandidates(s).map(\.key) == [earlier])

        s.queues[earlier]?.busy = true  // the earlier block runs ...
        s.queues[earlier]?.items = .init()
        #expect(scheduler.enabledCandidates(s).isEmpty)
        s.queues[earlier]?.busy = false  // ... and ends
        s.blockEnded(earlier)
        #expect(scheduler.enabledCandidates(s).map(\.key) == [barrier])

        s.queues[barrier]?.busy = true
        s.queues[barrier]?.items = .init()
        #expect(scheduler.enabledCandidates(s).isEmpty, "nothing starts beside the barrier")
        s.queues[barrier]?.busy = false
        s.blockEnded(barrier)
        #expect(scheduler.enabledCandidates(s).map(\.key) == [later])
    }

    @Test("blocks of a concurrent queue with no barrier may start in any order, and a global queue's barrier is a plain block")
    func withoutBarriersAnyBlockMayStart() {
        let scheduler = ControlledScheduler(chooser: Self.fifo)
        var s = ControlledScheduler.State()
        let mine = Self.object(0x1000)
        let global = Self.object(0x2000)
        let a = Self.submit(&s, to: mine, label: "cache")
        let b = Self.submit(&s, to: mine, label: "cache")
        let c = Self.submit(&s, to: global, label: "com.apple.root.default-qos")
        let d = Self.submit(&s, to: global, label: "com.apple.root.default-qos", barrier: true)
        let e = Self.submit(&s, to: global, label: "com.apple.root.default-qos")
        #expect(Set(scheduler.enabledCandidates(s).map(\.key)) == [a, b, c, d, e])
    }

    static let fires = Atomic<Int>(0)

    @Test("a timer source is a timer of virtual time while it is active: resumed, suspended, fired, repeated, cancelled")
    func timerSourceLivesOnVirtualTime() {
        let scheduler = ControlledScheduler(chooser: Self.fifo)
        let source = Self.object(0x3000)
        let queue = Self.object(0x4000)
        func deadlines() -> [UInt64] { scheduler.state.withLock { $0.timers.map(\.deadline) } }
        /// The timer's deadline passes: its block goes on the queue; returns that block.
        func fire() -> @Sendable () -> Void {
            scheduler.state.withLock { s in
                s.fireTimer(s.timers[0].id)
                let key = s.queueKey(for: queue, concurrent: false, label: .made("queue"))
                guard case .block(let block, _)? = s.queues[key]?.items.removeFirst() else { fatalError("no block") }
                return block
            }
        }
        #expect(scheduler.timerHandler(source, queue: queue, DispatchWork(context: nil, function: { _ in Self.fires.add(1, ordering: .relaxed) })))
        #expect(scheduler.timerSet(source, queue: queue, start: 1_000, interval: 500, long: false))
        #expect(deadlines() == [], "a source is made inactive")
        scheduler.timerResume(source, queue: queue, change: 1)
        #expect(deadlines() == [1_000])
        scheduler.timerResume(source, queue: queue, change: 0)
        #expect(deadlines() == [], "suspended")
        scheduler.timerResume(source, queue: queue, change: 1)
        #expect(deadlines() == [1_000])

        let first = fire()
        #expect(deadlines() == [], "the next fire is set once the handler ran")
        first()
        #expect(Self.fires.load(ordering: .relaxed) == 1)
        #expect(deadlines() == [1_500], "repeating: one interval after the last deadline")

        let second = fire()
        scheduler.timerCancel(source, queue: queue)
        second()
        #expect(Self.fires.load(ordering: .relaxed) == 1, "a fire whose handler had not started when cancelled is dropped")
        #expect(deadlines() == [])
    }
}

/// Target queues: the one-at-a-time order a serial target gives every queue that targets it.
@Suite struct ControlledTargetQueueTests {
    static let ledger = ControlledPrimitivesTests.object(0x1000)  // serial
    static let engineA = ControlledPrimitivesTests.object(0x2000)  // serial, targets ledger
    static let engineB = ControlledPrimitivesTests.object(0x3000)  // serial, targets a queue that targets ledger
    static let middle = ControlledPrimitivesTests.object(0x4000)  // concurrent, targets ledger
    static let alone = ControlledPrimitivesTests.object(0x5000)  // serial, targets a global queue
    static let global = ControlledPrimitivesTests.object(0x6000)  // concurrent root queue

    static func target(_ queue: RawDispatchObject) -> RawDispatchObject? {
        [engineA.address: ledger, engineB.address: middle, middle.address: ledger, alone.address: global][queue.address]
    }

    static func domain(_ queue: RawDispatchObject, concurrent: Bool = false) -> UInt? {
        DispatchControl.serialDomain(
            of: queue, concurrent: concurrent, target: target, isConcurrent: { $0 == middle || $0 == global })
    }

    // dispatch_set_target_queue(3): "blocks submitted to a serial queue whose target queue
    // is another serial queue will not be invoked concurrently with blocks submitted to the
    // target queue or to any other queue with that same target queue".
    @Test("queues whose target chains reach one serial queue share it as their order; others keep their own")
    func theOutermostSerialTargetIsTheOrder() {
        #expect(Self.domain(Self.ledger) == Self.ledger.address)
        #expect(Self.domain(Self.engineA) == Self.ledger.address)
        #expect(Self.domain(Self.engineB) == Self.ledger.address, "through a concurrent queue that targets it")
        #expect(Self.domain(Self.middle, concurrent: true) == Self.ledger.address, "a concurrent queue that targets a serial one")
        #expect(Self.domain(Self.alone) == Self.alone.address)
        #expect(Self.domain(Self.global, concurrent: true) == nil)
    }

    @Test("no block of a queue starts while a block of another queue of the same serial order runs")
    func sharedOrderHoldsBack() {
        let scheduler = ControlledScheduler(chooser: ControlledPrimitivesTests.fifo)
        var s = ControlledScheduler.State()
        let a = s.queueKey(for: Self.engineA, concurrent: false, label: .made("sync-a"))
        let b = s.queueKey(for: Self.engineB, concurrent: false, label: .made("sync-b"))
        let other = s.queueKey(for: Self.alone, concurrent: false, label: .made("alone"))
        for key in [a, b, other] { s.append(.block({}, []), to: key) }
        // What enterPrimitives finds through the library's target table, which is not loaded here.
        for (key, queue) in [(a, Self.engineA), (b, Self.engineB), (other, Self.alone)] {
            s.queues[key]?.domain = Self.domain(queue)!
        }
        #expect(Set(scheduler.enabledCandidates(s).map(\.key)) == [a, b, other])
        s.queues[a]?.busy = true
        s.queues[a]?.items = .init()
        #expect(scheduler.enabledCandidates(s).map(\.key) == [other], "b waits for a: they share the ledger's order")
        s.queues[a]?.busy = false
        #expect(Set(scheduler.enabledCandidates(s).map(\.key)) == [b, other])
    }
}
