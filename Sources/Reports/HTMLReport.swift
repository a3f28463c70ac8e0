public import ReplayModel
import Foundation
import ReportFormats

/// The replay as one self-contained HTML page (`ctxdebug replay --html FILE`): no
/// network, no scripts, no external fonts; every chart is inline SVG. A Content
/// Security Policy forbids scripts and remote loads, and every string that comes
/// from data (labels, locations, stacks, paths) is escaped. The charts are
/// described in docs/reports.md.
public enum HTMLReport {
    /// Largest number of points drawn per line: enough for every pixel column of a
    /// chart, and it bounds the page's size whatever the run's length.
    static let maxPoints = 1_200

    public static func render(_ report: ReplayReport) -> String {
        var h = ""
        h.reserveCapacity(256 << 10)
        let s = report.settings
        h += """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>ctxdebug replay: \(esc(report.scenarios.map(\.name).joined(separator: ", ")))</title>
            <style>\(css)</style>
            </head>
            <body>
            <header><h1>ctxdebug replay</h1>
            <p class="sub">\(s.entries) entries · \(s.fps) fps · hang threshold \(fmt0(s.hangThresholdMs)) ms · \
            \(s.checkingLevel == 0 ? "checking off" : "checking level \(s.checkingLevel)") · \(esc(s.buildConfiguration)) build\
            \(s.workload.map { " · workload " + esc($0) } ?? "")\(s.injectBug.map { " · injected bug " + esc($0) } ?? "")</p>
            </header>
            <main>

            """
        h += "<section id=\"verdicts\"><h2>Verdicts</h2><ul>"
        for v in report.verdicts { h += "<li>\(esc(v))</li>" }
        h += "</ul></section>\n"

        h += summaryTable(report)

        let frameMs = 1000 / Double(max(1, s.fps))
        h += "<section id=\"distribution\"><h2>Frame latency distribution</h2>"
        h += "<p class=\"note\">The share of frames (y) that started at most x late, all scenarios on one chart. "
        h += "Further left and higher is better; the dashed line is one frame interval (\(fmt1(frameMs)) ms): a frame to its right is a hitch.</p>"
        h += cdfChart(report.scenarios, frameMs: frameMs)
        h += "</section>\n"

        h += "<section id=\"hitch-ratio\"><h2>Hitch time ratio</h2>"
        h += "<p class=\"note\">Milliseconds of hitch per second of run, against Apple's bands: good ≤ 10, warning ≤ 25, critical ≤ 50, worse above. "
        h += "The dashed line is WWDC's aim of 5 ms/s or less.</p>"
        h += hitchChart(report.scenarios)
        h += "</section>\n"

        for (i, r) in report.scenarios.enumerated() {
            h += scenarioSection(r, index: i, frameMs: frameMs, hangThresholdMs: s.hangThresholdMs, checkingLevel: s.checkingLevel)
        }

        h += "</main>\n" + footer(report) + "</body>\n</html>\n"
        return h
    }

    /// The run's settings, one row each.
    static func footer(_ report: ReplayReport) -> String {
        let s = report.settings
        var h = "<footer><h2>Run</h2><table class=\"kv\">"
        var rows: [(String, String)] = [
            ("generated", report.generatedAt),
            ("tool", report.tool + " (report schema \(report.schemaVersion))"),
            ("entries", "\(s.entries)"), ("store", s.store), ("fps", "\(s.fps)"),
            ("duration (minimum per scenario)", "\(fmt1(s.durationSeconds)) s"),
            ("hang threshold", "\(fmt0(s.hangThresholdMs)) ms"),
            ("checking level", s.checkingLevel == 0 ? "0 (off)" : "\(s.checkingLevel)"),
        ]
        if let w = s.workload { rows.append(("workload", w)) }
        if let b = s.injectBug { rows.append(("injected bug", b)) }
        rows += [
            ("build", s.buildConfiguration), ("cores", "\(s.cores)"),
            ("Swift", s.swiftVersion ?? "unknown"), ("OS", s.operatingSystem ?? "unknown"),
        ]
        for (k, v) in rows { h += "<tr><th>\(esc(k))</th><td>\(esc(v))</td></tr>" }
        h += "</table></footer>\n"
        return h
    }

