@testable import ScheduleControl
import ExploreModel
import Testing

/// Explore's own limit (`FailureKind.limit`, docs/explore.md "What counts as a failure"):
/// a long deadline (XCTest's watchdog of `timeout` + 0.25 s, a test's timeout) passes in
/// virtual time only when nothing else can run, and a unit polling with short sleeps is
/// pushed back behind such deadlines after three early turns (`earlyTimeLimit`). Then
/// both wait for time, and the schedule may let the watchdog pass first, though in a
/// real run the poller's few milliseconds of sleeps end long before a timeout of
/// seconds: the expectation it fulfils is held back past the virtual timeout. The
/// scheduler says so, as its limit, instead of letting XCTest fail the test.
@Suite struct ExploreLimitTests {
    /// The state of an XCTest `wait(for:timeout:)` on the main thread (the driver spins
    /// its run loop) with a watchdog timer set more than a second ahead, and, if asked, a
    /// background unit in a sleep, both past their early turns.
    static func waitingTest(sleeper: Bool, watchdogIsLong: Bool = true, scheduler: ControlledScheduler)
        -> (ControlledScheduler.State, ThreadUnit)
    {
        var s = ControlledScheduler.State()
        let main = s.makeUnit(actor: "driver", scheduler: scheduler)
        s.driver = main.id
        s.mainThreadUnit = main.id
        s.units[main.id]?.status = .spinning
        s.units[main.id]?.earlyTime = ControlledScheduler.earlyTimeLimit
        if sleeper {
            let poller = s.makeUnit(actor: "q1", scheduler: scheduler)
            s.units[poller.id]?.status = .sleeping
            s.units[poller.id]?.earlyTime = ControlledScheduler.earlyTimeLimit
        }
        s.timers.append(ControlledScheduler.VirtualTimer(
            id: 0, deadline: 10_250_000_000, isLong: watchdogIsLong, queue: ControlledPrimitivesTests.object(0x7000), block: {},
            addresses: []))
        s.nextTimer = 1
        return (s, main)
    }

    /// Picks the watchdog's timer whenever it may pass: the schedule that times out.
    static let watchdogFirst: ControlledScheduler.Chooser = { decision in
        .run(decision.enabled.firstIndex(of: "t0") ?? decision.defaultIndex)
    }

    @Test("a watchdog's deadline that would pass while a unit still sleeps is explore's limit, not the test's timeout")
    func watchdogPastASleeperIsTheLimit() {
        let scheduler = ControlledScheduler(chooser: Self.watchdogFirst)
        var (s, main) = Self.waitingTest(sleeper: true, scheduler: scheduler)
        #expect(scheduler.enabledCandidates(s).map(\.key) == ["driver", "q1", "t0"], "all three wait for time")
        _ = scheduler.decide(&s, from: main, point: .runLoop, addresses: [])
        #expect(s.failure?.kind == .limit)
        #expect(s.failure?.message.contains("q1 (in a sleep)") == true, "\(s.failure?.message ?? "")")
        #expect(s.failure?.message.contains("timer t0") == true)
        #expect(s.steps.isEmpty, "the deadline did not pass: no step of the schedule has it")
        #expect(s.mode == .released, "control is given up: the rest of the run says nothing")
    }

    @Test("with nothing else pending, the watchdog passes: a test that waits for work nobody does times out as in a real run")
    func watchdogAloneTimesOut() {
        let scheduler = ControlledScheduler(chooser: Self.watchdogFirst)
        var (s, main) = Self.waitingTest(sleeper: false, scheduler: scheduler)
        _ = scheduler.decide(&s, from: main, point: .runLoop, addresses: [])
        #expect(s.failure == nil)
        #expect(s.timers.isEmpty, "the watchdog fired: its block is on its queue")
        #expect(s.steps.first?.chosenPoint == .timerFire)
    }

    @Test("a short deadline may pass before a sleeper goes on: virtual time's choice, not a limit")
    func shortDeadlineIsAChoice() {
        let scheduler = ControlledScheduler(chooser: Self.watchdogFirst)
        var (s, main) = Self.waitingTest(sleeper: true, watchdogIsLong: false, scheduler: scheduler)
        _ = scheduler.decide(&s, from: main, point: .runLoop, addresses: [])
        #expect(s.failure == nil)
        #expect(s.steps.first?.chosenPoint == .timerFire)
    }

    @Test("a long wait timeout that would pass while another unit waits a short timeout is explore's limit; a kernel wait is not counted")
    func longTimeoutPastAShortWaitIsTheLimit() {
        let scheduler = ControlledScheduler(chooser: { decision in .run(decision.enabled.firstIndex(of: "driver") ?? 0) })
        var s = ControlledScheduler.State()
        let waiter = s.makeUnit(actor: "driver", scheduler: scheduler)
        s.driver = waiter.id
        s.units[waiter.id]?.status = .blocked("semaphore 0x1", timeout: .long)
        let other = s.makeUnit(actor: "q1", scheduler: scheduler)
        s.units[other.id]?.status = .blocked("group 0x2", timeout: .short)
        s.units[other.id]?.earlyTime = ControlledScheduler.earlyTimeLimit
        let candidates = scheduler.enabledCandidates(s)
        #expect(candidates.map(\.key) == ["driver", "q1"])
        let limit = scheduler.limitReached(by: candidates[0], s)
        #expect(limit?.contains("q1 (in a wait with a timeout of a second or less)") == true, "\(limit ?? "nil")")

        // A thread flagged in the kernel may be there for a moment only: no evidence of work
        // a real run would do first, so the timeout passes as before.
        s.units[other.id]?.status = .outside
        #expect(scheduler.limitReached(by: scheduler.enabledCandidates(s)[0], s) == nil)
    }
}
