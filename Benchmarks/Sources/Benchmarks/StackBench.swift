import ConcurrencyDebug
import Foundation
import Runtime

/// Item 5: capturing the stack at a violation. libunwind's `unw_backtrace`, through
/// `StackTrace.capture()` (what the checker calls), against `Backtrace.capture()` of
/// Swift's Runtime module; both unsymbolicated, from the same depth.
enum StackBench {
    static let depth = 20

    static func run(repetitions: Int, capturesPerSample: Int) -> BenchItem {
        var libunwind: [Double] = [], swift: [Double] = []
        var libunwindFrames = 0, swiftFrames = 0
        var swiftError: String?
        // Warm up both (first use loads unwind tables).
        libunwindFrames = recurse(depth) { StackTrace.capture().count }
        do {
            swiftFrames = try recurse(depth) { try swiftCapture() }
        } catch {
            swiftError = "\(error)"
        }
        for _ in 0..<repetitions {
            libunwind.append(recurse(depth) { () -> Double in
                let t0 = benchNow()
                for _ in 0..<capturesPerSample { benchSink(StackTrace.capture().count) }
                return Double(benchNow() - t0) / Double(capturesPerSample) / 1_000
            })
            if swiftError == nil {
                swift.append(recurse(depth) { () -> Double in
                    let t0 = benchNow()
                    for _ in 0..<capturesPerSample { benchSink((try? swiftCapture()) ?? 0) }
                    return Double(benchNow() - t0) / Double(capturesPerSample) / 1_000
                })
            }
        }
        var figures = [BenchFigure("libunwind (`StackTrace.capture()`, unw_backtrace)", unit: "µs/capture", samples: libunwind)]
        if swiftError == nil {
            figures.append(BenchFigure("Swift `Backtrace.capture()` (Runtime module)", unit: "µs/capture", samples: swift))
            figures.append(BenchFigure("Backtrace.capture() ÷ libunwind", unit: "×", samples: zip(swift, libunwind).map { $0 / $1 }))
        }
        let median = figures[0].median
        return BenchItem(
            id: "5", title: "Stack capture at a violation",
            setup: [
                "Both capture from \(depth) nested calls deep (\(libunwindFrames) frames seen by libunwind, \(swiftFrames) by Backtrace), return addresses only, no symbolication. \(capturesPerSample) captures per sample, \(repetitions) samples, alternated.",
                "`Backtrace.capture()` is used with a plain `import Runtime` (no `@_spi`, no experimental flag) on this toolchain.",
            ],
            figures: figures,
            targets: [BenchTarget(what: "stack capture at a violation", target: "≤ 10 µs", measured: "\(median.benchFormatted) µs", met: median <= 10)],
            detections: nil,
            skipped: swiftError.map { "Backtrace.capture() failed: \($0)" },
            notes: [])
    }

    @inline(never)
    static func swiftCapture() throws -> Int {
        let backtrace = try Backtrace.capture()
        var count = 0
        for _ in backtrace.frames { count += 1 }
        return count
    }

    /// Calls `body` from `levels` nested, non-inlined frames.
    @inline(never)
    static func recurse<T>(_ levels: Int, _ body: () throws -> T) rethrows -> T {
        if levels <= 0 { return try body() }
        let result = try recurse(levels - 1, body)
        benchSink(levels)
        return result
    }
}
