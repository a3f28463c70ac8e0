import ConcurrencyDebug
import Foundation
import ReplayModel

/// Turns a hang's sampled addresses into frames.
enum HangSymbolication {
    static func hang(_ h: HangRecord, runStart: UInt64, runEnd: UInt64) -> ScenarioResult.Hang {
        let end = h.end ?? runEnd
        let stacks = h.samples.map(frames)
        var counts: [String: Int] = [:]
        for s in stacks {
            if let f = appFrame(s) { counts[f, default: 0] += 1 }
        }
        let heaviest = counts.max { $0.value < $1.value }?.key
        return ScenarioResult.Hang(
            label: h.label, startMs: Double(Int64(h.start) - Int64(runStart)) / 1e6, durationMs: Double(end - h.start) / 1e6,
            sampleCount: h.samples.count, heaviestFunction: heaviest, stack: stacks.first ?? [])
    }

    /// The innermost frame of the app's code: SurfJournal first, then the runtime.
    static func appFrame(_ frames: [ScenarioResult.Frame]) -> String? {
        for prefix in ["SurfJournal.", "Replay.", "ManagedContext."] {
            if let f = frames.first(where: { SymbolName.stripped($0.function).hasPrefix(prefix) }) { return f.function }
        }
        return nil
    }

    static func frames(_ addresses: [UInt]) -> [ScenarioResult.Frame] {
        let v = Violation(
            kind: ViolationKind("hang-sample"),
            access: AccessDescription(operation: "sample", ownerQueueLabel: "main", fixHint: ""),
            message: "", queueLabel: "main", threadID: 0, threadName: "", addresses: addresses
        ).symbolicated()
        var frames = v.frames
        // Drop the sampler's own frames, through the signal trampoline.
        if let i = frames.firstIndex(where: { ($0.function ?? "").contains("__restore_rt") }) {
            frames = Array(frames[(i + 1)...])
        } else if let first = frames.first, first.function == nil || first.function!.hasPrefix("0x"),
            (first.module ?? "").contains("libc.so")
        {
            frames.removeFirst()  // the unnamed signal trampoline
        }
        return frames.map {
            ScenarioResult.Frame(
                function: $0.function ?? "0x" + String($0.address, radix: 16), file: $0.file, line: $0.line,
                module: $0.module.map { ($0 as NSString).lastPathComponent })
        }
    }
}
