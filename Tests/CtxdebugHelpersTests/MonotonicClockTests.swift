import CtxdebugHelpers
import Testing

@Suite struct MonotonicClockTests {
    @Test func itNeverGoesBack() {
        var last = MonotonicClock.now()
        for _ in 0..<10_000 {
            let now = MonotonicClock.now()
            #expect(now >= last)
            last = now
        }
    }

    /// The manual mode is for the rest of the process, so it runs in a child (an exit
    /// test): there it moves only when told, or by a fixed step per read.
    @Test func theManualClockMovesOnlyWhenTold() async {
        await #expect(processExitsWith: .success) {
            MonotonicClock.useManualClock()
            let start = MonotonicClock.now()
            precondition(MonotonicClock.now() == start, "a manual clock without a step stands still")
            MonotonicClock.advance(by: 500_000_000)
            precondition(MonotonicClock.now() == start + 500_000_000, "advance(by:) moves it exactly")
            MonotonicClock.useManualClock(advancingEachReadBy: 20_000_000)
            let first = MonotonicClock.now()
            precondition(MonotonicClock.now() &- first == 20_000_000, "each read moves it by the step")
        }
    }
}
