import CConcurrencyDebug

/// Stack capture at a violation: return addresses only, through libunwind's
/// `unw_backtrace` (a few microseconds). Symbolication happens later, in `Symbolicator`.
public enum StackTrace {
    /// The most frames kept.
    public static let maximumDepth = 128

    /// The return addresses of the calling thread, innermost first. The frames of
    /// `capture` itself and of the C function under it are included; the report drops
    /// every checker frame when it symbolicates.
    @inline(never)
    public static func capture(maximumDepth: Int = StackTrace.maximumDepth) -> [UInt] {
        let depth = max(1, min(maximumDepth, 512))
        return withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: depth) { buffer in
            let count = Int(ctxdebug_capture_stack(buffer.baseAddress, Int32(depth)))
            var addresses: [UInt] = []
            addresses.reserveCapacity(count)
            for index in 0..<max(0, count) {
                addresses.append(UInt(bitPattern: buffer[index]))
            }
            return addresses
        }
    }
}

extension StackTrace {
    /// The symbolicated frames of a captured stack, the checker's own frames
    /// dropped, each formatted as in a report. Slow (runs the symbolizer): call it
    /// only when a report is written.
    public static func symbolicate(_ addresses: [UInt]) -> [String] {
        Symbolicator.shared.frames(for: addresses).map(\.formatted)
    }
}

extension StackTrace {
    /// The app's own innermost frame of each stack (below the checker's and the
    /// runtime's frames, with a source file), all symbolicated in one pass: where
    /// `ctxdebug explore` says a scheduling point was reached. Slow, as `symbolicate`.
    @_spi(Runtime) public static func userFrames(_ stacks: [[UInt]]) -> [StackFrame?] {
        Symbolicator.shared.prepare(stacks)
        return stacks.map { RuntimeFrames.siteFrame(Symbolicator.shared.frames(for: $0)) }
    }
}
