import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one monotonic clock of this package (`CLOCK_MONOTONIC`, the clock
/// `DispatchTime.now()` reads on Linux), in nanoseconds: the runtime's time-based
/// diagnostics (`main-queue-io`, `main-queue-wait`, `missing-merge`'s grace) and the
/// replay's frame clock and monitor read it. For this package's modules (`package`).
///
/// In tests it can be a manual clock that moves only when told to, so that no test
/// depends on how fast the machine is (swift-clocks' `TestClock` idea). The check
/// for that costs one relaxed load.
package enum MonotonicClock {
    private static let manual = Atomic<Bool>(false)
    private static let manualNow = Atomic<UInt64>(0)
    private static let stepPerRead = Atomic<UInt64>(0)

    /// Nanoseconds since an arbitrary point (the boot, on Linux).
    @inline(__always)
    package static func now() -> UInt64 {
        if _fastPath(!manual.load(ordering: .relaxed)) { return systemNow() }
        let step = stepPerRead.load(ordering: .relaxed)
        return manualNow.add(step, ordering: .relaxed).newValue
    }

    @inline(__always)
    private static func systemNow() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
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
