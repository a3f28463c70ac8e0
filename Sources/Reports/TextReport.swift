public import ReplayModel
import Foundation

/// The replay as text: one side-by-side table (a column per scenario), then the
/// verdicts in plain words, then the stacks of the hangs.
public enum TextReport {
    public static func render(_ report: ReplayReport) -> String {
        var out = header(report.settings) + "\n\n"
        out += table(rows(for: report.scenarios), scenarios: report.scenarios)
        out += "\n"
        for v in report.verdicts { out += "- " + v + "\n" }
        out += hangs(report.scenarios)
        return out
    }

    /// The first line: what was replayed, and how.
    static func header(_ s: ReplayReport.Settings) -> String {
        var out = "ctxdebug replay: \(s.entries) entries, \(s.fps) fps, hang threshold \(fmt0(s.hangThresholdMs)) ms, "
        out += s.checkingLevel == 0 ? "checking off" : "checking level \(s.checkingLevel)"
        out += " (\(s.buildConfiguration) build, \(s.cores) cores)"
        if let w = s.workload { out += ", workload \(w)" }
        if let b = s.injectBug { out += ", injected bug \(b)" }
        return out
    }

    typealias Row = (label: String, value: (ScenarioResult) -> String)

    /// The table's rows: the frame figures of every scenario, then those only some have.
    static func rows(for scenarios: [ScenarioResult]) -> [Row] {
        var rows: [Row] = [
            ("frames", { "\($0.frames.count)" }),
            ("frame latency p50 (ms)", { fmt1($0.frames.latencyMs.p50) }),
            ("frame latency p95 (ms)", { fmt1($0.frames.latencyMs.p95) }),
            ("frame latency p99 (ms)", { fmt1($0.frames.latencyMs.p99) }),
            ("frame latency max (ms)", { fmt1($0.frames.latencyMs.max) }),
            ("hitches (> 1 frame late)", { "\($0.frames.hitches)" }),
            ("hitch ratio (ms/s)", { "\(fmt1($0.frames.hitchRatioMsPerSecond)) \($0.frames.hitchBand)" }),
            ("hangs (>= threshold)", { "\($0.hangs.count)" }),
            ("longest hang (ms)", { $0.hangs.isEmpty ? "-" : fmt0($0.hangs.map(\.durationMs).max()!) }),
            ("longest main-queue item", { r in r.longestWorkItems.first.map { "\($0.label) \(fmt1($0.maxMs)) ms" } ?? "-" }),
        ]
        if scenarios.contains(where: { $0.export != nil }) {
            rows.append(("export rows/s", { r in r.export.map { "\(grouped(Int($0.rowsPerSecond))) (\($0.queue))" } ?? "-" }))
            rows.append(("export time (ms)", { r in r.export.map { fmt0($0.seconds * 1000) } ?? "-" }))
        }
        if scenarios.contains(where: { $0.sync != nil }) {
            rows.append(("synced changes visible", { r in r.sync.map { "\($0.visibleOnMain)/\($0.inserted + $0.updated)" } ?? "-" }))
            rows.append(("merge latency p50/max (ms)", { r in r.sync.map { "\(fmt1($0.mergeLatencyMs.p50))/\(fmt1($0.mergeLatencyMs.max))" } ?? "-" }))
        }
        if scenarios.contains(where: { $0.search != nil }) {
            rows.append(("search fetch (ms, off main)", { r in r.search.map { fmt1($0.fetchMs) } ?? "-" }))
            rows.append(("search rematerialize (ms)", { r in r.search.map { fmt1($0.rematerializeMs) } ?? "-" }))
        }
        if scenarios.contains(where: { $0.edits != nil }) {
            rows.append(("edits opened/saved/cancelled/added", { r in r.edits.map { "\($0.opened)/\($0.saved)/\($0.cancelled)/\($0.added)" } ?? "-" }))
        }
        return rows
    }

    /// The rows side by side, a column per scenario, labels left and figures right-aligned.
    static func table(_ rows: [Row], scenarios: [ScenarioResult]) -> String {
        let labelWidth = rows.map(\.label.count).max() ?? 0
        var table: [[String]] = [[""] + scenarios.map(\.name)]
        for (label, value) in rows { table.append([label] + scenarios.map(value)) }
        var widths = [labelWidth]
        for c in scenarios.indices { widths.append(table.map { $0[c + 1].count }.max() ?? 0) }
        var out = ""
        for row in table {
            var line = row[0].padding(toLength: widths[0], withPad: " ", startingAt: 0)
            for c in 1..<row.count {
                let cell = row[c]
                line += "  " + String(repeating: " ", count: max(0, widths[c] - cell.count)) + cell
            }
            out += line + "\n"
        }
        return out
    }

    /// The stacks of the first hangs, the sample app's frames first.
    static func hangs(_ scenarios: [ScenarioResult]) -> String {
        let hangs = scenarios.flatMap { r in r.hangs.map { (r.name, $0) } }.filter { !$0.1.stack.isEmpty }
        guard !hangs.isEmpty else { return "" }
        var out = "\nHangs (stacks sampled on the blocked main queue, innermost first):\n"
        for (name, h) in hangs.prefix(4) {
            out += "  \(name): '\(h.label)' blocked \(fmt0(h.durationMs)) ms from \(fmt0(h.startMs)) ms, \(h.sampleCount) sample\(h.sampleCount == 1 ? "" : "s")"
            if let heavy = h.heaviestFunction { out += "; most seen: \(SymbolName.shortName(heavy))" }
            out += "\n"
            let shown = h.stack.filter { f in ["SurfJournal.", "Replay.", "ManagedContext."].contains { SymbolName.stripped(f.function).hasPrefix($0) } }
            for f in (shown.isEmpty ? h.stack : shown).prefix(6) {
                var line = "    " + HangSymbolicationName.short(f.function)
                if let file = f.file { line += " (\((file as NSString).lastPathComponent)\(f.line.map { ":\($0)" } ?? ""))" }
                out += line + "\n"
            }
        }
        return out
    }

    static func fmt0(_ x: Double) -> String { String(format: "%.0f", x) }
    static func fmt1(_ x: Double) -> String { String(format: "%.1f", x) }
    /// 1234567 as "1,234,567".
    public static func grouped(_ n: Int) -> String {
        let s = String(n)
        var out = ""
        for (i, ch) in s.reversed().enumerated() {
            if i > 0 && i % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return String(out.reversed())
    }
}

enum HangSymbolicationName {
    /// A function name without its argument types, at most 100 characters.
    static func short(_ name: String) -> String {
        let n = SymbolName.stripped(name)
        let cut = n.firstIndex(of: "(").map { String(n[..<$0]) } ?? n
        return cut.count > 100 ? String(cut.prefix(100)) + "…" : cut
    }
}
