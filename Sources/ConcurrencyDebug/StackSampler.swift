import CConcurrencyDebug

/// Samples the stack of another thread (the one running main-queue work) with a
/// signal whose handler calls `unw_backtrace` (Sources/CConcurrencyDebug/StackSampler.c). For the
/// replay's hang watchdog; `package`, not part of the checker's API.
package enum StackSampler {
    /// Installs the sampling signal's handler, once per process.
    package static func install() { _ = ctxdebug_sampler_install() }

    /// The calling thread, as `sample(_:)` takes it. Also unblocks the sampling
    /// signal on this thread (libdispatch workers block signals).
    package static var currentThread: UInt { ctxdebug_sampler_self() }

    /// The calling thread's kernel id (gettid, kept per thread), for reading its state in
    /// /proc (ScheduleControl's uncontrolled waits).
    package static var currentKernelThreadID: Int32 { Int32(truncatingIfNeeded: ctxdebug_thread_id()) }

    /// How long a one-shot report (a deadlock, an explored run's hang) waits for the
    /// thread it describes: the thread must be scheduled to answer, which on a busy
    /// machine can take far longer than a periodic sampler's 50 ms.
    package static let reportTimeoutMs: Int32 = 2_000

    /// Up to 256 return addresses of `thread`, innermost first; empty when it did
    /// not answer within `timeoutMs` or is gone.
    package static func sample(_ thread: UInt, timeoutMs: Int32 = 50) -> [UInt] {
        withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: 256) { buffer in
            let n = Int(ctxdebug_sampler_sample(thread, buffer.baseAddress!, 256, timeoutMs))
            guard n > 0 else { return [] }
            return (0..<n).map { UInt(bitPattern: buffer[$0]) }
        }
    }
}
