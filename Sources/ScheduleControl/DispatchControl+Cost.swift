import CtxdebugHelpers
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The dispatch control's own cost per scheduling point, for docs/benchmarks.md: with
/// `CTXDEBUG_DISPATCH_COST=FILE` in a process run by `ctxdebug explore`, each hook call
/// the scheduler took is timed, less the time its thread waited for the turn (parked)
/// and the socket's system calls to the parent (the question's send, the wait for the
/// answer) and this measurement's own reads of the CPU clock. Each line of FILE (appended at exit) is one hook call, in nanoseconds: that
/// duration; the part of it spent in the real `dispatch_async_f` that starts a block the
/// schedule chose (work libdispatch does for the app's `async` in a plain run too,
/// deferred to the block's turn); the part spent writing the question and reading the
/// answer (the protocol's encoding, this process's work); and the thread's CPU time in
/// the call, less the app's blocks it ran and the real `dispatch_async_f` (the waits'
/// system calls are counted: they are the control's). The wall-clock figures also hold
/// the time the thread was runnable but off the CPU, which on a loaded machine is most
/// of them (the thread it woke runs first); the CPU time is the control's own work.
/// Off (the default), a hook pays one load of a constant.
enum ControlCost {
    /// Read with getenv: `ProcessInfo.environment` copies the whole environment, tens of
    /// microseconds at a process's first hook.
    static let path: String? = getenv("CTXDEBUG_DISPATCH_COST").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    static let isOn = path != nil
    private static let durations = LockedValue<[(UInt64, UInt64, UInt64, UInt64)]>([])
    private static let installed: Void = {
        atexit {
            guard let path = ControlCost.path else { return }
            let text = ControlCost.durations.withLock { $0.map { "\($0.0) \($0.1) \($0.2) \($0.3)" }.joined(separator: "\n") }
            guard !text.isEmpty, let handle = FileHandle(forWritingAtPath: path) ?? {
                FileManager.default.createFile(atPath: path, contents: nil)
                return FileHandle(forWritingAtPath: path)
            }() else { return }
            handle.seekToEndOfFile()
            handle.write(Data((text + "\n").utf8))
        }
    }()

    /// A running total of nanoseconds for each thread, kept in a pthread key's slot.
    private struct ThreadTotal: Sendable {
        private let key: pthread_key_t

        init() {
            var key = pthread_key_t()
            pthread_key_create(&key, nil)
            self.key = key
        }

        var value: UInt64 {
            get { UInt64(UInt(bitPattern: pthread_getspecific(key))) }
            nonmutating set { pthread_setspecific(key, UnsafeRawPointer(bitPattern: UInt(newValue))) }
        }
    }

    /// What this thread spent waiting (parked, or for the parent's answer) so far.
    private static let excluded = ThreadTotal()
    /// What this thread spent in real `dispatch_async_f` calls starting chosen blocks.
    private static let submitted = ThreadTotal()
    /// What this thread spent encoding questions and decoding answers, round trips aside.
    private static let coding = ThreadTotal()
    /// The CPU time of the app's work this thread ran inside hooks (hosted blocks, the
    /// real `dispatch_async_f`), so far.
    private static let appCPU = ThreadTotal()

    /// This thread's CPU time.
    private static func threadCPU() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Runs a hook, and records its duration when the scheduler took the call.
    @inline(__always)
    static func measure(_ hook: () -> Int32) -> Int32 {
        guard isOn else { return hook() }
        _ = installed
        let before = excluded.value
        let submittedBefore = submitted.value
        let codingBefore = coding.value
        let appBefore = appCPU.value
        let cpuStart = threadCPU()
        let start = MonotonicClock.now()
        let taken = hook()
        let total = MonotonicClock.now() - start
        let cpu = threadCPU() - cpuStart
        let waited = excluded.value - before
        let real = submitted.value - submittedBefore
        let coded = coding.value - codingBefore
        let app = appCPU.value - appBefore
        if taken != 0 { durations.withLock { $0.append((total > waited ? total - waited : 0, real, coded, cpu > app ? cpu - app : 0)) } }
        return taken
    }

    /// Runs a wait that is not the control's own cost (the baton, the parent's answer).
    @inline(__always)
    static func exclude<T>(_ wait: () -> T) -> T {
        guard isOn else { return wait() }
        let start = MonotonicClock.now()
        defer { excluded.value += MonotonicClock.now() - start }
        return wait()
    }

    /// Runs the app's own work inside a hook (main-queue blocks the main thread runs in
    /// its run loop): neither its time nor its CPU is the control's.
    @inline(__always)
    static func appWork<T>(_ work: () -> T) -> T {
        guard isOn else { return work() }
        // The CPU clock's reads (a system call each) are inside the excluded time: they are
        // this measurement's cost, not the control's.
        return exclude {
            let cpuStart = threadCPU()
            defer { appCPU.value += threadCPU() - cpuStart }
            return work()
        }
    }

    /// Runs a question to the parent: its time, less the round trip (`exclude`d inside),
    /// is the protocol's encoding, timed apart.
    @inline(__always)
    static func asking<T>(_ ask: () -> T) -> T {
        guard isOn else { return ask() }
        let before = excluded.value
        let start = MonotonicClock.now()
        defer {
            let total = MonotonicClock.now() - start
            let waited = excluded.value - before
            coding.value += total > waited ? total - waited : 0
        }
        return ask()
    }

    /// Runs the real `dispatch_async_f` that starts a chosen block, timed apart.
    @inline(__always)
    static func submitting(_ submit: () -> Void) {
        guard isOn else { return submit() }
        let start = MonotonicClock.now()
        let cpuStart = threadCPU()
        submit()
        appCPU.value += threadCPU() - cpuStart
        submitted.value += MonotonicClock.now() - start  // with the CPU clock's reads: the measurement's own cost
    }
}
