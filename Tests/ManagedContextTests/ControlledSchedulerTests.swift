import ConcurrencyDebug
import Dispatch
import Foundation
@testable import ManagedContext
@testable import ScheduleControl
import Synchronization
import Testing
import TestSupport
import CtxdebugHelpers
import ExploreModel

/// The controlled scheduler under `ctxdebug explore` (docs/explore.md, "The rules it
/// keeps"): one unit at a time, FIFO per queue, `performAndWait`'s semantics kept, and
/// the same choices giving the same run.
@Suite struct ControlledSchedulerTests {
    /// Runs `body` as the driver of one controlled run on a fresh thread and waits for
    /// the run to end (a generous guard against a hang, not a speed threshold).
    static func run(_ chooser: @escaping ControlledScheduler.Chooser, _ body: @escaping @Sendable () -> Void) -> ControlledScheduler {
        let scheduler = ControlledScheduler(chooser: chooser)
        let thread = Thread { scheduler.runDriver(body) }
        thread.start()
        let ended = scheduler.finished.wait(timeout: .now() + 60)
        #expect(ended == .success, "the controlled run ended")
        return scheduler
    }

    static let fifo: ControlledScheduler.Chooser = { .run($0.defaultIndex) }

    static func seeded(_ seed: UInt64) -> ControlledScheduler.Chooser {
        let generator = LockedValue(SplitMix(seed: seed))
        return { q in .run(Int(generator.withLock { $0.next() } % UInt64(q.enabled.count))) }
    }

    static func replaying(_ choices: [String]) -> ControlledScheduler.Chooser {
        { q in
            guard q.step < choices.count else { return .run(q.defaultIndex) }
            guard let i = q.enabled.firstIndex(of: choices[q.step]) else {
                return .diverged("\(choices[q.step]) is not enabled (enabled: \(q.enabled.joined(separator: ", ")))")
            }
            return .run(i)
        }
    }

    /// Three blocks on each of two queues, and the driver: the events in the order they ran.
    static func interleaving(_ log: LockedValue<[String]>, stack: TestStack) {
        let a = stack.privateContext("a"), b = stack.privateContext("b")
        for i in 0..<3 {
            a.perform { log.withLock { $0.append("a\(i)") } }
            b.perform { log.withLock { $0.append("b\(i)") } }
            log.withLock { $0.append("d\(i)") }
        }
    }

    @Test("a queue's blocks run in FIFO order in every schedule, one unit at a time")
    func fifoPerQueue() throws {
        for seed in UInt64(1)...20 {
            let stack = try TestStack()
            let log = LockedValue<[String]>([])
            let running = Atomic<Int>(0)
            let overlap = Atomic<Bool>(false)
            _ = Self.run(Self.seeded(seed)) {
                let a = stack.privateContext("a"), b = stack.privateContext("b")
                for i in 0..<4 {
                    for (name, c) in [("a", a), ("b", b)] {
                        c.perform {
                            if running.add(1, ordering: .sequentiallyConsistent).newValue > 1 { overlap.store(true, ordering: .relaxed) }
                            log.withLock { $0.append("\(name)\(i)") }
                            running.subtract(1, ordering: .sequentiallyConsistent)
                        }
                    }
                }
            }
            let events = log.withLock { $0 }
            #expect(events.filter { $0.hasPrefix("a") } == ["a0", "a1", "a2", "a3"], "seed \(seed)")
            #expect(events.filter { $0.hasPrefix("b") } == ["b0", "b1", "b2", "b3"], "seed \(seed)")
            let overlapped = overlap.load(ordering: .relaxed)
            #expect(!overlapped, "two blocks ran at once (seed \(seed))")
        }
    }

