import Synchronization

/// A value behind a `Mutex`, held in a class so it can be shared and stored in
/// `Sendable` classes without `~Copyable` rules spreading.
final class LockedValue<Value: ~Copyable>: Sendable where Value: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: consuming sending Value) { mutex = Mutex(value) }
    @discardableResult
    func withLock<R, E: Error>(_ body: (inout sending Value) throws(E) -> sending R) throws(E) -> sending R {
        try mutex.withLock(body)
    }
}
