import Foundation
import ManagedContext
import SurfJournal

/// What a child export prints on standard output.
struct ChildExportResult: Codable {
    var rows: Int
    var bytes: Int
    var seconds: Double
}

/// Items 2, 4 and the slowdown half of item 3: the CSV export, each run in a child
/// process of the same binary (or of its ThreadSanitizer build) so that each level
/// is read from the environment at start, as a user would set it.
enum ExportBench {
    /// The child: exports `store` to `output` on a background context, as
    /// `ctxdebug export` does, and prints a `ChildExportResult`.
    static func child(store: String, output: String) throws {
        let container = try SurfJournal.openContainer(at: URL(fileURLWithPath: store), readOnly: true)
        let context = container.newBackgroundContext()
        context.name = "export"
        let url = URL(fileURLWithPath: output)
        let result: Result<ExportResult, any Error> = context.performAndWait {
            Result { try CSVExport.exportJournal(from: context, to: url) }
        }
        let r = try result.get()
        let data = try JSONEncoder().encode(ChildExportResult(rows: r.rows, bytes: r.bytes, seconds: r.seconds))
        FileHandle.standardOutput.write(data)
    }

    struct Run {
        var result: ChildExportResult
        var wallSeconds: Double
    }

    static func exportOnce(binary: String, store: URL, work: URL, environment: [String: String]) throws -> Run {
        let output = work.appendingPathComponent("export-\(UUID().uuidString.prefix(6)).csv")
        defer { try? FileManager.default.removeItem(at: output) }
        let run = try BenchSupport.run(
            binary, ["bench", "--child", "export", "--store", store.path, "--child-output", output.path],
            environment: environment, work: work)
        guard run.status == 0, !run.signaled, let result = try? JSONDecoder().decode(ChildExportResult.self, from: run.standardOutput) else {
            throw BenchError("The export child (\(binary)) failed with status \(run.status)\(run.signaled ? " (signal)" : ""): \(run.standardError.suffix(2_000))")
        }
        return Run(result: result, wallSeconds: run.seconds)
    }