    @Test("the same choices give the same run; different seeds give different runs")
    func replayIsExact() throws {
        var orders: Set<[String]> = []
        for seed in UInt64(1)...12 {
            let log = LockedValue<[String]>([])
            let stack = try TestStack()
            let first = Self.run(Self.seeded(seed)) { Self.interleaving(log, stack: stack) }
            let events = log.withLock { $0 }
            orders.insert(events)
            let choices = first.steps.map(\.chosenActor)
            let again = LockedValue<[String]>([])
            let stack2 = try TestStack()
            let replay = Self.run(Self.replaying(choices)) { Self.interleaving(again, stack: stack2) }
            #expect(again.withLock { $0 } == events, "seed \(seed) replayed")
            #expect(replay.failure == nil)
            #expect(replay.steps.map(\.chosenActor) == choices)
        }
        #expect(orders.count > 3, "seeds explore different interleavings: \(orders.count)")
    }

    @Test("the FIFO schedule runs each unit until it blocks, then the earliest enabled")
    func defaultScheduleIsRunToBlock() throws {
        let log = LockedValue<[String]>([])
        let stack = try TestStack()
        let run = Self.run(Self.fifo) { Self.interleaving(log, stack: stack) }
        // The driver keeps the baton through its enqueues; the blocks run at its drain, in
        // the order their queues became ready.
        #expect(log.withLock { $0 } == ["d0", "d1", "d2", "a0", "b0", "a1", "b1", "a2", "b2"])
        #expect(run.steps.allSatisfy { !$0.isDeviation })
    }

    @Test("performAndWait waits its turn behind the blocks already queued (dispatch_sync is FIFO)")
    func performAndWaitIsFIFO() throws {
        for seed in UInt64(1)...10 {
            let stack = try TestStack()
            let log = LockedValue<[String]>([])
            _ = Self.run(Self.seeded(seed)) {
                let a = stack.privateContext("a")
                a.perform { log.withLock { $0.append("block") } }
                a.performAndWait { log.withLock { $0.append("wait") } }
                log.withLock { $0.append("after") }
            }
            #expect(log.withLock { $0 } == ["block", "wait", "after"], "seed \(seed)")
        }
    }

    @Test("nested performAndWait re-enters the queues its chain holds, as in Core Data")
    func nestedPerformAndWaitReenters() throws {
        for seed in UInt64(1)...10 {
            let stack = try TestStack()
            let log = LockedValue<[String]>([])
            _ = Self.run(Self.seeded(seed)) {
                let a = stack.privateContext("a"), b = stack.privateContext("b")
                a.perform {
                    b.performAndWait {
                        a.performAndWait { log.withLock { $0.append("inner") } }
                    }
                    log.withLock { $0.append("outer") }
                }
            }
            #expect(log.withLock { $0 } == ["inner", "outer"], "seed \(seed)")
        }
    }

    @Test("a performAndWait deadlock between the main queue and a background queue is found, and the run unwinds")
    func deadlockIsFoundAndUnwinds() throws {
        var found = 0
        for seed in UInt64(1)...30 {
            let stack = try TestStack()
            let run = Self.run(Self.seeded(seed)) {
                let main = ManagedObjectContext(concurrencyType: .mainQueue)
                main.persistentStoreCoordinator = stack.coordinator
                let background = stack.privateContext("background")
                main.perform { background.performAndWait {} }
                background.perform { main.performAndWait {} }
            }
            if let failure = run.failure {
                #expect(failure.kind == .deadlock)
                #expect(failure.message.contains("waits in performAndWait"), "\(failure.message)")
                #expect(Self.reportLine(failure).hasPrefix("deadlock: no unit can run."), "\"deadlock:\" once: \(failure.message)")
                found += 1
            }
        }
        #expect(found > 0, "some schedule of 30 deadlocks")
    }

