public import CCtxdebugHelpers
public import Synchronization

/// A value behind a `Mutex`, held in a class so it can be shared and stored in
/// `Sendable` classes without `~Copyable` rules spreading. For this package's
/// modules (`package`), not part of any module's API.
///
/// It also tells ThreadSanitizer about the lock: `Mutex` waits on futexes, which
/// ThreadSanitizer does not see (`ctxdebug_tsan_acquire` is a no-op without it).
///
/// Sendable for any value, as `Mutex` is: the value goes in and out only as `sending`.
/// Every lock in this package is one of these, so that a program run under
/// ThreadSanitizer with ctxdebug linked gets no reports from ctxdebug's own locks.
///
/// `withLock` is `@inlinable`: its callers in other modules get it specialized for their
/// value and result, as they do `Mutex.withLock`; unspecialized, each call passed type
/// metadata that the Swift runtime builds at a type's first use (the dispatch control's
/// hooks met several in every explored process). The class is `public` (its members stay
/// `package`) because Swift 6.3 does not specialize an `@inlinable` method of a `package`
/// class in another module: every caller called the generic entry point.
public final class LockedValue<Value: ~Copyable>: @unchecked Sendable {
    @usableFromInline let mutex: Mutex<Value>
    package init(_ value: consuming sending Value) { mutex = Mutex(value) }
    @inlinable @discardableResult
    package func withLock<R, E: Error>(_ body: (inout sending Value) throws(E) -> sending R) throws(E) -> sending R {
        let token = Unmanaged.passUnretained(self).toOpaque()
        return try mutex.withLock { (value: inout sending Value) throws(E) -> sending R in
            ctxdebug_tsan_acquire(token)
            defer { ctxdebug_tsan_release(token) }
            return try body(&value)
        }
    }
}