    // MARK: Sections

    static func summaryTable(_ report: ReplayReport) -> String {
        var h = "<section id=\"summary\"><h2>Summary</h2><table class=\"grid\"><thead><tr><th></th>"
        for r in report.scenarios { h += "<th>\(esc(r.name))</th>" }
        h += "</tr></thead><tbody>"
        let rows: [(String, (ScenarioResult) -> String)] = [
            ("frames", { "\($0.frames.count)" }),
            ("latency p50 / p95 / p99 (ms)", { "\(fmt1($0.frames.latencyMs.p50)) / \(fmt1($0.frames.latencyMs.p95)) / \(fmt1($0.frames.latencyMs.p99))" }),
            ("latency max (ms)", { fmt1($0.frames.latencyMs.max) }),
            ("hitches", { "\($0.frames.hitches)" }),
            ("hitch ratio (ms/s)", { "\(fmt1($0.frames.hitchRatioMsPerSecond)) \($0.frames.hitchBand)" }),
            ("hangs", { "\($0.hangs.count)" }),
            ("longest hang (ms)", { $0.hangs.map(\.durationMs).max().map(fmt0) ?? "-" }),
            ("export", { r in r.export.map { "\($0.rows) rows in \(fmt0($0.seconds * 1000)) ms (\($0.queue))" } ?? "-" }),
            ("violations", { r in r.violations.map { "\($0.reduce(0) { $0 + $1.count })" } ?? "-" }),
        ]
        for (label, value) in rows {
            h += "<tr><th>\(esc(label))</th>"
            for r in report.scenarios {
                let cls = label.hasPrefix("hitch ratio") ? " class=\"band-\(esc(r.frames.hitchBand))\"" : ""
                h += "<td\(cls)>\(esc(value(r)))</td>"
            }
            h += "</tr>"
        }
        h += "</tbody></table></section>\n"
        return h
    }

    static func scenarioSection(_ r: ScenarioResult, index: Int, frameMs: Double, hangThresholdMs: Double, checkingLevel: Int) -> String {
        var h = "<section class=\"scenario\" id=\"scenario-\(index)\" data-scenario=\"\(esc(r.name))\">"
        h += "<h2><span class=\"swatch\" style=\"background:\(color(index))\"></span>\(esc(r.name))</h2>"
        h += "<p class=\"note\">\(esc(r.summary)). \(fmt1(r.durationSeconds)) s, \(r.frames.count) frames, "
        h += "\(r.frames.hitches) hitches, \(r.hangs.count) hang\(r.hangs.count == 1 ? "" : "s").</p>"
        h += "<h3>Frame latency over time</h3>"
        h += frameChart(r, index: index, frameMs: frameMs)
        for e in r.errors { h += "<p class=\"error\">error: \(esc(e))</p>" }

        if !r.hangs.isEmpty {
            h += "<h3>Hangs</h3>"
            for (i, hang) in r.hangs.enumerated() {
                h += "<div class=\"hang\"><p><b>Hang \(i + 1)</b>: '\(esc(hang.label))' blocked the main queue for <b>\(fmt0(hang.durationMs)) ms</b> "
                h += "from \(fmt0(hang.startMs)) ms; \(hang.sampleCount) stack sample\(hang.sampleCount == 1 ? "" : "s")"
                if let f = hang.heaviestFunction { h += "; seen most: <code>\(esc(SymbolName.shortName(f)))</code>" }
                h += ".</p>"
                h += stackList(hang.stack, emptyText: "(no stack sampled: the stall was not replay work, or ended before a sample)")
                h += "</div>"
            }
        }

        if !r.longestWorkItems.isEmpty {
            h += "<h3>Longest main-queue work items</h3><table class=\"grid\"><thead><tr><th>label</th><th>count</th><th>total (ms)</th><th>longest (ms)</th></tr></thead><tbody>"
            for w in r.longestWorkItems {
                h += "<tr><td>\(esc(w.label))</td><td>\(w.count)</td><td>\(fmt1(w.totalMs))</td><td>\(fmt1(w.maxMs))</td></tr>"
            }
            h += "</tbody></table>"
        }

        if checkingLevel > 0 { h += violationsSection(r.violations) }

        if let rows = r.visibleRows, !rows.isEmpty {
            h += "<h3>What the list showed at the end</h3><table class=\"cells\"><tbody>"
            for c in rows {
                h += "<tr><td class=\"date\">\(esc(c.title))</td><td class=\"spot\">\(esc(c.detail))</td><td class=\"stars\">\(esc(c.rating))</td></tr>"
            }
            h += "</tbody></table>"
        }
        h += "</section>\n"
        return h
    }

