import CtxdebugHelpers
import Dispatch
import ExploreModel
import Foundation
@testable import ScheduleControl
import Synchronization
import Testing

/// The schedule control's one door for a runtime (ScheduleDoor.swift, docs/architecture.md),
/// with no runtime at all: queues registered as `LogicalQueue`s, keyed by their key, never
/// by what owns them. ManagedContext's contexts are one such registrant
/// (ManagedContextTests' ControlledSchedulerTests explore them through this door).
@Suite struct ScheduleDoorTests {
    /// Runs `body` as the driver of one controlled run on a fresh thread, and waits for the
    /// run to end (a generous guard against a hang, not a speed threshold).
    static func run(seed: UInt64, _ body: @escaping @Sendable () -> Void) -> ControlledScheduler {
        let generator = LockedValue(SplitMix(seed: seed))
        let scheduler = ControlledScheduler { q in .run(Int(generator.withLock { $0.next() } % UInt64(q.enabled.count))) }
        let thread = Thread { scheduler.runDriver(body) }
        thread.start()
        #expect(scheduler.finished.wait(timeout: .now() + 60) == .success, "the controlled run ended")
        return scheduler
    }

    static func queue(_ key: Int, _ name: String) -> LogicalQueue {
        LogicalQueue(key: key, name: name, queue: DispatchQueue(label: "door-test.\(name)"), isMain: false)
    }

    @Test("each logical queue runs its blocks in FIFO order, one unit at a time; across queues the strategy chooses")
    func logicalQueuesAreFIFO() {
        var orders = Set<[String]>()
        for seed in UInt64(1)...12 {
            let log = LockedValue<[String]>([])
            let running = Atomic<Int>(0)
            let overlap = Atomic<Bool>(false)
            let scheduler = Self.run(seed: seed) {
                let door = ScheduleDoor.forNewQueue()
                precondition(door != nil, "the driver's thread is a unit of the run")
                let a = Self.queue(1, "a"), b = Self.queue(2, "b")
                for i in 0..<3 {
                    for (name, queue) in [("a", a), ("b", b)] {
                        door!.enqueue({
                            if running.add(1, ordering: .sequentiallyConsistent).newValue > 1 { overlap.store(true, ordering: .relaxed) }
                            log.withLock { $0.append("\(name)\(i)") }
                            running.subtract(1, ordering: .sequentiallyConsistent)
                        }, on: queue, describedAs: "queue \(name)")
                    }
                }
            }
            let events = log.withLock { $0 }
            #expect(events.filter { $0.hasPrefix("a") } == ["a0", "a1", "a2"], "seed \(seed)")
            #expect(events.filter { $0.hasPrefix("b") } == ["b0", "b1", "b2"], "seed \(seed)")
            let overlapped = overlap.load(ordering: .relaxed)
            #expect(!overlapped, "two blocks ran at once (seed \(seed))")
            #expect(scheduler.failure == nil, "\(String(describing: scheduler.failure))")
            // The steps name the registrants' queues by their names, as the schedule file does.
            #expect(scheduler.steps.contains { $0.point == .performEnqueue && $0.contextName == "a" })
            orders.insert(events)
        }
        #expect(orders.count > 1, "the seeds chose different interleavings: \(orders)")
    }

    @Test("the same key is the same logical queue, whatever its name now; a main one is \"main\"")
    func keyedByKey() {
        let log = LockedValue<[String]>([])
        let scheduler = Self.run(seed: 3) {
            let door = ScheduleDoor.forNewQueue()!
            let queue = DispatchQueue(label: "door-test.renamed")
            door.enqueue({ log.withLock { $0.append("first") } }, on: LogicalQueue(key: 7, name: "before", queue: queue, isMain: false), describedAs: "")
            door.enqueue({ log.withLock { $0.append("second") } }, on: LogicalQueue(key: 7, name: "after", queue: queue, isMain: false), describedAs: "")
        }
        #expect(log.withLock { $0 } == ["first", "second"], "one FIFO queue")
        let actors = Set(scheduler.steps.flatMap(\.enabled)).subtracting(["driver"])
        #expect(actors == ["q1"], "one logical queue: \(actors)")
        #expect(scheduler.state.withLock { $0.queueKey(for: LogicalQueue(key: 9, name: "m", queue: .main, isMain: true)) } == "main")
    }

    @Test("a waiter gets its queue in turn, behind the blocks queued before it")
    func acquireWaitsItsTurn() {
        let log = LockedValue<[String]>([])
        _ = Self.run(seed: 5) {
            let door = ScheduleDoor.forNewQueue()!
            let a = Self.queue(1, "a")
            door.enqueue({ log.withLock { $0.append("block") } }, on: a, describedAs: "a")
            let grant = door.acquire(a, describedAs: "a")
            log.withLock { $0.append(grant == .granted ? "waiter granted" : "waiter not granted") }
            door.relinquish(a, grant)
        }
        #expect(log.withLock { $0 } == ["block", "waiter granted"])
    }

    @Test("outside a run there is no door: a queue registered there is not controlled")
    func noRunNoDoor() {
        #expect(ScheduleDoor.forNewQueue() == nil)
    }
}
