import CtxdebugHelpers
import Foundation
import ConcurrencyDebug
#if canImport(Glibc)
import Glibc
#endif

/// A one-line progress bar on stderr, drawn only when stderr is a terminal (so
/// logs and pipes get none of it). Thread-safe; redraws at most ten times a second.
public final class ProgressBar: Sendable {
    private struct State {
        var lastDraw: UInt64 = 0
        var drawn = false
        var total: Int
    }
    private let label: String
    private let enabled: Bool
    private let state: LockedValue<State>

    public init(label: String, total: Int = 1, enabled: Bool = ProgressBar.stderrIsTerminal) {
        self.label = label
        self.state = LockedValue(State(total: max(1, total)))
        self.enabled = enabled
    }

    public static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Shows `done` of the total (or of `total`, which replaces it).
    public func update(_ done: Int, of newTotal: Int? = nil) {
        guard enabled else { return }
        let now = MonotonicClock.now()
        let line: String? = state.withLock { s in
            if let newTotal { s.total = max(1, newTotal) }
            let total = s.total
            if s.drawn && now - s.lastDraw < 100_000_000 && done < total { return nil }
            s.lastDraw = now
            s.drawn = true
            let fraction = min(1, Double(done) / Double(total))
            let width = 30
            let filled = Int(fraction * Double(width))
            return "\r\(label) [" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
                + "] \(Int(fraction * 100))% \(done)/\(total)"
        }
        if let line { FileHandle.standardError.write(Data(line.utf8)) }
    }

    /// Clears the bar's line.
    public func finish() {
        guard enabled else { return }
        let drawn = state.withLock { $0.drawn }
        if drawn { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
    }
}
