import Foundation

/// Item 11: how fast `ctxdebug port` rewrites a large app's sources. The tree of item 8
/// (each file an `@objc(Name)` `NSManagedObject` subclass with `@NSManaged`
/// properties, a stack and view controllers), ported whole by a child process, start to
/// exit, into a fresh output folder each time (so every file is really written).
enum PortBench {
    static func run(lines target: Int, repetitions: Int, work: URL) throws -> BenchItem {
        let tree = work.appendingPathComponent("port-tree")
        let (files, lines) = try LintTree.write(lines: target, to: tree)
        // One run checked: every file written, each with its #sourceLocation and no @NSManaged left.
        let checkedOutput = work.appendingPathComponent("port-out-check")
        let checked = try BenchSupport.run(BenchSupport.selfExecutable, ["port", tree.path, "--output", checkedOutput.path], work: work)
        let sample = checkedOutput.appendingPathComponent("port-tree/Feature0/Screen0.ported.swift")
        guard checked.status == 0, let text = try? String(contentsOf: sample, encoding: .utf8), text.contains("#sourceLocation(file: "),
            !text.contains("@NSManaged"), checked.standardError.contains("\(files) sources ported")
        else {
            throw BenchError("`ctxdebug port` on the generated tree (\(files) files) did not port them all; status \(checked.status): \(checked.standardError.suffix(1_500))")
        }
        try? FileManager.default.removeItem(at: checkedOutput)
        var rates: [Double] = [], seconds: [Double] = [], bytesPerLine: [Double] = [], cpuRates: [Double] = []
        for i in 0..<repetitions {
            let output = work.appendingPathComponent("port-out-\(i)")
            let run = try MeasuredProcess.run(BenchSupport.selfExecutable, ["port", tree.path, "--output", output.path], work: work)
            guard run.status == 0 else { throw BenchError("`ctxdebug port` exited with \(run.status): \(run.standardError.suffix(1_500))") }
            try? FileManager.default.removeItem(at: output)
            seconds.append(run.seconds)
            rates.append(Double(lines) / run.seconds)
            bytesPerLine.append(Double(run.peakBytes) / Double(lines))
            cpuRates.append(Double(lines) / max(run.cpuSeconds, 1e-6))
        }
        let rate = BenchFigure("`ctxdebug port` (whole process)", unit: "lines/s", samples: rates)
        let cpuRate = BenchFigure("lines per CPU-second (user + system time)", unit: "lines/s", samples: cpuRates)
        let memory = BenchFigure("peak memory per line of input (VmHWM / lines)", unit: "bytes", samples: bytesPerLine)
        let worstMemory = bytesPerLine.max() ?? 0
        return BenchItem(
            id: "14", title: "Porting a model layer (ctxdebug port)",
            setup: [
                "Item 8's generated tree, \(files.formattedCount) Swift files, \(lines.formattedCount) lines in all, each with `@objc(Name)`, three `@NSManaged` properties and `@IBAction`s: `ctxdebug port TREE --output DIR` run once to check that every file is ported, then \(repetitions) times as a child process into a fresh DIR (the sources in the page cache), timed start to exit, its peak resident set (VmHWM) sampled every 2 ms.",
                "Files are ported on every core with `DispatchQueue.concurrentPerform`, one at a time per core: read, parsed only when it holds a word the port changes, rewritten, written; no syntax tree outlives its file.",
            ],
            figures: [BenchFigure("wall time", unit: "s", samples: seconds), rate, cpuRate, memory],
            targets: [
                BenchTarget(what: "`ctxdebug port`", target: "≥ 100k lines/s", measured: "\((rate.median / 1e3).benchFormatted)k lines/s", met: rate.median >= 100_000),
                BenchTarget(
                    what: "`ctxdebug port` peak memory", target: "≤ 1 KB per line of input",
                    measured: "\((worstMemory / 1024).benchFormatted) KB per line (the largest of \(repetitions) runs)", met: worstMemory <= 1024),
            ],
            detections: nil, skipped: nil, notes: [])
    }
}