    @Test("a runtime call from a thread the scheduler does not control stops the run with a message")
    func uncontrolledWorkIsNamed() throws {
        let stack = try TestStack()
        let run = Self.run(Self.fifo) {
            let a = stack.privateContext("a")
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                a.perform {}
                done.signal()
            }
            done.wait()
        }
        let failure = try #require(run.failure)
        #expect(failure.kind == .uncontrolled)
        #expect(failure.message.contains("perform-enqueue"))
        #expect(failure.message.contains("context.perform"))
        #expect(!run.isReproducible)
    }

    @Test("a replayed schedule that no longer fits says where it diverged, and the run ends")
    func divergenceIsReported() throws {
        let stack = try TestStack()
        let run = Self.run(Self.replaying(["q7"])) {
            let a = stack.privateContext("a")
            a.perform {}
        }
        let failure = try #require(run.failure)
        #expect(failure.kind == .diverged)
        // Said once: it read "diverged: diverged at step 0: …" (and three times when the
        // chooser's own reason began with it, as a portfolio's replay's does).
        let line = Self.reportLine(failure)
        #expect(line == "diverged: the replayed schedule diverged at step 0: q7 is not enabled (enabled: driver, q1)", "\(line)")
    }

    @Test("a chooser's reason that names the step already is not prefixed again")
    func divergenceReasonIsNotRepeated() throws {
        let stack = try TestStack()
        let run = Self.run({ q in .diverged("diverged at step \(q.step): the schedule runs q7 there, but only driver could run") }) {
            let a = stack.privateContext("a")
            a.perform {}
        }
        let failure = try #require(run.failure)
        #expect(Self.reportLine(failure) == "diverged: the replayed schedule diverged at step 0: the schedule runs q7 there, but only driver could run")
    }

    /// A report writes a failure as "KIND: MESSAGE" (ExploreReports.swift,
    /// `ExplorationReport.Failure.text()`), so a message must not start with its kind
    /// again: it read "failure: hang: hang: …".
    static func reportLine(_ failure: ControlledRunFailure) -> String { "\(failure.kind.rawValue): \(failure.message)" }

    @Test("a modelled wait nothing can end is a hang whose report line says \"hang:\" once")
    func modelledWaitHangSaysItsKindOnce() throws {
        let scheduler = ControlledScheduler(chooser: Self.fifo)
        let thread = Thread {
            scheduler.runDriver {
                // A semaphore wait the preload library would hand over (DispatchControl's
                // `wait` hook): no other unit exists to signal it.
                _ = scheduler.modelledWait("semaphore:0x10", group: false, timeout: .none)
            }
        }
        thread.start()
        #expect(scheduler.finished.wait(timeout: .now() + 60) == .success, "the controlled run ended")
        let failure = try #require(scheduler.failure)
        #expect(failure.kind == .hang)
        let line = Self.reportLine(failure)
        #expect(line.hasPrefix("hang: no unit can run: driver waits on a semaphore (0x10)"), "\(line)")
        #expect(line.components(separatedBy: "hang:").count == 2, "\"hang:\" once: \(line)")
    }

    @Test("a unit stuck outside the scheduler is a hang whose report line says \"hang:\" once")
    func watchdogHangSaysItsKindOnce() throws {
        let scheduler = ControlledScheduler(chooser: Self.fifo)
        let entered = DispatchSemaphore(value: 0), gate = DispatchSemaphore(value: 0)
        let thread = Thread {
            scheduler.runDriver {
                entered.signal()
                gate.wait()  // not a point of the run: the watchdog's case
            }
        }
        thread.start()
        entered.wait()
        // What `waitForEnd`'s watchdog calls once no decision was taken for the hang timeout.
        scheduler.declareHang(after: 2)
        gate.signal()
        #expect(scheduler.finished.wait(timeout: .now() + 60) == .success, "the controlled run ended")
        let failure = try #require(scheduler.failure)
        #expect(failure.kind == .hang)
        let line = Self.reportLine(failure)
        #expect(line.hasPrefix("hang: driver ran for 2.0 s without reaching a scheduling point"), "\(line)")
        #expect(line.components(separatedBy: "hang:").count == 2, "\"hang:\" once: \(line)")
    }

    @Test("a wait's key is the object's address in hex, as String(_:radix: 16) writes it")
    func waitKeysAreHex() {
        for value: UInt in [0, 1, 9, 10, 0xF, 0x10, 0xFF, 0x100, 0xDEAD_BEEF, 0x7F12_3456_7890, UInt.max] {
            #expect(DispatchControl.hexKey("group:0x", value) == "group:0x" + String(value, radix: 16))
        }
    }

    @Test("contexts made outside the run are not controlled")
    func outsideContextsAreLeftAlone() throws {
        let stack = try TestStack()
        let outside = stack.privateContext("outside")
        let ran = Atomic<Bool>(false)
        let run = Self.run(Self.fifo) {
            outside.performAndWait { ran.store(true, ordering: .relaxed) }
        }
        let didRun = ran.load(ordering: .relaxed)
        #expect(didRun)
        #expect(run.failure == nil)
        #expect(run.steps.isEmpty)
    }

    @Test("performAndWait on a private context runs the block on the caller's thread, as dispatch_sync does")
    func performAndWaitRunsOnTheCallersThread() throws {
        for seed in UInt64(1)...5 {
            let stack = try TestStack()
            let same = LockedValue<[Bool]>([])
            _ = Self.run(Self.seeded(seed)) {
                let a = stack.privateContext("a"), b = stack.privateContext("b")
                let caller = pthread_self()
                a.performAndWait { same.withLock { $0.append(pthread_equal(pthread_self(), caller) != 0) } }
                b.perform {
                    let inBlock = pthread_self()
                    a.performAndWait { same.withLock { $0.append(pthread_equal(pthread_self(), inBlock) != 0) } }
                }
            }
            #expect(same.withLock { $0 } == [true, true], "seed \(seed)")
        }
    }

    @Test("a main-queue context's blocks run on the real main queue, and its performAndWait from main-queue code runs inline")
    func mainQueueBlocksRunOnTheMainQueue() throws {
        for seed in UInt64(1)...5 {
            let stack = try TestStack()
            let seen = LockedValue<[String]>([])
            _ = Self.run(Self.seeded(seed)) {
                let main = ManagedObjectContext(concurrencyType: .mainQueue)
                main.persistentStoreCoordinator = stack.coordinator
                let background = stack.privateContext("background")
                main.perform {
                    seen.withLock { $0.append(ConcurrencyDebug.isOnMainQueue ? "perform: main queue" : "perform: elsewhere") }
                    main.performAndWait { seen.withLock { $0.append("inline") } }
                }
                background.perform {
                    main.performAndWait {
                        seen.withLock { $0.append(ConcurrencyDebug.isOnMainQueue ? "wait: main queue" : "wait: elsewhere") }
                    }
                }
            }
            let events = seen.withLock { $0 }
            #expect(events.contains("perform: main queue") && events.contains("wait: main queue") && events.contains("inline"), "seed \(seed): \(events)")
            #expect(!events.contains { $0.hasSuffix("elsewhere") }, "seed \(seed): \(events)")
        }
    }
}

