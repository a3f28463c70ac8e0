import Foundation

/// The bench report as text (the terminal) and as Markdown (docs/benchmarks.md).
enum BenchRender {
    static func spread(_ f: BenchFigure) -> String {
        f.samples.count <= 1 ? "(1 sample)" : "\(value(f.min, f)) – \(value(f.max, f))"
    }

    static func value(_ v: Double, _ f: BenchFigure) -> String {
        f.unit == "count" && !v.isNaN ? String(Int(v.rounded())) : v.benchFormatted
    }

    static func verdict(_ t: BenchTarget) -> String { t.met ? "met" : "missed" }

    static func tool(_ value: Bool?) -> String {
        switch value {
        case .none: "not run"
        case .some(true): "reported"
        case .some(false): "silent"
        }
    }

    static func text(_ report: BenchReport) -> String {
        var lines: [String] = []
        let m = report.machine
        lines.append("ctxdebug bench\(report.quick ? " --quick (small sizes: figures not meaningful)" : "")")
        lines.append("\(m.date), \(m.cores) cores, \(m.cpuModel), \(m.toolchain), \(m.build) build, load \(m.loadAverageAtStart.benchFormatted) → \(m.loadAverageAtEnd.benchFormatted), \(report.wallSeconds.benchFormatted) s")
        for item in report.items {
            lines.append("")
            lines.append("\(item.id). \(item.title)")
            if let skipped = item.skipped { lines.append("   (\(skipped))") }
            let width = item.figures.map(\.name.count).max() ?? 0
            for f in item.figures {
                lines.append("   \(f.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(value(f.median, f)) \(f.unit)  [\(spread(f))]")
            }
            for d in item.detections ?? [] {
                lines.append("   \(d.name): ThreadSanitizer \(tool(d.threadSanitizer)), ctxdebug \(d.ctxdebug ? "reported" : "silent")")
            }
            for t in item.targets {
                lines.append("   \(t.met ? "met   " : "MISSED") \(t.what): \(t.measured) (target \(t.target))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func markdown(_ report: BenchReport) -> String {
        let m = report.machine
        var out = "# Benchmarks\n\n"
        out += "Written by `Scripts/bench` (`ctxdebug bench` at full size, release build). Every figure is taken side by side in one run on a shared 2-core machine: the median of its repetitions, with the spread (min – max) of those repetitions. Ratios and differences are taken within a repetition, so the machine's drift between repetitions cancels out of them more than out of the absolute times.\n\n"
        out += "| machine | |\n| --- | --- |\n"
        out += "| date | \(m.date) |\n| CPU | \(m.cpuModel), \(m.cores) cores |\n| toolchain | \(m.toolchain) |\n"
        out += "| build | \(m.build)\(report.quick ? " (--quick: small sizes, figures not meaningful)" : "") |\n"
        out += "| load average (1 min) | \(m.loadAverageAtStart.benchFormatted) at start, \(m.loadAverageAtEnd.benchFormatted) at end |\n"
        out += "| `ctxdebug bench` wall time | \(report.wallSeconds.benchFormatted) s |\n\n"

        out += "## Targets\n\nThe map's targets (ARCHITECTURE.md, \"Targets\"), each against what was measured.\n\n"
        out += "| item | what | target | measured | |\n| --- | --- | --- | --- | --- |\n"
        for item in report.items {
            for t in item.targets {
                out += "| \(item.id) | \(t.what) | \(t.target) | \(t.measured) | **\(verdict(t))** |\n"
            }
        }
        for item in report.items {
            out += "\n## \(item.id). \(item.title)\n\n"
            for line in item.setup { out += line + "\n\n" }
            if let skipped = item.skipped { out += "Not measured: \(skipped)\n\n" }
            if !item.figures.isEmpty {
                out += "| figure | median | spread (min – max) | unit |\n| --- | --- | --- | --- |\n"
                for f in item.figures {
                    out += "| \(f.name) | \(value(f.median, f)) | \(spread(f)) | \(f.unit) |\n"
                }
                out += "\n"
            }
            if let detections = item.detections {
                out += "| case | kind | ThreadSanitizer | ctxdebug level 1 |\n| --- | --- | --- | --- |\n"
                for d in detections {
                    var tsan = tool(d.threadSanitizer) + (d.threadSanitizerWarnings.isEmpty ? "" : " (" + d.threadSanitizerWarnings.joined(separator: "; ") + ")")
                    if !d.threadSanitizerControlWarnings.isEmpty {
                        tsan += "; also, as in its control: " + d.threadSanitizerControlWarnings.joined(separator: "; ")
                    }
                    let ctx = d.ctxdebug ? "reported (\(d.ctxdebugViolations) distinct)" : "silent"
                    out += "| `\(d.name)` | \(d.kind) | \(tsan) | \(ctx) |\n"
                }
                out += "\n"
            }
            if !item.targets.isEmpty {
                out += "| target | measured | |\n| --- | --- | --- |\n"
                for t in item.targets { out += "| \(t.what): \(t.target) | \(t.measured) | **\(verdict(t))** |\n" }
                out += "\n"
            }
            for note in item.notes { out += note + "\n\n" }
        }
        return out
    }
}
