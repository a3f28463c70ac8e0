import ArgumentParser
import Foundation
import ManagedContext
import SurfJournal

/// `ctxdebug bench`: the checker's cost against ThreadSanitizer, the export against
/// sqlite3, the UI against its baseline. Every figure is a ratio or a difference
/// taken side by side in one run, the median of several repetitions with its spread.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ctxdebug bench",
        abstract: "Measure what checking costs, side by side: per access, the export, ThreadSanitizer, sqlite3, the UI, journal reading, lint.",
        discussion: """
            Items: 1 per-access cost (plain property, managed attribute at levels 0, 1, 3; \
            journal bytes per event); 2 the export at levels 0, 1, 3; 3 ThreadSanitizer \
            (slowdown with --tsan-binary, and which tool reports each seeded bug); 4 the \
            export against `sqlite3 -csv`; 5 stack capture, libunwind against Swift's \
            Backtrace; 6 export-background against baseline in the replay; 7 reading a \
            large journal; 8 `ctxdebug lint` on a generated tree of 500,000 lines (--lint-only runs it alone); 9 \
            block cost: an empty performAndWait and perform block at levels 0, 1, 2 against plain \
            DispatchQueue.sync and async; 10 `explore` in process: schedules a second of a \
            3-context test, and one scheduling point; 11 a fetch with NSPredicate(format:) against \
            the same fetch with the typed predicate; 12 loading a 50-entity Xcode model from its XML \
            (NSManagedObjectModel(contentsOf:)); 13 value(forKey:) and setValue(_:forKey:) against the typed \
            accessors of the same attribute; 14 `ctxdebug port` on item 8's tree; 15 a save with a \
            uniqueness constraint against one without, per row; 16 a history-tracked save against an \
            untracked one, per row; 17 migrating a store of 100,000 rows: in place by SQL and through \
            NSMigrationManager (inferred, and with a splitting policy), beside writing the same rows fresh. --only runs the items listed. Each target of the map is marked met or missed.

            Stores given with --store and --ui-store are seeded when missing and reused \
            after. Scripts/bench builds the release and ThreadSanitizer binaries, runs \
            this at full size and writes docs/benchmarks.md. --quick runs every item at \
            a small size (under a minute even in a debug build); its figures are only \
            good for checking that the benchmark still works.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Flag(help: "Small sizes and few repetitions: checks that every item runs, figures not meaningful.")
    var quick = false

    @Flag(help: "Run item 8 (`ctxdebug lint`) only; no store is seeded.")
    var lintOnly = false

    @Option(help: ArgumentHelp("Run only the items listed, by number (for example --only 1,9).", valueName: "LIST"))
    var only: String?

    @Option(help: "Output format.")
    var format: Format = .text

    @Option(help: ArgumentHelp("Write the report to FILE instead of stdout.", valueName: "FILE"))
    var output: String?

    @Option(help: ArgumentHelp("Also write the report as Markdown tables to FILE (what docs/benchmarks.md holds).", valueName: "FILE"))
    var markdown: String?

    @Option(help: ArgumentHelp("Entries in the export store (items 1, 2, 4). Default: 1000000, or 5000 with --quick.", valueName: "N"))
    var entries: Int?

    @Option(help: ArgumentHelp("The export store; seeded with --entries when missing. Default: a temporary store.", valueName: "PATH"))
    var store: String?

    @Option(help: ArgumentHelp("Entries in the replay store (items 3, 6). Default: 200000, or 2000 with --quick.", valueName: "N"))
    var uiEntries: Int?

    @Option(help: ArgumentHelp("The replay store; seeded with --ui-entries when missing. Default: a temporary store.", valueName: "PATH"))
    var uiStore: String?

    @Option(help: ArgumentHelp("ctxdebug built with -sanitize=thread, with ctxdebug-bench built the same way next to it (Scripts/bench builds both in .build-tsan/release). Without it, item 3 has no ThreadSanitizer column.", valueName: "PATH"))
    var tsanBinary: String?

    @Option(help: ArgumentHelp("Repetitions of each measurement. Default: 3 (5 for the in-process items).", valueName: "N"))
    var repetitions: Int?

    @Option(help: .hidden) var child: String?
    @Option(help: .hidden) var program: String?
    @Option(help: .hidden) var childOutput: String?
    @Option(help: .hidden) var iterations: Int?

    func validate() throws {
        if let entries, entries < 1 || entries > 50_000_000 { throw ValidationError("--entries must be between 1 and 50000000 (got \(entries)).") }
        if let uiEntries, uiEntries < 1 || uiEntries > 50_000_000 { throw ValidationError("--ui-entries must be between 1 and 50000000 (got \(uiEntries)).") }
        if let only {
            let known = Set((1...17).map(String.init))
            let bad = Self.items(only).filter { !known.contains($0) }
            if !bad.isEmpty || Self.items(only).isEmpty {
                throw ValidationError("--only takes item numbers from 1 to 17, separated by commas (got \(only)).")
            }
        }
        if let repetitions, repetitions < 1 || repetitions > 100 { throw ValidationError("--repetitions must be between 1 and 100 (got \(repetitions)).") }
        if let tsanBinary {
            let bench = URL(fileURLWithPath: tsanBinary).deletingLastPathComponent().appendingPathComponent("ctxdebug-bench").path
            if access(tsanBinary, X_OK) != 0 || access(bench, X_OK) != 0 {
                throw ValidationError(
                    "--tsan-binary \(tsanBinary) needs ctxdebug and ctxdebug-bench built with ThreadSanitizer in one directory. Build them with: swift build --disable-build-manifest-caching -c release --sanitize=thread --scratch-path .build-tsan --product ctxdebug && swift build --disable-build-manifest-caching -c release --sanitize=thread --scratch-path .build-tsan --product ctxdebug-bench")
            }
        }
    }

    func run() throws {
        if let child { return try runChild(child) }
        let start = benchNow()
        let loadAtStart = BenchSupport.loadAverage()
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("ctxdebug-bench-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        var items: [BenchItem] = []
        if !["1", "2", "3", "4", "5", "6", "7", "9"].filter(wants).isEmpty { items = try measureRuntime(work: work) }
        if wants("8") {
            progress("8/17 ctxdebug lint")
            items.append(try LintBench.run(lines: quick ? 20_000 : 500_000, repetitions: repetitions ?? 3, work: work))
        }
        if wants("14") {
            progress("14/17 ctxdebug port")
            items.append(try PortBench.run(lines: quick ? 20_000 : 500_000, repetitions: repetitions ?? 3, work: work))
        }
        if wants("10") {
            progress("10/17 explore, in process")
            items.append(try ExploreBench.run(
                schedules: quick ? 20 : 400, blocks: quick ? 20 : 300, repetitions: repetitions ?? (quick ? 3 : 5), work: work))
        }
        if wants("11") {
            progress("11/17 NSPredicate(format:) against the typed predicate")
            items.append(try PredicateBench.run(
                entries: quick ? 2_000 : 20_000, fetchesPerSample: quick ? 5 : 40, repetitions: repetitions ?? (quick ? 3 : 7), work: work))
        }
        if wants("12") {
            progress("12/17 loading an Xcode model")
            items.append(try ModelLoadBench.run(loads: quick ? 5 : 100, repetitions: repetitions ?? (quick ? 3 : 5), work: work))
        }
        if wants("13") {
            progress("13/17 key-value access against typed access")
            items.append(try KeyValueBench.run(accesses: quick ? 20_000 : 2_000_000, repetitions: repetitions ?? (quick ? 3 : 7), work: work))
        }
        if wants("15") {
            progress("15/17 a save with a uniqueness constraint")
            items.append(try ConstraintSaveBench.run(rows: quick ? 2_000 : 20_000, repetitions: repetitions ?? (quick ? 3 : 5), work: work))
        }
        if wants("16") {
            progress("16/17 a history-tracked save against an untracked one")
            items.append(try HistoryBench.run(
                rowsPerSave: quick ? 50 : 500, saves: quick ? 4 : 20, repetitions: repetitions ?? (quick ? 3 : 7), work: work))
        }
        if wants("17") {
            progress("17/17 migrating a store")
            items.append(try MigrationBench.run(rows: quick ? 5_000 : 100_000, repetitions: repetitions ?? (quick ? 1 : 3), work: work))
        }
        items.sort { (Int($0.id) ?? 0) < (Int($1.id) ?? 0) }
        try write(items, start: start, loadAtStart: loadAtStart)
    }

    static func items(_ list: String) -> [String] {
        list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// Whether item `id` runs: every item, unless --only or --lint-only narrows them.
    func wants(_ id: String) -> Bool {
        if lintOnly { return id == "8" }
        guard let only else { return true }
        return Self.items(only).contains(id)
    }

    /// Items 1 to 7 and 9: the runtime's costs, on seeded stores.
    private func measureRuntime(work: URL) throws -> [BenchItem] {
        let exportEntries = entries ?? (quick ? 5_000 : 1_000_000)
        let replayEntries = uiEntries ?? (quick ? 2_000 : 200_000)
        let reps = repetitions ?? 3
        let inProcessReps = repetitions ?? (quick ? 3 : 5)
        let exportStore = try seededStore(store, entries: exportEntries, work: work, name: "export")
        // Seeded only for the items that read it (3 and 6); the second call reuses it.
        func replayStore() throws -> URL { try seededStore(uiStore, entries: replayEntries, work: work, name: "replay") }

        var items: [BenchItem] = []
        var journal: URL?
        if wants("1") || wants("7") {
            progress("1/17 per-access cost")
            let access: BenchItem
            (access, journal) = try AccessBench.run(
                storeURL: exportStore, iterations: quick ? 200_000 : 5_000_000, repetitions: inProcessReps, work: work,
                journalEvents: wants("7") ? (quick ? 1_000_000 : 40_000_000) : 0)
            if wants("1") { items.append(access) }
        }
        if wants("9") {
            progress("9/17 block cost")
            items.append(try BlockBench.run(storeURL: exportStore, calls: quick ? 20_000 : 140_000, repetitions: inProcessReps))
        }
        if wants("5") {
            progress("5/17 stack capture")
            items.append(StackBench.run(repetitions: inProcessReps, capturesPerSample: quick ? 50 : 300))
        }
        if wants("2") || wants("4") {
            progress("2/17 and 4/17 export, levels 0/1/3, and sqlite3")
            items += try ExportBench.run(store: exportStore, entries: exportEntries, repetitions: reps, work: work)
                .filter { wants($0.id) }
        }
        if wants("3") {
            progress("3/17 ThreadSanitizer")
            items.append(try threadSanitizerItem(replayStore: try replayStore(), replayEntries: replayEntries, reps: reps, work: work))
        }
        if wants("6") {
            progress("6/17 UI replay")
            items.append(try UIBench.run(store: try replayStore(), entries: replayEntries, duration: quick ? 0.5 : 3, repetitions: reps, work: work))
        }
        if let journal {
            progress("7/17 journal reading")
            items.append(try AccessJournalBench.run(journal: journal, repetitions: reps, work: work))
            try? FileManager.default.removeItem(at: journal)
        }
        return items
    }

    private func write(_ items: [BenchItem], start: UInt64, loadAtStart: Double) throws {
        var report = BenchReport(
            quick: quick, machine: BenchSupport.machine(quick: quick, loadAtStart: loadAtStart), items: items, wallSeconds: 0)
        report.wallSeconds = benchSeconds(since: start)
        let data: Data
        switch format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            data = try encoder.encode(report)
        case .text:
            data = Data(BenchRender.text(report).utf8)
        }
        if let output {
            try data.write(to: URL(fileURLWithPath: output), options: .atomic)
        } else {
            FileHandle.standardOutput.write(data)
            if format == .json { FileHandle.standardOutput.write(Data("\n".utf8)) }
        }
        if let markdown {
            try Data(BenchRender.markdown(report).utf8).write(to: URL(fileURLWithPath: markdown), options: .atomic)
        }
    }

    private func progress(_ what: String) {
        FileHandle.standardError.write(Data("ctxdebug bench: \(what)\n".utf8))
    }

    /// The store at `path` (seeded with `entries` when missing), or a temporary one.
    private func seededStore(_ path: String?, entries: Int, work: URL, name: String) throws -> URL {
        let url = path.map { URL(fileURLWithPath: $0) } ?? work.appendingPathComponent("\(name)-\(entries).sqlite")
        if !FileManager.default.fileExists(atPath: url.path) {
            progress("seeding \(entries) entries into \(url.path)")
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Seeder.seedIfFirstLaunch(seedURL: url, destination: url, count: entries)
        }
        return url
    }

    private func threadSanitizerItem(replayStore: URL, replayEntries: Int, reps: Int, work: URL) throws -> BenchItem {
        var figures: [BenchFigure] = []
        var setup: [String] = []
        var skipped: String?
        if let tsanBinary {
            let (slowdown, rows) = try ExportBench.threadSanitizerSlowdown(tsanBinary: tsanBinary, store: replayStore, repetitions: reps, work: work)
            figures = slowdown
            setup.append(
                "Slowdown: the export of item 2 on the replay store (\(rows.formattedCount) entries: the 1M store would take minutes per ThreadSanitizer run), checking off in both, this build against `\(tsanBinary)` (`swift build -c release --sanitize=thread`), alternated, \(reps) rounds; export time measured inside each child.")
        } else {
            skipped = "No --tsan-binary: the ThreadSanitizer slowdown and column were not measured (Scripts/bench builds one)."
        }
        let detections = try DetectionBench.run(
            tsanBinary: tsanBinary, replayStore: replayStore, replayEntries: replayEntries, replayDuration: quick ? 0.3 : 1, work: work)
        setup.append(
            "Detection: each case runs in its own child process, once under the ThreadSanitizer build with checking off (`CTXDEBUG_CONCURRENCY=0`, `TSAN_OPTIONS=halt_on_error=0`; reported = a `WARNING: ThreadSanitizer:` in a source file where the case's control, the same harness with no bug, gave no warning) and once under this build at level 1 (`CTXDEBUG_ON_VIOLATION=report`; reported = a violation in the JSON report or exit status 66). The seeded programs are the wrong patterns of `everyWrongPattern` (Tests/ManagedContextTests/ConcurrencyCheckTests.swift) on a SurfJournal store, run by `ctxdebug bench --child program --program NAME` (hidden), plus one overlapping race and a control with no bug.")
        let bugs = detections.filter(\.hasBug)
        let ctxCount = bugs.filter(\.ctxdebug).count
        if tsanBinary != nil {
            let tsanCount = bugs.filter { $0.threadSanitizer == true }.count
            figures.append(BenchFigure("bugs reported by ThreadSanitizer (of \(bugs.count))", unit: "count", samples: [Double(tsanCount)], signed: true))
        }
        figures.append(BenchFigure("bugs reported by ctxdebug level 1 (of \(bugs.count))", unit: "count", samples: [Double(ctxCount)], signed: true))
        let falseAlarms = detections.filter { !$0.hasBug && ($0.ctxdebug || $0.threadSanitizer == true) }
        return BenchItem(
            id: "3", title: "ThreadSanitizer",
            setup: setup, figures: figures, targets: [], detections: detections, skipped: skipped,
            notes: [
                "ThreadSanitizer reports data races: two accesses from different threads, at least one a write, with no happens-before between them. A managed object handed to another queue after its owner is done with it (through `sync`, `performAndWait` or `main.async`) is a queue-confinement violation but often not a race at that moment, so ThreadSanitizer is silent on it; ctxdebug checks the owning queue on every access and reports it whether or not the accesses overlap.",
                "A ThreadSanitizer report on a control (no bug) is a race in the harness or the runtime, not a seeded bug; it is listed as measured, and the same warning in a bug's run is not counted for that bug.",
            ] + (falseAlarms.isEmpty ? [] : ["Reports on controls: " + falseAlarms.map { "\($0.name): " + ($0.threadSanitizerWarnings.isEmpty ? "ctxdebug" : $0.threadSanitizerWarnings.joined(separator: "; ")) }.joined(separator: " | ")]))
    }

    private func runChild(_ kind: String) throws {
        switch kind {
        case "export":
            guard let store, let childOutput else { throw ValidationError("--child export needs --store and --child-output.") }
            try ExportBench.child(store: store, output: childOutput)
        case "main-queue-reads":
            guard let store, let childOutput, let iterations else {
                throw ValidationError("--child main-queue-reads needs --store, --child-output and --iterations.")
            }
            MainQueueReadBench.runChild(store: store, output: childOutput, iterations: iterations, repetitions: repetitions ?? 5)
        case "block-loop":
            // For profiling: `perf record ctxdebug-bench --child block-loop --program performAndWait:1 --iterations N --store S`.
            guard let program, let store, let iterations else { throw ValidationError("--child block-loop needs --program KIND:LEVEL, --store and --iterations.") }
            try BlockBench.loop(program, storeURL: URL(fileURLWithPath: store), calls: iterations)
        case "explore-one-core":
            guard let program, let childOutput else { throw ValidationError("--child explore-one-core needs --program SCHEDULES:BLOCKS:SEED and --child-output.") }
            try ExploreBench.runOneCoreChild(program: program, output: childOutput)
        case "program":
            guard let program, let childOutput else { throw ValidationError("--child program needs --program and --child-output.") }
            SeededProgram.runChild(program, work: childOutput)
        default:
            throw ValidationError("unknown --child \(kind)")
        }
    }
}
