public import CConcurrencyDebug

/// A process-wide generation that a client moves on when shared state changes (the
/// runtime moves it at each store save while missing-merge is on), so that a hot path
/// can tell "nothing changed since I last looked" with one load and a compare.
@usableFromInline package enum ProcessGeneration {  // @usableFromInline, or its @inlinable members are not inlined into other modules
    @inlinable @inline(__always)
    package static var current: UInt64 { ctxdebug_generation() }

    @inlinable
    package static func advance() { _ = ctxdebug_generation_advance() }
}

extension ConcurrencyDebug {
    /// False only when checking is known to be off (level 0): one relaxed load, for
    /// a client's own hot paths. True while not configured yet.
    @inlinable @inline(__always)
    package static var mayBeChecking: Bool { ctxdebug_access_mode() != Int32(CTXDEBUG_ACCESS_OFF) }
}