    /// Items 2 and 4, from the same alternated runs.
    static func run(store: URL, entries: Int, repetitions: Int, work: URL) throws -> [BenchItem] {
        let binary = BenchSupport.selfExecutable
        let sqlite = BenchSupport.which("sqlite3")
        let journal = work.appendingPathComponent("export.journal")
        var seconds: [Int: [Double]] = [0: [], 1: [], 3: []]
        var wall: [Int: [Double]] = [0: [], 1: [], 3: []]
        var sqliteWall: [Double] = []
        var journalBytesPerRow: [Double] = []
        var rows = 0
        let query = "SELECT ZDATE, ZHEIGHT, ZPERIOD, ZWIND, ZLOCATION, ZRATING FROM ZJOURNALENTRY ORDER BY ZDATE DESC"
        for _ in 0..<repetitions {
            for level in [0, 1, 3] {
                var env = ["CTXDEBUG_CONCURRENCY": "\(level)"]
                if level == 3 {
                    try? FileManager.default.removeItem(at: journal)
                    env["CTXDEBUG_JOURNAL"] = journal.path
                }
                let run = try exportOnce(binary: binary, store: store, work: work, environment: env)
                rows = run.result.rows
                seconds[level]!.append(run.result.seconds)
                wall[level]!.append(run.wallSeconds)
                if level == 3 {
                    journalBytesPerRow.append(Double(BenchSupport.fileSize(journal.path)) / Double(max(1, rows)))
                    try? FileManager.default.removeItem(at: journal)
                }
            }
            if let sqlite {
                let out = work.appendingPathComponent("sqlite.csv")
                // The shell's output goes to a file, as the export's does.
                let run = try BenchSupport.run("/bin/sh", ["-c", "\"$0\" -csv \"$1\" \"$2\" > \"$3\"", sqlite, store.path, query, out.path], work: work)
                try? FileManager.default.removeItem(at: out)
                guard run.status == 0 else { throw BenchError("sqlite3 failed with status \(run.status): \(run.standardError.suffix(1_000))") }
                sqliteWall.append(run.seconds)
            }
        }
        guard rows == entries else {
            throw BenchError("The export wrote \(rows) rows, but the store should hold \(entries). Delete \(store.path) and run again: it is seeded afresh.")
        }
        let r = Double(rows)
        func ratio(_ a: [Double], _ b: [Double]) -> [Double] { zip(a, b).map { $0 / $1 } }
        let l1 = BenchFigure("level 1 ÷ off (export time)", unit: "×", samples: ratio(seconds[1]!, seconds[0]!))
        let l3 = BenchFigure("level 3 ÷ off (export time)", unit: "×", samples: ratio(seconds[3]!, seconds[0]!))
        let l1Percent = (l1.median - 1) * 100
        let exportItem = BenchItem(
            id: "2", title: "The export workload",
            setup: [
                "`CSVExport.exportJournal` of all \(rows.formattedCount) entries on a background context (as `ctxdebug export`), each run in a child process of this binary with `CTXDEBUG_CONCURRENCY` = 0, 1 and 3 (level 3 journals to a temporary file). \(repetitions) rounds, the levels alternated in each; ratios taken per round.",
                "Export time is measured inside the child (fetch and CSV writing, not process start or store opening).",
            ],
            figures: [
                BenchFigure("export, checking off", unit: "s", samples: seconds[0]!),
                BenchFigure("export, level 1", unit: "s", samples: seconds[1]!),
                BenchFigure("export, level 3", unit: "s", samples: seconds[3]!),
                l1, l3,
                BenchFigure("journal written at level 3, per row", unit: "bytes", samples: journalBytesPerRow),
            ],
            targets: [
                BenchTarget(what: "the export workload at level 1", target: "≤ 2% slower than off", measured: String(format: "%+.1f%%", l1Percent), met: l1Percent <= 2)
            ],
            detections: nil, skipped: nil,
            notes: ["The spread of single runs on this shared machine is wider than the 2% target; read the median ratio together with its min–max."])

        let ctxRate = wall[1]!.map { r / $0 }
        var figures = [
            BenchFigure("ctxdebug export, level 1 (whole process)", unit: "rows/s", samples: ctxRate),
            BenchFigure("ctxdebug export, checking off (whole process)", unit: "rows/s", samples: wall[0]!.map { r / $0 }),
            BenchFigure("ctxdebug export, level 1 (export only, in process)", unit: "rows/s", samples: seconds[1]!.map { r / $0 }),
        ]
        var targets: [BenchTarget] = []
        var skipped: String?
        if sqlite != nil {
            let sqliteRate = sqliteWall.map { r / $0 }
            figures.append(BenchFigure("sqlite3 -csv (whole process)", unit: "rows/s", samples: sqliteRate))
            let share = BenchFigure("ctxdebug level 1 ÷ sqlite3", unit: "×", samples: ratio(ctxRate, sqliteRate))
            figures.append(share)
            targets.append(
                BenchTarget(
                    what: "CSV export, checking on", target: "≥ 50% of sqlite3's rows/s",
                    measured: String(format: "%.0f%%", share.median * 100) + " (\(figures[0].median.benchFormatted) against \(figures[3].median.benchFormatted) rows/s)",
                    met: share.median >= 0.5))
        } else {
            skipped = "sqlite3 is not installed (Scripts/bootstrap installs it): no comparison."
        }
        let throughputItem = BenchItem(
            id: "4", title: "Export throughput against sqlite3",
            setup: [
                "The same store and the same runs as item 2, with `sqlite3 -csv STORE \"\(query)\" > FILE` after each round's ctxdebug runs. Rates are rows ÷ the child process's wall time, start to exit, for both tools.",
            ],
            figures: figures, targets: targets, detections: nil, skipped: skipped,
            notes: [
                "sqlite3 writes the raw columns (dates as seconds since 2001); ctxdebug walks the runtime (a sorted ID fetch, a `Z_PK IN (...)` query per batch of 1,000, one object materialized per row, every attribute read checked) and formats ISO 8601 dates and RFC 4180 fields."
            ])
        return [exportItem, throughputItem]
    }

    /// The slowdown half of item 3: the same export built with -sanitize=thread,
    /// against this (plain) build, both with checking off, alternated.
    static func threadSanitizerSlowdown(tsanBinary: String, store: URL, repetitions: Int, work: URL) throws -> (figures: [BenchFigure], rows: Int) {
        var plain: [Double] = [], tsan: [Double] = []
        var rows = 0
        for _ in 0..<repetitions {
            let a = try exportOnce(binary: BenchSupport.selfExecutable, store: store, work: work, environment: ["CTXDEBUG_CONCURRENCY": "0"])
            let b = try exportOnce(
                binary: tsanBinary, store: store, work: work,
                environment: ["CTXDEBUG_CONCURRENCY": "0", "TSAN_OPTIONS": "report_bugs=0"])
            plain.append(a.result.seconds)
            tsan.append(b.result.seconds)
            rows = a.result.rows
        }
        return (
            [
                BenchFigure("export, plain release build", unit: "s", samples: plain),
                BenchFigure("export, -sanitize=thread release build", unit: "s", samples: tsan),
                BenchFigure("ThreadSanitizer ÷ plain", unit: "×", samples: zip(tsan, plain).map { $0 / $1 }),
            ], rows
        )
    }
}