/// `--granularity fine` adds fault fires and refreshes to the coarse points.
@Suite struct ControlledGranularityTests {
    static func points(_ granularity: ExploreGranularity) throws -> [SchedulingPoint] {
        let stack = try TestStack()
        let seeded = stack.privateContext("seed")
        let id = try seeded.performAndWait { () throws -> ManagedObjectID in
            let sample = Sample(context: seeded)
            sample.name = "saved"
            try seeded.save()
            return sample.objectID
        }
        let scheduler = ControlledScheduler(granularity: granularity, chooser: ControlledSchedulerTests.fifo)
        let thread = Thread {
            scheduler.runDriver {
                let reader = stack.privateContext("reader")
                reader.performAndWait {
                    let sample = reader.object(with: id) as! Sample
                    _ = sample.name  // fires the fault
                    reader.refresh(sample, mergeChanges: false)
                }
            }
        }
        thread.start()
        #expect(scheduler.finished.wait(timeout: .now() + 60) == .success)
        return scheduler.steps.map(\.point)
    }

    @Test func fineAddsFaultsAndRefreshes() throws {
        let coarse = try Self.points(.coarse), fine = try Self.points(.fine)
        #expect(!coarse.contains(.fault) && !coarse.contains(.refresh), "\(coarse)")
        #expect(fine.contains(.fault) && fine.contains(.refresh), "\(fine)")
    }
}

