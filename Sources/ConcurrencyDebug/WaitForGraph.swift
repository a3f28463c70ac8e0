import CUnwind
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
public enum WaitForGraph {
    struct Edge {
        let target: QueueIdentity
        let stack: [UInt]
        let thread: UInt64
    }

    private static let edges = Mutex<[UInt: Edge]>([:])

    /// Records that the code running now is about to block until `target`'s queue
    /// runs a block for it. If that closes a cycle, reports a `deadlock` violation
    /// with both stacks: the trap handler stops the process; in report or log mode
    /// the process ends with the report, since going on would hang forever.
    ///
    /// Returns the waiter to pass to `endWait`, or nil when nothing was recorded.
    public static func beginWait(for target: QueueIdentity, operation: String) -> QueueIdentity? {
        guard ctxdebug_access_mode() > 0 else { return nil }
        var waiter = ConcurrencyDebug.currentOwner
        if waiter == .none && ConcurrencyDebug.isOnMainQueue { waiter = .main }
        guard waiter != .none, waiter != target else { return nil }
        let stack = StackTrace.capture()
        let cycle: [(QueueIdentity, Edge)]? = edges.withLock { edges in
            // Follow who `target` is waiting for; reaching `waiter` closes a cycle.
            var chain: [(QueueIdentity, Edge)] = []
            var at = target
            while let edge = edges[at.rawValue], chain.count < 64 {
                chain.append((at, edge))
                if edge.target == waiter { return chain }
                at = edge.target
            }
            edges[waiter.rawValue] = Edge(target: target, stack: stack, thread: ctxdebug_thread_id())
            return nil
        }
        if let cycle { reportDeadlock(waiter: waiter, target: target, operation: operation, cycle: cycle) }
        return waiter
    }

    /// The wait that `beginWait` recorded is over.
    public static func endWait(_ waiter: QueueIdentity?) {
        guard let waiter else { return }
        _ = edges.withLock { $0.removeValue(forKey: waiter.rawValue) }
    }

    private static func reportDeadlock(waiter: QueueIdentity, target: QueueIdentity, operation: String, cycle: [(QueueIdentity, Edge)]) {
        var path = ["queue '\(waiter.label)' waits for queue '\(target.label)' (\(operation), this stack)"]
        var others = ""
        for (queue, edge) in cycle {
            path.append("queue '\(queue.label)' waits for queue '\(edge.target.label)' (thread \(edge.thread))")
            let frames = StackTrace.symbolicate(edge.stack).prefix(16)
            others += "\n  stack of the wait on queue '\(queue.label)':\n" + frames.map { "    " + $0 }.joined(separator: "\n")
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
