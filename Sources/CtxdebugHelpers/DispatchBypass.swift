package import CCtxdebugHelpers

/// Calls to libdispatch that schedule exploration's dispatch control must leave alone:
/// the scheduler's own baton and queues, and the runtime's store (docs/explore.md, "What
/// is controlled"). Outside an explored process it costs a thread-local increment.
package enum DispatchBypass {
    /// Runs `body` with this thread's libdispatch calls going straight to libdispatch.
    @inline(__always)
    package static func run<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        ctxdebug_dispatch_bypass_enter()
        defer { ctxdebug_dispatch_bypass_leave() }
        return try body()
    }

    /// Runs `body` (the app's code, inside a bypassed call) with control back on.
    @inline(__always)
    package static func lifted<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let saved = ctxdebug_dispatch_bypass_clear()
        defer { ctxdebug_dispatch_bypass_restore(saved) }
        return try body()
    }

    /// Whether this thread's calls bypass control now.
    package static var isOn: Bool { ctxdebug_dispatch_bypassed() != 0 }
}
