import CtxdebugHelpers
import Dispatch
import Synchronization

/// The logical queue an object is confined to: the main queue, or one private
/// serial queue. Identity is logical, not a thread: `performAndWait` may run a
/// block on the caller's thread, and under `dispatchMain()` the main queue runs on
/// a worker thread.
public struct QueueIdentity: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// No queue: code running outside any perform block and off the main queue.
    /// (Computed and inlinable, not a stored global: the access check compares with
    /// them, and a global costs a lazy-initialization call.)
    @inlinable public static var none: QueueIdentity { QueueIdentity(rawValue: 0) }
    /// The main queue, shared by every `.mainQueue` context.
    @inlinable public static var main: QueueIdentity { QueueIdentity(rawValue: 1) }

    /// A new identity for a private serial queue, registered with its label so
    /// reports can name it.
    public static func makePrivate(label: String) -> QueueIdentity {
        let id = QueueIdentity(rawValue: nextIdentity.add(1, ordering: .relaxed).oldValue)
        labels.withLock { $0[id.rawValue] = label }
        return id
    }

    /// The label the queue was registered with ("com.apple.main-thread" for main).
    public var label: String {
        if self == .main { return "com.apple.main-thread" }
        if self == .none { return "(no queue)" }
        return Self.labels.withLock { $0[rawValue] } ?? "queue #\(rawValue)"
    }

    public var description: String { label }

    /// Forgets the label of a queue that is gone.
    public static func unregister(_ id: QueueIdentity) {
        guard id.rawValue > 1 else { return }
        _ = labels.withLock { $0.removeValue(forKey: id.rawValue) }
    }

    private static let nextIdentity = Atomic<UInt>(2)
    private static let labels = LockedValue<[UInt: String]>([:])
}
