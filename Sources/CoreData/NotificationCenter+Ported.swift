import CtxdebugHelpers
import Foundation
import Synchronization

/// Selector-based observers, as `ctxdebug port` rewrites them. Linux has no
/// `#selector`, so
///
///     center.addObserver(self, selector: #selector(contextDidSave(_:)), name: .NSManagedObjectContextDidSave, object: nil)
///     center.removeObserver(self)
///
/// become
///
///     center.addObserver(self, name: .NSManagedObjectContextDidSave, object: nil) { observer, note in observer.contextDidSave(note) }
///     center.removeObserver(ported: self)
///
/// and behave as Apple's selector-based observers do:
/// - the method runs synchronously on the thread that posts, as with `queue: nil`;
/// - the observer is held weakly: once it is deallocated it gets no more
///   notifications, and its registrations are removed (Apple removes them at
///   deallocation since iOS 9 / macOS 10.11). Here a registration whose observer is gone
///   is removed at the next post that reaches it, or at the next `addObserver` or
///   `removeObserver(ported:)` on any center, whichever comes first;
/// - `removeObserver(ported: x)` and `removeObserver(ported: x, name:object:)` remove
///   the registrations of `x` (all, or those of that name and object), from `deinit` too,
///   and then call Foundation's `removeObserver` with the same arguments.
///
/// The registrations are kept beside the observer in a table keyed by its identity
/// (with a weak reference to tell a live observer from a dead one whose address was reused).
extension NotificationCenter {
    /// Registers `observer` for `name` from `object` (nil: any), calling `method` with
    /// the observer and the notification. The ported form of
    /// `addObserver(_:selector:name:object:)`.
    public func addObserver<Observer: AnyObject>(
        _ observer: Observer, name: NSNotification.Name?, object: Any?, calling method: @escaping (Observer, Notification) -> Void
    ) {
        let registration = PortedObserverRegistration(observer: observer, method: method)
        PortedObservers.pruneDead()
        let token = addObserver(forName: name, object: object, queue: nil) { [registration] note in
            if !registration.deliver(note) { PortedObservers.pruneDead() }
        }
        PortedObservers.add(
            .init(observer: ObjectIdentifier(observer), registration: registration, center: self, name: name, object: Self.identity(of: object), token: token))
    }

    /// Removes the registrations `addObserver(_:name:object:calling:)` made for
    /// `observer` (of `name` and from `object`, when given), then calls Foundation's
    /// `removeObserver(_:name:object:)`. The ported form of `removeObserver(_:)` and
    /// `removeObserver(_:name:object:)`.
    public func removeObserver(ported observer: Any, name: NSNotification.Name? = nil, object: Any? = nil) {
        let removed = PortedObservers.remove(observer: ObjectIdentifier(observer as AnyObject), center: self, name: name, object: Self.identity(of: object))
        for token in removed { removeObserver(token) }
        PortedObservers.pruneDead()
        removeObserver(observer, name: name, object: object)
    }

    private static func identity(of object: Any?) -> ObjectIdentifier? {
        guard let object else { return nil }
        return ObjectIdentifier(object as AnyObject)
    }
}

/// One ported registration: the observer (weakly) and the method to call on it.
///
/// `@unchecked Sendable`: Foundation's block observers must be `@Sendable`, but the
/// selector-based observer this stands for is called on the posting thread with no
/// isolation of its own, as Apple's is; the weak reference itself is thread-safe.
private final class PortedObserverRegistration<Observer: AnyObject>: @unchecked Sendable, PortedLiveness {
    weak var observer: Observer?
    let method: (Observer, Notification) -> Void

    init(observer: Observer, method: @escaping (Observer, Notification) -> Void) {
        self.observer = observer
        self.method = method
    }

    /// Calls the method; false when the observer is gone.
    func deliver(_ note: Notification) -> Bool {
        guard let observer else { return false }
        method(observer, note)
        return true
    }

    var isAlive: Bool { observer != nil }
}

private protocol PortedLiveness: AnyObject, Sendable {
    var isAlive: Bool { get }
}

/// The table of ported registrations, by observer identity.
private enum PortedObservers {
    struct Entry: @unchecked Sendable {  // the center and token are Foundation's thread-safe objects
        var observer: ObjectIdentifier
        var registration: any PortedLiveness
        weak var center: NotificationCenter?
        var name: NSNotification.Name?
        var object: ObjectIdentifier?
        var token: any NSObjectProtocol
    }

    static let table = LockedValue<[Entry]>([])

    static func add(_ entry: Entry) { table.withLock { $0.append(entry) } }

    /// Takes out the entries of `observer` on `center` that match `name` and `object`
    /// (nil matches any), and gives their tokens.
    static func remove(observer: ObjectIdentifier, center: NotificationCenter, name: NSNotification.Name?, object: ObjectIdentifier?) -> [any NSObjectProtocol] {
        table.withLock { entries in
            var tokens: [any NSObjectProtocol] = []
            entries.removeAll { e in
                let matches = e.observer == observer && e.center === center && (name == nil || e.name == name) && (object == nil || e.object == object)
                if matches { tokens.append(e.token) }
                return matches
            }
            return tokens
        }
    }

    /// Removes, from their centers, the registrations whose observer is gone.
    static func pruneDead() {
        let dead: [Entry] = table.withLock { entries in
            let gone = entries.filter { !$0.registration.isAlive }
            if !gone.isEmpty { entries.removeAll { !$0.registration.isAlive } }
            return gone
        }
        for e in dead { e.center?.removeObserver(e.token) }
    }
}