    /// A scenario's violations, each with its stack; what to set when none were recorded.
    static func violationsSection(_ violations: [ViolationRecord]?) -> String {
        var h = "<h3>Concurrency violations</h3>"
        guard let vs = violations else {
            return h + "<p class=\"note\">Violations are listed when CTXDEBUG_ON_VIOLATION is report or log (trap stops at the first).</p>"
        }
        if vs.isEmpty { return h + "<p class=\"ok\">No violations.</p>" }
        for v in vs {
            h += "<div class=\"violation\"><p class=\"headline\">\(esc(v.message))</p><table class=\"kv\">"
            h += "<tr><th>kind</th><td>\(esc(v.kind))</td></tr><tr><th>access</th><td>\(esc(v.access))</td></tr>"
            var owner = "queue '\(v.ownerQueue)'"
            if let c = v.contextName { owner = "context '\(c)' on " + owner }
            h += "<tr><th>owned by</th><td>\(esc(owner))</td></tr>"
            h += "<tr><th>touched from</th><td>\(esc("queue '\(v.queue)', thread \(v.thread)"))</td></tr>"
            h += "<tr><th>count</th><td>\(v.count) (first at \(fmt0(v.firstMs)) ms)</td></tr>"
            h += "<tr><th>fix</th><td>\(esc(v.fixHint))</td></tr></table>"
            h += stackList(v.stack, emptyText: "(no stack)")
            h += "</div>"
        }
        return h
    }

