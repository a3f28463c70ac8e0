import CConcurrencyDebug
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `ctxdebug_thread_id()` is the kernel's thread ID (what reports and the journal
/// print, and how the checker tells the main thread), read once per thread.
@Suite struct ThreadIDTests {
    /// The kernel's ID of the calling thread: /proc/thread-self is PID/task/TID.
    static func kernelThreadID() -> UInt64? {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self") else { return nil }
        return target.split(separator: "/").last.flatMap { UInt64($0) }
    }

    @Test func itIsEachThreadsOwnKernelID() throws {
        let here = try #require(Self.kernelThreadID())
        #expect(ctxdebug_thread_id() == here)
        #expect(ctxdebug_thread_id() == here, "the second read (cached) is the same")
        let seen = LockedPair()
        let done = DispatchSemaphore(value: 0)
        Thread {
            seen.set(ctxdebug_thread_id(), Self.kernelThreadID() ?? 0)
            done.signal()
        }.start()
        done.wait()
        let (cached, kernel) = seen.get()
        #expect(cached == kernel)
        #expect(cached != here)
    }

    /// A forked child's one thread has a new ID (its process ID), though it inherits
    /// the parent's thread-local cache: the fork handler clears it.
    @Test func aForkedChildGetsItsOwnID() throws {
        let parent = ctxdebug_thread_id()
        let pid = fork()
        if pid == 0 {
            // Only async-signal-safe calls here.
            let id = ctxdebug_thread_id()
            _exit(id == UInt64(getpid()) && id != parent ? 0 : 1)
        }
        try #require(pid > 0)
        var status: Int32 = 0
        #expect(waitpid(pid, &status, 0) == pid)
        #expect(status == 0, "the child's ctxdebug_thread_id() was its parent's thread's, not its own")
    }
}

private final class LockedPair: @unchecked Sendable {
    private let lock = NSLock()
    private var value: (UInt64, UInt64) = (0, 0)
    func set(_ a: UInt64, _ b: UInt64) { lock.withLock { value = (a, b) } }
    func get() -> (UInt64, UInt64) { lock.withLock { value } }
}
