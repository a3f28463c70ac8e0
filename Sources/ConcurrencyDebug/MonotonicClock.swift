import CConcurrencyDebug

/// The monotonic clock (`CLOCK_MONOTONIC`) in nanoseconds, for this package's
/// modules: one C call, no Foundation.
package enum MonotonicClock {
    @inline(__always)
    package static func now() -> UInt64 { ctxdebug_now_ns() }
}