    static func stackList(_ frames: [ScenarioResult.Frame], emptyText: String) -> String {
        guard !frames.isEmpty else { return "<p class=\"note\">\(esc(emptyText))</p>" }
        var h = "<ol class=\"stack\" start=\"0\">"
        for f in frames.prefix(40) {
            let app = ["SurfJournal.", "Replay.", "ManagedContext.", "ConcurrencyDebug."].contains { SymbolName.stripped(f.function).hasPrefix($0) }
            h += "<li\(app ? " class=\"app\"" : "")><code>\(esc(HangSymbolicationName.short(f.function)))</code>"
            if let file = f.file {
                h += " <span class=\"loc\">\(esc((file as NSString).lastPathComponent))\(f.line.map { ":\($0)" } ?? "")</span>"
            }
            if let m = f.module { h += " <span class=\"mod\">\(esc(m))</span>" }
            h += "</li>"
        }
        if frames.count > 40 { h += "<li class=\"note\">… \(frames.count - 40) more</li>" }
        h += "</ol>"
        return h
    }

    // MARK: Charts

    struct Plot {
        var width = 960.0, height = 260.0
        var left = 56.0, right = 16.0, top = 14.0, bottom = 34.0
        var innerW: Double { width - left - right }
        var innerH: Double { height - top - bottom }
    }

    /// Frame latency (log scale) against time, with the scenario's spans shaded
    /// and hangs marked.
    static func frameChart(_ r: ScenarioResult, index: Int, frameMs: Double) -> String {
        let p = Plot()
        let t = r.timeline ?? Timeline()
        let durationMs = max(r.durationSeconds * 1000, t.frameStartMs.last ?? 0, (r.hangs.map { $0.startMs + $0.durationMs }.max() ?? 0), 1)
        let maxLatency = max(t.frameLatencyMs.max() ?? 0, r.frames.latencyMs.max, frameMs * 3)
        let yLo = 0.1, yHi = pow(10, ceil(log10(maxLatency)))
        func x(_ ms: Double) -> Double { p.left + min(max(ms, 0), durationMs) / durationMs * p.innerW }
        func y(_ ms: Double) -> Double {
            let v = min(max(ms, yLo), yHi)
            return p.top + p.innerH * (1 - (log10(v) - log10(yLo)) / (log10(yHi) - log10(yLo)))
        }
        var h = svgOpen(p, cls: "chart frame-chart", label: "Frame latency over time, \(r.name)")
        // Spans of the scenario's work.
        for span in t.spans {
            let x0 = x(span.startMs), x1 = max(x(span.endMs), x0 + 1.5)
            h += "<rect class=\"span span-\(esc(span.kind))\" x=\"\(f1(x0))\" y=\"\(f1(p.top))\" width=\"\(f1(x1 - x0))\" height=\"\(f1(p.innerH))\">"
            h += "<title>\(esc(span.label)): \(fmt0(span.startMs))–\(fmt0(span.endMs)) ms</title></rect>"
        }
        // Axes and grid.
        var decade = yLo
        while decade <= yHi * 1.0001 {
            h += "<line class=\"grid\" x1=\"\(f1(p.left))\" x2=\"\(f1(p.width - p.right))\" y1=\"\(f1(y(decade)))\" y2=\"\(f1(y(decade)))\"/>"
            h += "<text class=\"tick\" x=\"\(f1(p.left - 6))\" y=\"\(f1(y(decade) + 4))\" text-anchor=\"end\">\(tickText(decade))</text>"
            decade *= 10
        }
        for tick in niceTicks(durationMs) {
            h += "<text class=\"tick\" x=\"\(f1(x(tick)))\" y=\"\(f1(p.height - p.bottom + 16))\" text-anchor=\"middle\">\(fmtTime(tick))</text>"
        }
        h += "<text class=\"axis\" x=\"\(f1(p.left + p.innerW / 2))\" y=\"\(f1(p.height - 2))\" text-anchor=\"middle\">time in run</text>"
        h += "<text class=\"axis\" transform=\"translate(12 \(f1(p.top + p.innerH / 2))) rotate(-90)\" text-anchor=\"middle\">late (ms, log)</text>"
        h += "<line class=\"hitchline\" x1=\"\(f1(p.left))\" x2=\"\(f1(p.width - p.right))\" y1=\"\(f1(y(frameMs)))\" y2=\"\(f1(y(frameMs)))\"><title>one frame interval: later is a hitch</title></line>"
        h += frameMarks(t, plot: p, x: x, y: y, index: index, frameMs: frameMs)
        // Hangs: a red band on top, and a marker.
        for (i, hang) in r.hangs.enumerated() {
            let x0 = x(hang.startMs), x1 = max(x(hang.startMs + hang.durationMs), x0 + 2)
            h += "<g class=\"hang-mark\"><rect x=\"\(f1(x0))\" y=\"\(f1(p.top))\" width=\"\(f1(x1 - x0))\" height=\"6\"/>"
            h += "<path d=\"M\(f1(x0 - 5)) \(f1(p.top - 8))L\(f1(x0 + 5)) \(f1(p.top - 8))L\(f1(x0)) \(f1(p.top))Z\"/>"
            h += "<text x=\"\(f1(x0 + 7))\" y=\"\(f1(p.top + 18))\">hang \(i + 1): \(fmt0(hang.durationMs)) ms</text>"
            h += "<title>hang \(i + 1): '\(esc(hang.label))' \(fmt0(hang.durationMs)) ms from \(fmt0(hang.startMs)) ms</title></g>"
        }
        h += "<rect class=\"frame\" x=\"\(f1(p.left))\" y=\"\(f1(p.top))\" width=\"\(f1(p.innerW))\" height=\"\(f1(p.innerH))\"/>"
        h += "</svg>"
        h += frameLegend(r, index: index)
        return h
    }

    /// The frames: one stem per pixel column (the latest frame of the column), and
    /// a dot on each hitch.
    static func frameMarks(
        _ t: Timeline, plot p: Plot, x: (Double) -> Double, y: (Double) -> Double, index: Int, frameMs: Double
    ) -> String {
        var h = ""
        let n = min(t.frameStartMs.count, t.frameLatencyMs.count)
        if n > 0 {
            var columns: [Int: (Double, Double)] = [:]
            var order: [Int] = []
            for i in 0..<n {
                let col = Int((x(t.frameStartMs[i]) - p.left) / p.innerW * Double(maxPoints))
                if let c = columns[col] {
                    if t.frameLatencyMs[i] > c.1 { columns[col] = (t.frameStartMs[i], t.frameLatencyMs[i]) }
                } else {
                    columns[col] = (t.frameStartMs[i], t.frameLatencyMs[i])
                    order.append(col)
                }
            }
            // A stem per frame, from the axis up to its lateness, at the time it started.
            var d = ""
            let bottom = f1(p.top + p.innerH)
            for col in order {
                let (ms, late) = columns[col]!
                d += "M\(f1(x(ms))) \(bottom)V\(f1(y(late)))"
            }
            h += "<path class=\"series stems\" style=\"stroke:\(color(index))\" d=\"\(d)\"/>"
            var dots = 0
            for col in order {
                let (ms, late) = columns[col]!
                guard late > frameMs, dots < 400 else { continue }
                dots += 1
                h += "<circle class=\"hitch\" cx=\"\(f1(x(ms)))\" cy=\"\(f1(y(late)))\" r=\"2.5\"><title>frame \(fmt1(late)) ms late at \(fmt0(ms)) ms</title></circle>"
            }
        } else {
            h += "<text class=\"tick\" x=\"\(f1(p.left + 10))\" y=\"\(f1(p.top + 20))\">no frames</text>"
        }
        return h
    }

    static func frameLegend(_ r: ScenarioResult, index: Int) -> String {
        let t = r.timeline ?? Timeline()
        var h = ""
        let kinds = Array(Set(t.spans.map(\.kind))).sorted()
        h += "<p class=\"legend\"><span class=\"key\" style=\"background:\(color(index))\"></span>frame lateness "
        h += "<span class=\"key dot\"></span>hitch (more than one frame late) "
        for k in kinds { h += "<span class=\"key span-\(esc(k))\"></span>\(esc(k)) running " }
        if !r.hangs.isEmpty { h += "<span class=\"key hangkey\"></span>hang" }
        h += "</p>"
        return h
    }

    /// The latency distribution of every scenario: a CDF on a log x axis.
    static func cdfChart(_ scenarios: [ScenarioResult], frameMs: Double) -> String {
        let p = Plot(height: 300)
        let all = scenarios.flatMap { $0.timeline?.frameLatencyMs ?? [] }
        let xLo = 0.01, xHi = pow(10, ceil(log10(max(all.max() ?? 1, frameMs * 3))))
        func x(_ ms: Double) -> Double {
            let v = min(max(ms, xLo), xHi)
            return p.left + (log10(v) - log10(xLo)) / (log10(xHi) - log10(xLo)) * p.innerW
        }
        func y(_ f: Double) -> Double { p.top + (1 - f) * p.innerH }
        var h = svgOpen(p, cls: "chart cdf-chart", label: "Frame latency distribution, all scenarios")
        for f in stride(from: 0.0, through: 1.0, by: 0.25) {
            h += "<line class=\"grid\" x1=\"\(f1(p.left))\" x2=\"\(f1(p.width - p.right))\" y1=\"\(f1(y(f)))\" y2=\"\(f1(y(f)))\"/>"
            h += "<text class=\"tick\" x=\"\(f1(p.left - 6))\" y=\"\(f1(y(f) + 4))\" text-anchor=\"end\">\(Int(f * 100))%</text>"
        }
        var decade = xLo
        while decade <= xHi * 1.0001 {
            h += "<line class=\"grid\" x1=\"\(f1(x(decade)))\" x2=\"\(f1(x(decade)))\" y1=\"\(f1(p.top))\" y2=\"\(f1(p.top + p.innerH))\"/>"
            h += "<text class=\"tick\" x=\"\(f1(x(decade)))\" y=\"\(f1(p.height - p.bottom + 16))\" text-anchor=\"middle\">\(tickText(decade))</text>"
            decade *= 10
        }
        h += "<text class=\"axis\" x=\"\(f1(p.left + p.innerW / 2))\" y=\"\(f1(p.height - 2))\" text-anchor=\"middle\">frame started late by (ms, log)</text>"
        h += "<line class=\"hitchline\" x1=\"\(f1(x(frameMs)))\" x2=\"\(f1(x(frameMs)))\" y1=\"\(f1(p.top))\" y2=\"\(f1(p.top + p.innerH))\"><title>one frame interval</title></line>"
        for (i, r) in scenarios.enumerated() {
            let sorted = (r.timeline?.frameLatencyMs ?? []).sorted()
            guard !sorted.isEmpty else { continue }
            let step = max(1, sorted.count / maxPoints)
            var d = "M\(f1(x(sorted[0]))) \(f1(y(0)))"
            var k = 0
            while k < sorted.count {
                let frac = Double(k + 1) / Double(sorted.count)
                d += "L\(f1(x(sorted[k]))) \(f1(y(frac)))"
                k += step
            }
            d += "L\(f1(x(sorted.last!))) \(f1(y(1)))"
            h += "<path class=\"series\" style=\"stroke:\(color(i))\" d=\"\(d)\"><title>\(esc(r.name))</title></path>"
        }
        h += "<rect class=\"frame\" x=\"\(f1(p.left))\" y=\"\(f1(p.top))\" width=\"\(f1(p.innerW))\" height=\"\(f1(p.innerH))\"/>"
        h += "</svg><p class=\"legend\">"
        for (i, r) in scenarios.enumerated() { h += "<span class=\"key\" style=\"background:\(color(i))\"></span>\(esc(r.name)) " }
        h += "</p>"
        return h
    }

    /// Hitch time ratio per scenario, as bars over Apple's bands.
    static func hitchChart(_ scenarios: [ScenarioResult]) -> String {
        let rowH = 30.0
        let p = Plot(height: 66 + rowH * Double(max(1, scenarios.count)), left: 150)
        let maxRatio = scenarios.map(\.frames.hitchRatioMsPerSecond).max() ?? 0
        // Linear up to 60 ms/s; beyond, a log scale (log(1 + v)) keeps the bands readable.
        let symlog = maxRatio > 60
        let xHi = symlog ? pow(10, ceil(log10(maxRatio * 1.05))) : 60
        func x(_ v: Double) -> Double {
            let c = min(max(v, 0), xHi)
            return p.left + (symlog ? log10(1 + c) / log10(1 + xHi) : c / xHi) * p.innerW
        }
        var h = svgOpen(p, cls: "chart hitch-chart", label: "Hitch time ratio per scenario")
        let bands: [(String, Double, Double)] = [("good", 0, 10), ("warning", 10, 25), ("critical", 25, 50), ("worse", 50, xHi)]
        for (name, lo, hi) in bands where lo < xHi {
            h += "<rect class=\"band band-\(name)\" x=\"\(f1(x(lo)))\" y=\"\(f1(p.top))\" width=\"\(f1(x(min(hi, xHi)) - x(lo)))\" height=\"\(f1(p.innerH))\"><title>\(name)</title></rect>"
            h += "<text class=\"bandname\" x=\"\(f1((x(lo) + x(min(hi, xHi))) / 2))\" y=\"\(f1(p.top + 11))\" text-anchor=\"middle\">\(name)</text>"
        }
        let ticks: [Double] = symlog ? [0, 5, 10, 25, 50] + Array(sequence(first: 100.0) { $0 * 10 }.prefix { $0 <= xHi }) : [0, 5, 10, 25, 50, 60]
        for tick in ticks where tick <= xHi {
            h += "<text class=\"tick\" x=\"\(f1(x(tick)))\" y=\"\(f1(p.height - p.bottom + 16))\" text-anchor=\"middle\">\(fmt0(tick))</text>"
        }
        h += "<text class=\"axis\" x=\"\(f1(p.left + p.innerW / 2))\" y=\"\(f1(p.height - 2))\" text-anchor=\"middle\">hitch time ratio (ms/s\(symlog ? ", log scale" : ""))</text>"
        for (i, r) in scenarios.enumerated() {
            let v = r.frames.hitchRatioMsPerSecond
            let yy = p.top + 16 + Double(i) * rowH
            h += "<text class=\"rowlabel\" x=\"\(f1(p.left - 8))\" y=\"\(f1(yy + rowH / 2))\" text-anchor=\"end\">\(esc(r.name))</text>"
            h += "<rect class=\"bar\" style=\"fill:\(color(i))\" x=\"\(f1(x(0)))\" y=\"\(f1(yy + 4))\" width=\"\(f1(max(1, x(v) - x(0))))\" height=\"\(f1(rowH - 10))\">"
            h += "<title>\(esc(r.name)): \(fmt1(v)) ms/s (\(esc(r.frames.hitchBand)))</title></rect>"
            let label = "\(fmt1(v)) ms/s · \(esc(r.frames.hitchBand))"
            if x(v) + 150 > p.width - p.right {
                h += "<text class=\"value inside\" x=\"\(f1(x(v) - 6))\" y=\"\(f1(yy + rowH / 2 + 1))\" text-anchor=\"end\">\(label)</text>"
            } else {
                h += "<text class=\"value\" x=\"\(f1(x(v) + 6))\" y=\"\(f1(yy + rowH / 2 + 1))\">\(label)</text>"
            }
        }
        h += "<line class=\"aimline\" x1=\"\(f1(x(5)))\" x2=\"\(f1(x(5)))\" y1=\"\(f1(p.top))\" y2=\"\(f1(p.top + p.innerH))\"><title>WWDC aim: 5 ms/s or less</title></line>"
        h += "<rect class=\"frame\" x=\"\(f1(p.left))\" y=\"\(f1(p.top))\" width=\"\(f1(p.innerW))\" height=\"\(f1(p.innerH))\"/>"
        h += "</svg>"
        return h
    }

    // MARK: Helpers

    static func svgOpen(_ p: Plot, cls: String, label: String) -> String {
        "<svg class=\"\(cls)\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(f1(p.width)) \(f1(p.height))\" role=\"img\" aria-label=\"\(esc(label))\">"
    }

    /// Escapes text for HTML content and attribute values (`Escape.html`).
    public static func esc(_ s: String) -> String { Escape.html(s) }

    static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"]
    static func color(_ i: Int) -> String { palette[i % palette.count] }

    static func f1(_ x: Double) -> String { String(format: "%.1f", x) }
    static func fmt0(_ x: Double) -> String { String(format: "%.0f", x) }
    static func fmt1(_ x: Double) -> String { String(format: "%.1f", x) }

    static func tickText(_ v: Double) -> String {
        v >= 1 ? String(format: "%.0f", v) : String(format: "%g", v)
    }

    static func fmtTime(_ ms: Double) -> String {
        ms >= 1000 || ms == 0 ? String(format: "%g s", (ms / 1000 * 100).rounded() / 100) : String(format: "%.0f ms", ms)
    }

    /// About six round ticks from 0 to `maxValue`.
    static func niceTicks(_ maxValue: Double) -> [Double] {
        guard maxValue > 0 else { return [0] }
        let raw = maxValue / 6
        let magnitude = pow(10, floor(log10(raw)))
        let step = [1.0, 2, 2.5, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? raw
        return Array(stride(from: 0, through: maxValue, by: step))
    }

    static let css = """
        body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
        header,main,footer{max-width:1000px;margin:0 auto;padding:0 20px}
        header{padding-top:18px}h1{margin:0 0 4px;font-size:24px}h2{font-size:19px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
        h3{font-size:15px;margin:18px 0 6px}.sub,.note{color:#555}.ok{color:#2a7a2a}.error{color:#b00}
        svg.chart{width:100%;height:auto;background:#fff;border:1px solid #e3e3e3;border-radius:4px;display:block}
        .grid line,line.grid{stroke:#eee}.tick{font-size:11px;fill:#666}.axis{font-size:12px;fill:#444}
        .series{fill:none;stroke-width:1.4}.hitch{fill:#d62728;fill-opacity:.75}
        .hitchline{stroke:#888;stroke-dasharray:4 3}.aimline{stroke:#222;stroke-dasharray:5 3;stroke-width:1.5}
        rect.frame{fill:none;stroke:#ccc}.span{fill-opacity:.16}.span-export{fill:#1f77b4;background:#1f77b4}
        .span-search{fill:#9467bd;background:#9467bd}.span-sync{fill:#2ca02c;background:#2ca02c}
        .hang-mark rect,.hang-mark path{fill:#c00}.hang-mark text{font-size:11px;fill:#c00;font-weight:600}
        .band{fill-opacity:.22}.band-good{fill:#34c759}.band-warning{fill:#ffcc00}.band-critical{fill:#ff9500}.band-worse{fill:#ff3b30}
        td.band-good{background:#e3f7e8}td.band-warning{background:#fff6cc}td.band-critical{background:#ffe8cc}td.band-worse{background:#ffe0de}
        .bandname{font-size:10px;fill:#555}.rowlabel,.value{font-size:12px;fill:#222}.value.inside{fill:#fff;font-weight:600}
        .stems{stroke-width:1.6;stroke-opacity:.85}
        .legend{font-size:12px;color:#444;margin:4px 0 0}.key{display:inline-block;width:14px;height:10px;margin:0 4px 0 10px;vertical-align:middle;opacity:.9}
        .key.dot{background:#d62728;border-radius:50%;width:8px;height:8px}.key.hangkey{background:#c00}.key.span-export,.key.span-search,.key.span-sync{opacity:.3}
        .swatch{display:inline-block;width:12px;height:12px;margin-right:8px;border-radius:2px}
        table{border-collapse:collapse;background:#fff}table.grid td,table.grid th{border:1px solid #e3e3e3;padding:3px 8px;text-align:right}
        table.grid th:first-child,table.grid td:first-child{text-align:left}table.kv th{text-align:left;padding:2px 12px 2px 0;color:#555;font-weight:500}
        .hang,.violation{background:#fff;border:1px solid #eed;border-left:4px solid #c00;padding:6px 12px;margin:8px 0}
        .violation .headline{font-weight:600;color:#900}ol.stack{font-size:12px;margin:4px 0;padding-left:34px;color:#777}ol.stack li.app{color:#111}
        code{font:12px ui-monospace,Menlo,Consolas,monospace}.loc{color:#36c}.mod{color:#999;font-size:11px}
        table.cells td{padding:2px 10px;border-bottom:1px solid #eee}.stars{color:#e6a700}
        footer{margin-top:30px;padding-bottom:30px;font-size:13px}
        """
}
