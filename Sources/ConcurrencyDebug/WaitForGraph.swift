import CConcurrencyDebug
import CtxdebugHelpers
import Foundation
import Synchronization

extension ViolationKind {
    /// Queues waiting on each other synchronously: a deadlock.
    public static let deadlock = ViolationKind("deadlock")
}

/// Who is blocked waiting for which queue, to find `performAndWait` chains that
/// close a cycle (A waits on B while B waits on A) before they hang forever.
///
/// Used only when checking is on, and only on synchronous cross-queue waits, so it
/// costs nothing on the per-access hot path.
@_spi(Runtime) public enum WaitForGraph {
    /// One `beginWait`'s record, to be ended by `served` or `endWait` (whichever
    /// comes first; the other finds it ended).
    public struct Wait: @unchecked Sendable {  // a pointer to a record that is never freed, and an integer
        fileprivate let record: OpaquePointer
        fileprivate let serial: UInt64
    }

    /// Records that the call chain running now is about to block until `target`'s
    /// queue runs a block for it: every queue the chain holds (its perform blocks,
    /// and the main queue for main-queue code) now waits for `target`. If `target`
    /// is, directly or through other waits, waiting for one of those queues, the
    /// chains can never proceed: reports a `deadlock` violation with the stacks of
    /// every thread in the cycle. The trap handler stops the process; in report or
    /// log mode the process ends with the report, since going on would hang forever.
    ///
    /// The wait is published in the thread's own record without a lock
    /// (Sources/CConcurrencyDebug/WaitRecords.c), and the cycle is looked for only
    /// when another wait is in progress, so a wait with nobody beside it costs a few
    /// atomic operations. The stacks of the other threads are sampled when a cycle
    /// is found (they are blocked in it), not captured at every wait.
    ///
    /// Returns the wait to pass to `served` and `endWait`, or nil when nothing was
    /// recorded. `operation` is read only for a report.
    @inline(__always)
    public static func beginWait(for target: QueueIdentity, operation: @autoclosure () -> String, callerOnMainQueue: Bool? = nil) -> Wait? {
        guard ctxdebug_access_mode() >= Int32(CTXDEBUG_ACCESS_CHECK) else { return nil }
        return record(target, callerOnMainQueue: callerOnMainQueue, operation: operation)
    }

    private static func record(_ target: QueueIdentity, callerOnMainQueue: Bool?, operation: () -> String) -> Wait? {
        let owner = ConcurrencyDebug.currentOwner
        // Main-queue code outside a perform block holds the main queue without a
        // perform block to say so.
        let onMain = owner == .none && (callerOnMainQueue ?? ConcurrencyDebug.isOnMainQueue)
        let extra = onMain ? QueueIdentity.main.rawValue : owner != target ? owner.rawValue : 0
        var others = 0
        let serial = ctxdebug_wait_begin(target.rawValue, extra, &others)
        guard serial != 0, let record = ctxdebug_wait_current() else { return nil }
        let wait = Wait(record: record, serial: serial)
        if others > 0 { lookForCycle(wait, target: target, operation: operation) }
        return wait
    }

    /// The slow path: another wait is in progress, so this one may close a cycle.
    @inline(never)
    private static func lookForCycle(_ wait: Wait, target: QueueIdentity, operation: () -> String) {
        // On the stack: with many threads waiting at once, every wait comes here.
        let cycle: [ctxdebug_wait_step]? = withUnsafeTemporaryAllocation(of: ctxdebug_wait_step.self, capacity: 64) { steps in
            let n = Int(ctxdebug_wait_find_cycle(wait.serial, steps.baseAddress!, 64))
            return n > 0 ? Array(steps.prefix(n)) : nil
        }
        guard let cycle, reported.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        reportDeadlock(target: target, operation: operation(), cycle: cycle)
    }

    /// One report per process: every thread of a cycle may find it.
    private static let reported = Atomic<Bool>(false)

    /// True while some chain that holds `queue` is recorded as waiting for another
    /// queue. For tests that must order a wait before the next step without sleeping.
    package static func isWaiting(_ queue: QueueIdentity) -> Bool {
        ctxdebug_wait_is_held_by_waiter(queue.rawValue) != 0
    }

    /// How many thread records the graph holds: one per thread waiting at once, at
    /// most, since an exited thread's record goes to the next new one. For tests.
    package static var recordCount: Int { Int(ctxdebug_wait_record_count()) }

    /// The wait that `beginWait` recorded is served: the queue it waited for has
    /// started running the waiter's block. Call it first thing in that block. From
    /// then on nothing is waiting: the block runs for the waiting chain (inheriting
    /// its queues, so a wait inside it records its own), and the waiting thread only
    /// has to wake. The wait ends here, not when the thread wakes: by then the queue
    /// may have started its next block, whose wait must not see it.
    @inline(__always)
    public static func served(_ wait: Wait?) {
        guard let wait else { return }
        ctxdebug_wait_end(wait.record, wait.serial)
    }

    /// The wait that `beginWait` recorded is over (a no-op once `served` ended it).
    @inline(__always)
    public static func endWait(_ wait: Wait?) {
        guard let wait else { return }
        ctxdebug_wait_end(wait.record, wait.serial)
    }

    private static func reportDeadlock(target: QueueIdentity, operation: String, cycle: [ctxdebug_wait_step]) {
        StackSampler.install()
        var path = ["this thread waits for queue '\(target.label)' (\(operation), this stack)"]
        var others = ""
        for step in cycle {
            let queue = QueueIdentity(rawValue: step.queue), waitsFor = QueueIdentity(rawValue: step.target)
            path.append("queue '\(queue.label)' waits for queue '\(waitsFor.label)' (thread \(step.thread_id))")
            // The thread is blocked in the cycle: its stack now is the stack of its wait.
            let timeout = StackSampler.reportTimeoutMs
            let frames = StackTrace.symbolicate(StackSampler.sample(step.sampler_thread, timeoutMs: timeout)).prefix(24)
            let shown = frames.isEmpty ? ["    (the thread did not answer the sampling signal within \(timeout) ms: under ThreadSanitizer, which holds signals back from a thread blocked in a system call, it cannot)"] : frames.map { "    " + $0 }
            others += "\n  stack of the wait on queue '\(queue.label)' (thread \(step.thread_id)):\n" + shown.joined(separator: "\n")
        }
        let headline = "BUG DETECTED: deadlock: " + path.joined(separator: "; ") + "; so neither can ever run." + others
        ConcurrencyDebug.reportViolation(
            kind: .deadlock,
            description: AccessDescription(
                operation: operation, contextName: nil, ownerQueueLabel: target.label,
                fixHint: "never wait synchronously in both directions: use perform { } (asynchronous) on one side, or hand objectIDs across instead of waiting"),
            message: headline)
        // Report and log modes go on after a report, but this wait would never end.
        FileHandle.standardError.write(Data("ctxdebug: ending the process: the deadlock above would hang it forever.\n".utf8))
        exit(ConcurrencyDebug.configuration.exitCode)
    }
}