/// The async `perform` under a controlled run: the driver's task gives up its turn
/// while it awaits, and the thread it resumes on goes on as the driver.
@Suite struct ControlledAsyncPerformTests {
    @Test("an awaited perform block runs in its turn, and the task goes on as the driver on whatever thread it resumes", arguments: UInt64(1)...8)
    func awaitedPerform(seed: UInt64) async throws {
        let stack = try TestStack()
        let scheduler = ControlledScheduler(adoptsDriver: true, chooser: ControlledSchedulerTests.seeded(seed))
        let log = LockedValue<[String]>([])
        try await Exploration.$taskScheduler.withValue(scheduler) {
            let a = stack.privateContext("a"), b = stack.privateContext("b")
            enqueue(on: b) { log.withLock { $0.append("b") } }
            let value = try await a.perform { () throws -> Int in
                log.withLock { $0.append("a") }
                return 42
            }
            #expect(value == 42)
            log.withLock { $0.append("after a") }
            await Task.yield()  // any await may move the task to another thread
            b.performAndWait { log.withLock { $0.append("b waited") } }
        }
        scheduler.finish()
        let events = log.withLock { $0 }
        #expect(Set(events) == ["a", "b", "after a", "b waited"], "\(events)")
        #expect(events.firstIndex(of: "a")! < events.firstIndex(of: "after a")!)
        #expect(events.last == "b waited")
        #expect(scheduler.failure == nil, "\(String(describing: scheduler.failure))")
        #expect(scheduler.steps.contains { $0.actor == "driver" && $0.point == .performAndWait }, "the resumed task still drives: \(scheduler.steps.map { "\($0.actor) \($0.point.rawValue) -> \($0.chosenActor)" })")
    }
}

/// A thread that exits with a unit in its slot: an async driver's pool thread, which its
/// task left when it moved on. The slot's destructor runs after libdispatch's own thread
/// cleanup; a last release there (the unit, its scheduler, their contexts' dispatch
/// queues) calls libdispatch again, which frees its continuation cache a second time: the
/// random "double free" of long test runs, seen in a core dump as `_dispatch_cache_cleanup`
/// under `__nptl_deallocate_tsd` on an exiting dispatch worker.
@Suite struct ThreadUnitSlotTests {
    /// In a process of its own (an exit test): another test's `setCurrent` would release
    /// the unit early.
    @Test("a thread's exit releases no unit: a live thread's next use of the slot does")
    func anExitingThreadReleasesNoUnit() async {
        await #expect(processExitsWith: .success) {
            weak var weakUnit: ThreadUnit?
            weak var weakScheduler: ControlledScheduler?
            do {
                let scheduler = ControlledScheduler(chooser: ControlledSchedulerTests.seeded(1))
                let unit = ThreadUnit(id: 1, actor: "left behind", scheduler: scheduler)
                weakUnit = unit
                weakScheduler = scheduler
                // pthread_join returns after the thread's key destructors have run.
                runOnNewThreadAndJoin { ThreadUnit.setCurrent(unit) }
            }
            precondition(weakUnit != nil && weakScheduler != nil, "released by the exiting thread's slot destructor")
            ThreadUnit.setCurrent(nil)
            precondition(weakUnit == nil && weakScheduler == nil, "not released by a live thread's setCurrent")
        }
    }
}

/// The synchronous `perform`, which an async function would otherwise resolve to the async one.
private func enqueue(on context: ManagedObjectContext, _ block: @escaping @Sendable () -> Void) {
    context.perform(block)
}

@Suite struct ExplorationSiteTests {
    @Test("A step's site: the file's name and line and the function; a frame with no file names its function alone")
    func siteText() {
        #expect(ExplorationSite.text(StackFrame(address: 0, function: "App.export()", file: "/app/Sources/App/Export.swift", line: 41)) == "Export.swift:41 in App.export()")
        #expect(ExplorationSite.text(StackFrame(address: 0, function: "XCTest.WaiterManager.startManaging(_:timeout:)", file: nil, line: nil)) == "in XCTest.WaiterManager.startManaging(_:timeout:)")
        #expect(ExplorationSite.text(StackFrame(address: 0, function: nil, file: nil, line: nil)) == "?")
    }
}
