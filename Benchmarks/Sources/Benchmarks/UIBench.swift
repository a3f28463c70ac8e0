import Foundation
import Replay

/// Item 6: `export-background` against `baseline`, from `ctxdebug replay --format
/// json` run as a child of this binary (the replay must own the real main queue).
enum UIBench {
    static func run(store: URL, entries: Int, duration: Double, repetitions: Int, work: URL) throws -> BenchItem {
        var p99Delta: [Double] = [], baseP99: [Double] = [], exportP99: [Double] = []
        var hitch: [Double] = [], hangs: [Double] = []
        for _ in 0..<repetitions {
            let output = work.appendingPathComponent("replay.json")
            let run = try BenchSupport.run(
                BenchSupport.selfExecutable,
                [
                    "replay", "--scenario", "baseline", "--scenario", "export-background", "--store", store.path,
                    "--entries", "\(entries)", "--duration", "\(duration)", "--format", "json", "--output", output.path,
                ],
                environment: ["CTXDEBUG_CONCURRENCY": "1"], work: work)
            defer { try? FileManager.default.removeItem(at: output) }
            guard run.status == 0, let data = try? Data(contentsOf: output),
                let report = try? JSONDecoder().decode(ReplayReport.self, from: data),
                let base = report.scenario("baseline"), let export = report.scenario("export-background")
            else {
                throw BenchError("`ctxdebug replay` failed with status \(run.status): \(run.standardError.suffix(1_500))")
            }
            baseP99.append(base.frames.latencyMs.p99)
            exportP99.append(export.frames.latencyMs.p99)
            p99Delta.append(export.frames.latencyMs.p99 - base.frames.latencyMs.p99)
            hitch.append(export.frames.hitchRatioMsPerSecond)
            hangs.append(Double(export.hangs.count))
        }
        let delta = BenchFigure("frame p99, export-background − baseline", unit: "ms", samples: p99Delta, signed: true)
        let ratio = BenchFigure("hitch ratio, export-background", unit: "ms/s", samples: hitch, signed: true)
        let hangFigure = BenchFigure("hangs (≥ 250 ms), export-background", unit: "count", samples: hangs, signed: true)
        return BenchItem(
            id: "6", title: "The UI: export-background against baseline",
            setup: [
                "`ctxdebug replay --scenario baseline --scenario export-background` on a store of \(entries.formattedCount) entries (the replay's default size in `Scripts/bench`), 60 fps, at least \(duration.benchFormatted) s per scenario, checking on (level 1); \(repetitions) runs, each a child process; the delta is taken within each run."
            ],
            figures: [
                BenchFigure("frame p99, baseline", unit: "ms", samples: baseP99),
                BenchFigure("frame p99, export-background", unit: "ms", samples: exportP99),
                delta, ratio, hangFigure,
            ],
            targets: [
                BenchTarget(what: "frame p99, export-background against baseline", target: "within 2 ms", measured: String(format: "%+.1f ms", delta.median), met: delta.median <= 2),
                BenchTarget(what: "hangs during export-background", target: "none", measured: "\(Int(hangs.max() ?? 0)) in the worst run", met: (hangs.max() ?? 0) == 0),
                BenchTarget(what: "hitch ratio during export-background", target: "≤ 5 ms/s", measured: "\(ratio.median.benchFormatted) ms/s", met: ratio.median <= 5),
            ],
            detections: nil, skipped: nil,
            notes: ["A hitch ratio or hang count of 0 is the good outcome; those figures are counts, not times, and may be 0."])
    }
}
