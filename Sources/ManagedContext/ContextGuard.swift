@_spi(Runtime) import ConcurrencyDebug
import CtxdebugHelpers
import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Keeps a context's bookkeeping whole when a program goes on after a wrong-queue
/// access (report and log modes): its change sets, registry and objects' values are
/// never touched by two threads at once, though the user's own data may still race.
///
/// Until the context sees a violation, nothing here runs: the access check's fast
/// path does not even look at it. The first violating access guards the context: it
/// sets `guarded`, switches the process's checks to their out-of-line path
/// (`ConcurrencyDebug.beginGuarding()`), and waits until the context's queue has
/// finished the block it may be running, so that no owner operation that began before
/// the flag still runs unlocked. From then on every operation on the context, the
/// violator's and the owner's alike, runs under `lock`. The lock is recursive (an
/// operation calls others), and a notification an operation posts while it holds the
/// lock waits until the outermost operation leaves it, so observers never run under it.
///
/// The wait for the queue is bounded (`drainTimeout`): the queue may itself be blocked
/// waiting for the violator (main-queue code in `group.wait()`, or a context touched
/// from the main thread outside any dispatch work item), and then nothing on it runs.
final class ContextGuard: Sendable {
    /// How long a violator waits for the owner's queue to finish its block, once per
    /// context.
    static let drainTimeout: DispatchTimeInterval = .seconds(2)
    static let drainTimeoutDescription = "2 s"

    private let queue: DispatchQueue
    private let guarded = Atomic<Bool>(false)
    private let drained = Atomic<Bool>(false)
    /// The thread (`pthread_self`) that holds `lock`, or 0.
    private let holder = Atomic<UInt>(0)
    private let lock = LockedValue(())
    /// Notifications posted by the lock's holder, posted when it leaves the lock.
    private let deferred = LockedValue<[DeferredNotification]>([])

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    var isGuarded: Bool { guarded.load(ordering: .acquiring) }

    /// Runs an operation the access check did not let through its fast path: a
    /// violation the program goes on from, or an owner's operation while the process
    /// guards some context.
    func run<R, E: Error>(_ verdict: ConcurrencyDebug.GuardVerdict, _ body: () throws(E) -> R) throws(E) -> R {
        switch verdict {
        case .unguarded:
            return try body()
        case .owner:
            return try isGuarded ? locked(body) : body()
        case .violation:
            if !holdsLock { guardAndDrain() }
            return try locked(body)
        }
    }

    /// An owner's operation that is not checked (the runtime's own, inside a perform
    /// block): under the lock once the context is guarded.
    @inline(__always)
    func confined<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        if _fastPath(!isGuarded) { return try body() }
        return try locked(body)
    }

    /// Posts now, or, when this thread holds the lock, when it leaves it.
    func post(_ name: Notification.Name, object: AnyObject, userInfo: [String: Any]? = nil) {
        let notification = DeferredNotification(name: name, object: object, userInfo: userInfo)
        if holdsLock {
            deferred.withLock { $0.append(notification) }
        } else {
            notification.post()
        }
    }

    private var holdsLock: Bool { holder.load(ordering: .relaxed) == Self.currentThread }

    private static var currentThread: UInt { UInt(pthread_self()) }

    private func guardAndDrain() {
        if !guarded.load(ordering: .acquiring) {
            guarded.store(true, ordering: .releasing)
            ConcurrencyDebug.beginGuarding()
        }
        guard !drained.load(ordering: .acquiring) else { return }
        // Every owner operation from here on sees the flag; one already running on the
        // owner's queue ends before the queue runs this.
        let done = DispatchSemaphore(value: 0)
        queue.async { done.signal() }
        let waited = done.wait(timeout: .now() + Self.drainTimeout)
        if waited == .timedOut, !drained.load(ordering: .acquiring) {
            FileHandle.standardError.write(Data(
                "ctxdebug: note: after a wrong-queue access, the queue '\(queue.label)' did not finish its running block within \(Self.drainTimeoutDescription); going on (an operation of its owner that was running already may still race with it)\n".utf8))
        }
        drained.store(true, ordering: .releasing)
    }

    private func locked<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        let me = Self.currentThread
        if holder.load(ordering: .relaxed) == me { return try body() }
        var result: Result<R, E>?
        var posts: [DeferredNotification] = []
        lock.withLock { _ in
            holder.store(me, ordering: .relaxed)
            result = Result { () throws(E) -> R in try body() }
            holder.store(0, ordering: .relaxed)
            // Taken before the lock is left: what a later holder posts is its own.
            posts = deferred.withLock { deferred in
                defer { deferred = [] }
                return deferred
            }
        }
        for notification in posts { notification.post() }
        return try result!.get()
    }
}

/// A notification to post later. `@unchecked Sendable`: it holds the posting
/// context and objects of its change sets, and is posted by the thread that made it.
struct DeferredNotification: @unchecked Sendable {
    let name: Notification.Name
    let object: AnyObject
    let userInfo: [String: Any]?

    func post() {
        NotificationCenter.default.post(name: name, object: object, userInfo: userInfo)
    }
}
