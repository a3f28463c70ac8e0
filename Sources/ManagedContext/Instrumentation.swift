import CtxdebugHelpers
import Dispatch
import ConcurrencyDebug
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Receives the runtime's events: each perform block, fetch, count, save and merge
/// of every context, once it has ended. Install one with
/// `ContextInstrumentation.setObserver(_:)`.
///
/// It is called on the thread that ran the work, right after it, so keep it short
/// (append to a buffer under a lock). It must not call back into the context.
@_spi(Runtime) public protocol ContextInstrumentationObserver: Sendable {
    func contextEvent(_ event: ContextInstrumentation.Event)
}

/// A small, process-wide hook for tools that draw timelines (`ctxdebug replay
/// --trace`): with no observer installed, each instrumented call costs one atomic
/// load and a branch.
///
/// Instrumented: the blocks of `perform` and `performAndWait` (on the context's
/// queue, or inline on the caller's thread for `performAndWait`), `fetch`,
/// `fetchObjectIDs`, `count(for:)`, `save()` and `mergeChanges(_:)`. A merge names
/// the save it comes from (`Event.saveID`) when its `SaveChanges` was made from the
/// did-save notification while the save ran (in the notification's observer, as
/// `DidSaveMerger` and automatic merging do).
@_spi(Runtime) public enum ContextInstrumentation {
    public enum Kind: String, Sendable, CaseIterable, Codable {
        case perform, performAndWait, fetch, fetchObjectIDs, count, save, merge
    }

    /// One piece of work of one context, with its start and end.
    public struct Event: Sendable, Hashable {
        /// Unique in the process, counting up from 1. For a save, also its save id.
        public var id: UInt64
        public var kind: Kind
        /// The context's number (unique in the process) and name, when it has one.
        public var contextNumber: UInt32
        public var contextName: String?
        /// The label of the context's queue (`com.apple.main-thread` for the main queue).
        public var queueLabel: String
        public var isMainQueue: Bool
        /// `DispatchTime.now().uptimeNanoseconds` at the start and the end.
        public var start: UInt64
        public var end: UInt64
        /// The pthread that ran it.
        public var thread: UInt
        /// For a merge: the id of the save whose changes it merges, when known.
        public var saveID: UInt64?
    }

    private static let enabled = Atomic<Bool>(false)
    private static let observer = LockedValue<(any ContextInstrumentationObserver)?>(nil)
    private static let nextID = Atomic<UInt64>(1)

    /// Installs `observer` (nil removes it). Work already running when it is
    /// installed is not reported.
    public static func setObserver(_ newValue: (any ContextInstrumentationObserver)?) {
        observer.withLock { $0 = newValue }
        enabled.store(newValue != nil, ordering: .releasing)
    }

    public static var isEnabled: Bool { enabled.load(ordering: .relaxed) }

    /// The work being measured; `end()` reports it. Empty (and free) when no
    /// observer is installed.
    struct Span {
        let pending: Pending?

        @inline(__always)
        func end() {
            if let pending { ContextInstrumentation.finish(pending) }
        }
    }

    /// `@unchecked Sendable` is not needed: a pending span never leaves the thread
    /// that began it.
    final class Pending {
        let id: UInt64
        let kind: Kind
        let context: ManagedObjectContext
        let start: UInt64
        let saveID: UInt64?
        /// For a save: the save that was running on this thread before it began.
        var previousSave: UnsafeMutableRawPointer?

        init(id: UInt64, kind: Kind, context: ManagedObjectContext, start: UInt64, saveID: UInt64?) {
            self.id = id
            self.kind = kind
            self.context = context
            self.start = start
            self.saveID = saveID
        }
    }

    /// Starts measuring; pair it with `defer { span.end() }`.
    @inline(__always)
    static func begin(_ kind: Kind, _ context: ManagedObjectContext, saveID: UInt64? = nil) -> Span {
        guard enabled.load(ordering: .relaxed) else { return Span(pending: nil) }
        return beginSlow(kind, context, saveID: saveID)
    }

    @inline(never)
    private static func beginSlow(_ kind: Kind, _ context: ManagedObjectContext, saveID: UInt64?) -> Span {
        let pending = Pending(
            id: nextID.add(1, ordering: .relaxed).oldValue, kind: kind, context: context,
            start: DispatchTime.now().uptimeNanoseconds, saveID: saveID)
        if kind == .save {
            // The save's notifications are posted on this thread while it runs:
            // `currentSaveID(of:)` finds it there.
            pending.previousSave = pthread_getspecific(saveKey)
            pthread_setspecific(saveKey, Unmanaged.passUnretained(pending).toOpaque())
        }
        return Span(pending: pending)
    }

    @inline(never)
    fileprivate static func finish(_ pending: Pending) {
        let end = DispatchTime.now().uptimeNanoseconds
        if pending.kind == .save { pthread_setspecific(saveKey, pending.previousSave) }
        guard let observer = observer.withLock({ $0 }) else { return }
        let c = pending.context
        observer.contextEvent(
            Event(
                id: pending.id, kind: pending.kind, contextNumber: c.number, contextName: c.name,
                queueLabel: c.queueIdentity.label, isMainQueue: c.concurrencyType == .mainQueue,
                start: pending.start, end: end, thread: currentThread(), saveID: pending.saveID))
    }

    private static func currentThread() -> UInt {
        #if canImport(Glibc)
        UInt(pthread_self())
        #else
        UInt(bitPattern: pthread_self())
        #endif
    }

    /// The id of the save of `context` running on this thread, if any (and if an
    /// observer is installed): what `SaveChanges(notification)` records.
    public static func currentSaveID(of context: AnyObject?) -> UInt64? {
        guard enabled.load(ordering: .relaxed), let context else { return nil }
        var pointer = pthread_getspecific(saveKey)
        while let p = pointer {
            let pending = Unmanaged<Pending>.fromOpaque(p).takeUnretainedValue()
            if pending.context === context { return pending.id }
            pointer = pending.previousSave
        }
        return nil
    }

    /// The thread-local "save running on this thread" (a `Pending`, unretained: the
    /// span holding it outlives it).
    private static let saveKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
}
