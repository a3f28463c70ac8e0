import CConcurrencyDebug
import CtxdebugHelpers
import Foundation

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
    struct Edge: Sendable {
        let target: QueueIdentity
        let stack: [UInt]
        let thread: UInt64
        /// Which `beginWait` recorded it: only that wait may take it back.
        let serial: UInt64
    }

    /// The edges, and the serial the next wait's edges get.
    private struct Graph {
        var edges: [UInt: Edge] = [:]
        var nextSerial: UInt64 = 1
    }

    private static let graph = LockedValue(Graph())

    /// A waiter's edge as it was before a wait replaced it.
    fileprivate struct Replaced: Sendable {
        let waiter: UInt
        let previous: Edge?
    }

    /// One step of a cycle: `queue` waits along `edge`.
    fileprivate struct Step {
        let queue: QueueIdentity
        let edge: Edge
    }

    /// The edges one `beginWait` recorded, to be taken back by `endWait`. (Named
    /// structs, not tuples: an array of tuples looks its type up in the runtime's
    /// locked metadata cache on every wait.)
    public struct Wait: Sendable {
        fileprivate let replaced: [Replaced]
        fileprivate let serial: UInt64
    }

    /// Records that the call chain running now is about to block until `target`'s
    /// queue runs a block for it: every queue the chain holds (its perform blocks,
    /// and the main queue for main-queue code) now waits for `target`. If `target`
    /// is, directly or through other waits, waiting for one of those queues, the
    /// chains can never proceed: reports a `deadlock` violation with both stacks.
    /// The trap handler stops the process; in report or log mode the process ends
    /// with the report, since going on would hang forever.
    ///
    /// Returns the wait to pass to `endWait`, or nil when nothing was recorded.
    /// `operation` is read only for a report: every cross-queue `performAndWait` passes here.
    public static func beginWait(for target: QueueIdentity, operation: @autoclosure () -> String) -> Wait? {
        guard ctxdebug_access_mode() >= Int32(CTXDEBUG_ACCESS_CHECK) else { return nil }
        // A chain holds a few queues: an array, not a set.
        var waiters: [UInt] = []
        func add(_ queue: UInt) {
            if queue != target.rawValue && !waiters.contains(queue) { waiters.append(queue) }
        }
        for queue in HeldQueues.current().queues { add(queue) }
        let owner = ConcurrencyDebug.currentOwner
        if owner != .none { add(owner.rawValue) }
        if owner == .none && ConcurrencyDebug.isOnMainQueue { add(QueueIdentity.main.rawValue) }
        guard !waiters.isEmpty else { return nil }
        let stack = StackTrace.capture()
        let thread = ctxdebug_thread_id()
        var replaced: [Replaced] = []
        var cycle: [Step] = []
        var serial: UInt64 = 0
        let closer: QueueIdentity? = graph.withLock { graph in
            // Follow who `target` is waiting for; reaching one of `waiters` closes a cycle.
            var at = target
            while let edge = graph.edges[at.rawValue], cycle.count < 64 {
                cycle.append(Step(queue: at, edge: edge))
                if waiters.contains(edge.target.rawValue) { return edge.target }
                at = edge.target
            }
            serial = graph.nextSerial
            graph.nextSerial += 1
            for waiter in waiters {
                replaced.append(Replaced(waiter: waiter, previous: graph.edges[waiter]))
                graph.edges[waiter] = Edge(target: target, stack: stack, thread: thread, serial: serial)
            }
            return nil
        }
        if let closer { reportDeadlock(waiter: closer, target: target, operation: operation(), cycle: cycle) }
        return Wait(replaced: replaced, serial: serial)
    }

    /// True while `queue`'s chain is recorded as waiting for another queue. For tests
    /// that must order a wait before the next step without sleeping.
    package static func isWaiting(_ queue: QueueIdentity) -> Bool {
        graph.withLock { $0.edges[queue.rawValue] != nil }
    }

    /// The wait that `beginWait` recorded is served: the queue it waited for has
    /// started running the waiter's block. Call it first thing in that block. From
    /// then on nothing is waiting: the block runs for the waiting chain (inheriting
    /// its queues, so a wait inside it records its own edges for all of them), and the
    /// waiting thread only has to wake. Its edges end here, not when it wakes: by then
    /// the queue may have started its next block, whose wait must not see them.
    public static func served(_ wait: Wait?) {
        guard let wait else { return }
        takeBack(wait)
    }

    /// The wait that `beginWait` recorded is over (a no-op once `served` took it back).
    public static func endWait(_ wait: Wait?) {
        guard let wait else { return }
        takeBack(wait)
    }

    /// Restores the edges `wait` replaced, each only while it is still `wait`'s own.
    private static func takeBack(_ wait: Wait) {
        graph.withLock { graph in
            for r in wait.replaced where graph.edges[r.waiter]?.serial == wait.serial {
                graph.edges[r.waiter] = r.previous
            }
        }
    }

    private static func reportDeadlock(waiter: QueueIdentity, target: QueueIdentity, operation: String, cycle: [Step]) {
        var path = ["queue '\(waiter.label)' waits for queue '\(target.label)' (\(operation), this stack)"]
        var others = ""
        for step in cycle {
            let (queue, edge) = (step.queue, step.edge)
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
