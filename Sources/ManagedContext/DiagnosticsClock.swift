import ConcurrencyDebug
import Synchronization

/// The clock the time-based diagnostics (`main-queue-io`, `main-queue-wait`) read:
/// the monotonic clock, or, in tests, a manual one that moves only when told to, so
/// that no test depends on how fast the machine is (swift-clocks' `TestClock` idea).
package enum DiagnosticsClock {
    private static let manual = Atomic<Bool>(false)
    private static let manualNow = Atomic<UInt64>(0)
    private static let stepPerRead = Atomic<UInt64>(0)

    /// Nanoseconds on the diagnostics' clock.
    static func now() -> UInt64 {
        if _fastPath(!manual.load(ordering: .relaxed)) { return MonotonicClock.now() }
        let step = stepPerRead.load(ordering: .relaxed)
        return manualNow.add(step, ordering: .relaxed).newValue
    }

    /// Replaces the clock with a manual one for the rest of the process. Each read
    /// moves it on by `step` nanoseconds (0: only `advance(by:)` moves it), so an
    /// operation timed by two reads takes exactly `step`.
    package static func useManualClock(advancingEachReadBy step: UInt64 = 0) {
        stepPerRead.store(step, ordering: .relaxed)
        manualNow.store(1_000_000_000, ordering: .relaxed)
        manual.store(true, ordering: .relaxed)
    }

    /// Moves the manual clock on.
    package static func advance(by nanoseconds: UInt64) {
        manualNow.add(nanoseconds, ordering: .relaxed)
    }
}
