@_exported public import ReplayModel
import ConcurrencyDebug
import CoreData
import Foundation
import ManagedContext
import SurfJournal

/// Runs replays: prepares the store, runs each scenario on a fresh copy of it,
/// and gathers the figures into a `ReplayReport`.
public enum Replayer {
    /// Runs `options`. Call it off the main queue, while the main queue is
    /// serviced (`dispatchMain()` or a run loop): the replay measures the real one.
    public static func run(_ options: ReplayOptions) throws -> ReplayReport {
        guard options.fps >= 1 && options.fps <= 1_000 else { throw ReplayError(.invalidOptions, "The frame rate must be between 1 and 1000 frames per second (got \(options.fps)).") }
        guard options.duration > 0 && options.duration <= 3_600 else { throw ReplayError(.invalidOptions, "The duration must be more than 0 and at most 3600 seconds (got \(options.duration)).") }
        guard options.hangThresholdMs >= 10 else { throw ReplayError(.invalidOptions, "The hang threshold must be at least 10 ms (got \(options.hangThresholdMs)).") }
        guard options.entries >= 0 else { throw ReplayError(.invalidOptions, "The number of entries must be 0 or more (got \(options.entries)).") }

        let source = try prepareStore(options)
        let scratch = options.workDirectory.appendingPathComponent("ctxdebug-replay-\(getpid())-\(UUID().uuidString.prefix(6))")
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        } catch {
            throw ReplayError(.cannotWrite, "Cannot create a working directory in \(options.workDirectory.path): \(error.localizedDescription). Set TMPDIR to a writable directory.")
        }
        defer { try? FileManager.default.removeItem(at: scratch) }

        let runs: [(name: String, summary: String, workload: Workload)] =
            if let workload = options.workload {
                [(workload.name, "workload file", workload)]
            } else {
                options.scenarios.map { ($0.rawValue, $0.summary, Workload.builtIn($0)) }
            }
        let runCount = runs.count
        var results: [ScenarioResult] = []
        for (i, run) in runs.enumerated() {
            let working = scratch.appendingPathComponent("\(i)-SurfJournal.sqlite")
            do {
                try PersistentContainer.seedStoreIfNeeded(from: source, to: working)
            } catch {
                throw ReplayError(.cannotWrite, "Cannot copy the store \(source.path) to \(working.path): \(error). Check free space in \(scratch.path).")
            }
            let container: NSPersistentContainer
            do {
                container = try SurfJournal.openContainer(at: working)
            } catch {
                throw ReplayError(.badInput, "Cannot open the store \(source.path): \(error)")
            }
            let expected = max(options.duration, run.workload.timelineSeconds)
            let runner = ScenarioRunner(
                name: run.name, summary: run.summary, workload: run.workload, container: container, options: options,
                bug: options.injectBug, scratch: scratch)
            let progress = options.progress
            let result = runner.run { elapsed in
                progress?(.scenario(index: i, count: runCount, name: run.name, elapsed: elapsed, duration: expected))
            }
            container.persistentStoreCoordinator.removePersistentStore()
            for f in PersistentContainer.storeFiles(working) { try? FileManager.default.removeItem(at: f) }
            results.append(result)
        }
        options.progress?(.finished)

        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return ReplayReport(
            generatedAt: formatter.string(from: Date()), settings: settings(options, source: source), scenarios: results,
            verdicts: Verdicts.make(results, hangThresholdMs: options.hangThresholdMs))
    }

    /// What the report says of the run: the options, the store, the build and the machine.
    static func settings(_ options: ReplayOptions, source: URL) -> ReplayReport.Settings {
        #if DEBUG
        let build = "debug"
        #else
        let build = "release"
        #endif
        return ReplayReport.Settings(
            entries: (try? countEntries(source)) ?? options.entries, store: source.path, fps: options.fps,
            durationSeconds: options.duration, hangThresholdMs: options.hangThresholdMs,
            workload: options.workload?.name, injectBug: options.injectBug?.rawValue, checkingLevel: ConcurrencyDebug.level.rawValue,
            cores: ProcessInfo.processInfo.activeProcessorCount, buildConfiguration: build,
            swiftVersion: swiftCompilerVersion, operatingSystem: ProcessInfo.processInfo.operatingSystemVersionString)
    }

    /// The store to replay: `--store` (seeded there first if missing), or the
    /// default store for `--entries`, seeded on first use.
    static func prepareStore(_ options: ReplayOptions) throws -> URL {
        let target = options.storeURL ?? SurfJournal.defaultStoreURL(entries: options.entries)
        if FileManager.default.fileExists(atPath: target.path) { return target }
        let dir = target.deletingLastPathComponent()
        if options.storeURL != nil {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir.path, isDirectory: &isDir), isDir.boolValue else {
                throw ReplayError(.badInput, "The store's directory \(dir.path) does not exist. Create it (mkdir -p \(dir.path)) or choose another store path.")
            }
        } else {
            do {
                try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            } catch {
                throw ReplayError(.cannotWrite, "Cannot create the data directory \(dir.path): \(error.localizedDescription). Set XDG_DATA_HOME to a writable directory, or choose a store path elsewhere.")
            }
        }
        // The seed store is built once per entry count, then copied with its -wal
        // and -shm (seedCoreDataContainerIfFirstLaunch).
        let seedURL = dir.appendingPathComponent(".seed-" + target.lastPathComponent)
        let total = options.entries
        let progress = options.progress
        do {
            try Seeder.seedIfFirstLaunch(seedURL: seedURL, destination: target, count: total) { done in
                progress?(.seeding(done: done, total: total))
            }
        } catch {
            throw ReplayError(.cannotWrite, "Cannot seed the store at \(target.path): \(error)")
        }
        for f in PersistentContainer.storeFiles(seedURL) { try? FileManager.default.removeItem(at: f) }
        return target
    }

    /// The Swift compiler that built this binary, to the minor version.
    static var swiftCompilerVersion: String {
        #if compiler(>=6.5)
        ">= 6.5"
        #elseif compiler(>=6.4)
        "6.4"
        #elseif compiler(>=6.3)
        "6.3"
        #elseif compiler(>=6.2)
        "6.2"
        #elseif compiler(>=6.1)
        "6.1"
        #else
        "6.0"
        #endif
    }

    static func countEntries(_ url: URL) throws -> Int {
        let container = try SurfJournal.openContainer(at: url, readOnly: true)
        defer { container.persistentStoreCoordinator.removePersistentStore() }
        let context = container.newBackgroundContext()
        return try context.performAndWait { () throws(ManagedContextError) -> Int in
            try context.count(for: FetchRequest<JournalEntry>())
        }
    }
}

