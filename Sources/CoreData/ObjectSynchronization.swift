public import Foundation

/// `objc_sync_enter(_:)` and `objc_sync_exit(_:)`, the Objective-C runtime's `@synchronized`,
/// which Swift code on Apple platforms calls through Foundation to guard a stack's lazy
/// properties (`objc_sync_enter(self); defer { objc_sync_exit(self) }`). Linux has no
/// Objective-C runtime; with `import CoreData` these behave as the runtime's do (objc-sync.h:
/// "Begin synchronizing on 'obj'. Allocates recursive pthread_mutex associated with 'obj' if
/// needed"; "End synchronizing on 'obj'. Returns OBJC_SYNC_SUCCESS or
/// OBJC_SYNC_NOT_OWNING_THREAD_ERROR"): a recursive lock per object, by identity, held by
/// one thread at a time. The lock is dropped when no thread holds or waits for it.
public let OBJC_SYNC_SUCCESS: Int32 = 0
public let OBJC_SYNC_NOT_OWNING_THREAD_ERROR: Int32 = -1

@discardableResult
public func objc_sync_enter(_ object: Any) -> Int32 {
    ObjectSynchronization.shared.enter(ObjectSynchronization.key(object))
    return OBJC_SYNC_SUCCESS
}

@discardableResult
public func objc_sync_exit(_ object: Any) -> Int32 {
    ObjectSynchronization.shared.exit(ObjectSynchronization.key(object)) ? OBJC_SYNC_SUCCESS : OBJC_SYNC_NOT_OWNING_THREAD_ERROR
}

final class ObjectSynchronization: @unchecked Sendable {
    static let shared = ObjectSynchronization()

    private struct Entry {
        var owner: pthread_t?
        var depth = 0
        /// Threads holding or waiting: the entry goes when it is zero.
        var users = 0
    }

    private let condition = NSCondition()
    private var entries: [ObjectIdentifier: Entry] = [:]

    /// A class instance by identity; a value (Swift boxes it anew each call, as the
    /// Objective-C bridge does) gets a lock no other call shares.
    static func key(_ object: Any) -> ObjectIdentifier {
        ObjectIdentifier(object as AnyObject)
    }

    func enter(_ key: ObjectIdentifier) {
        let me = pthread_self()
        condition.lock()
        defer { condition.unlock() }
        entries[key, default: Entry()].users += 1
        while let owner = entries[key]?.owner, pthread_equal(owner, me) == 0 {
            condition.wait()
        }
        entries[key]!.owner = me
        entries[key]!.depth += 1
    }

    /// False when the calling thread does not hold the object's lock.
    func exit(_ key: ObjectIdentifier) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard var entry = entries[key], let owner = entry.owner, pthread_equal(owner, pthread_self()) != 0 else { return false }
        entry.depth -= 1
        entry.users -= 1
        if entry.depth == 0 {
            entry.owner = nil
            condition.broadcast()
        }
        entries[key] = entry.users == 0 ? nil : entry
        return true
    }

    /// The threads holding or waiting for `object`'s lock (for tests).
    func users(of object: AnyObject) -> Int {
        condition.lock()
        defer { condition.unlock() }
        return entries[ObjectIdentifier(object)]?.users ?? 0
    }
}