/// Plain-language verdicts.
public enum Verdicts {
    public static func make(_ results: [ScenarioResult], hangThresholdMs: Double) -> [String] {
        var lines: [String] = []
        let baseline = results.first { $0.name == ScenarioName.baseline.rawValue }
        func f(_ x: Double) -> String { String(format: "%.1f", x) }
        for r in results {
            let fr = r.frames
            let hangs = r.hangs.count
            let longest = r.hangs.map(\.durationMs).max() ?? 0
            let hangText = hangs == 0 ? "no hangs" : "\(hangs) hang\(hangs == 1 ? "" : "s") (longest \(Int(longest)) ms\(r.hangs.first?.heaviestFunction.map { ", in \(shortName($0))" } ?? ""))"
            switch r.name {
            case ScenarioName.exportMain.rawValue:
                let exportText = r.export.map { "The main-queue export of \($0.rows) entries blocked the UI for \(Int($0.seconds * 1000)) ms" } ?? "The main-queue export blocked the UI"
                lines.append("\(exportText): \(hangText), \(fr.hitches) hitch\(fr.hitches == 1 ? "" : "es"), worst frame \(Int(fr.latencyMs.max)) ms late, hitch ratio \(f(fr.hitchRatioMsPerSecond)) ms/s (\(fr.hitchBand)).")
            case ScenarioName.exportBackground.rawValue:
                var text = "The background export"
                if let e = r.export { text += " (\(e.rows) entries in \(Int(e.seconds * 1000)) ms)" }
                text += " cost the UI "
                if let b = baseline {
                    let d = fr.latencyMs.p99 - b.frames.latencyMs.p99
                    text += "\(d >= 0 ? "+" : "")\(f(d)) ms of frame p99 against baseline (\(f(fr.latencyMs.p99)) vs \(f(b.frames.latencyMs.p99)) ms), "
                } else {
                    text += "a frame p99 of \(f(fr.latencyMs.p99)) ms, "
                }
                text += "\(hangText), hitch ratio \(f(fr.hitchRatioMsPerSecond)) ms/s (\(fr.hitchBand); WWDC aim <= 5 \(fr.meetsWWDCAim ? "met" : "missed"))."
                lines.append(text)
            default:
                var text = "\(r.name): \(hangText), \(fr.hitches) hitch\(fr.hitches == 1 ? "" : "es"), frame p99 \(f(fr.latencyMs.p99)) ms, hitch ratio \(f(fr.hitchRatioMsPerSecond)) ms/s (\(fr.hitchBand))."
                if let s = r.sync {
                    let total = s.inserted + s.updated
                    text += " Sync: \(s.visibleOnMain) of \(total) synced changes visible on the main context, merge latency p50 \(f(s.mergeLatencyMs.p50)) ms, max \(f(s.mergeLatencyMs.max)) ms."
                }
                if let s = r.search {
                    text += " Search: \(s.matches) matches, fetched in \(f(s.fetchMs)) ms off the main queue, first page rematerialized in \(f(s.rematerializeMs)) ms."
                }
                if r.name == ScenarioName.nestedStack.rawValue {
                    text += " (Nested contexts serialize on their parent: the background context's fetches and saves run through the main queue.)"
                }
                lines.append(text)
            }
            for e in r.errors { lines.append("\(r.name): error: \(e)") }
        }
        return lines
    }

    /// "SurfJournal.CSVExport.writeRows(...)" -> "CSVExport.writeRows".
    public static func shortName(_ function: String) -> String { SymbolName.shortName(function) }
}
