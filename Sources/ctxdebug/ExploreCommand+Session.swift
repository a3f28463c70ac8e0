import CtxdebugHelpers
import ExploreModel
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What an exploration or a replay ends with: the report, and what to say besides.
struct ExploreOutcome {
    var report: ExplorationReport
    /// Why the failing schedule's file could not be written, if it could not.
    var scheduleWriteProblem: String?
    /// A line for stderr (a replay that no longer fails, a search that ran out).
    var notes: [String] = []
}

/// A failure one worker found, before it is minimized and replayed.
struct FoundFailure: Sendable {
    var iteration: Int
    var seed: UInt64
    var outcome: ScheduleOutcome
}

/// The workers' shared tally.
struct ExploreTally: Sendable {
    var schedulesRun = 0
    var stopped = false
    var exhausted = false
    var failures: [FoundFailure] = []
    /// A schedule passed with no process of COMMAND connected: nothing to explore.
    var unconnected = false
    var fatal: (any Error)?
}

/// One `ctxdebug explore`: the loop of Explorer.swift (ConcurrencyDebugTesting) across
/// processes. Workers run schedules until the budget, the time or a failure; the first
/// failure (the lowest iteration found) is minimized, replayed and written.
struct ExploreSession: Sendable {
    let settings: ExploreSettings
    let groups = ExploreProcessGroups()
    /// A temporary directory of this process: each worker's sockets, output and reports.
    let workDirectory: String

    init(settings: ExploreSettings) throws {
        self.settings = settings
        workDirectory = try Self.makeWorkDirectory()
    }

    /// Explores with the settings' strategy and budget.
    func explore() throws -> ExploreOutcome {
        let started = MonotonicClock.now()
        let tally = LockedValue(ExploreTally())
        let progress = ProgressBar(label: "ctxdebug explore", total: progressTotal)
        let deadline = settings.timeLimit.map { started + UInt64($0 * 1e9) }
        let workers = DispatchGroup()
        for worker in 0..<settings.workers {
            workers.enter()
            Thread.detachNewThread {
                work(worker, tally: tally, progress: progress, deadline: deadline)
                workers.leave()
            }
        }
        workers.wait()
        progress.finish()
        let elapsed = Double(MonotonicClock.now() - started) / 1e9
        let final = tally.withLock { $0 }
        if let fatal = final.fatal { throw fatal }
        if final.unconnected && final.failures.isEmpty {
            throw CommandSupport.fail(
                "no process of `\(commandText)` connected to the explorer, so there was nothing to explore: it made no context"
                    + " of ManagedContext (a test filter that matches no test, or a program not built against this ctxdebug's"
                    + " ManagedContext?); check that COMMAND runs the code you mean",
                status: .usage)
        }
        var report = ExplorationReport(
            name: commandText, strategy: settings.spec.description, seed: settings.seed,
            granularity: settings.granularity ?? .coarse, schedulesRun: final.schedulesRun, elapsedSeconds: elapsed,
            exhausted: final.exhausted)
        var outcome = ExploreOutcome(report: report)
        if settings.requestedWorkers > settings.workers {
            outcome.notes.append("note: \(settings.spec) is one ordered search: it ran with one worker, not \(settings.requestedWorkers)")
        }
        guard let found = final.failures.min(by: { $0.iteration < $1.iteration }) else { return outcome }
        let (failure, problem) = try confirm(found)
        report.failure = failure
        outcome.report = report
        outcome.scheduleWriteProblem = problem
        return outcome
    }

    /// One worker: its iterations of the budget, one schedule each.
    private func work(_ worker: Int, tally: LockedValue<ExploreTally>, progress: ProgressBar, deadline: UInt64?) {
        do {
            let runner = try ExploreRunner(
                settings: settings, granularity: settings.granularity ?? .coarse, directory: "\(workDirectory)/w\(worker)", groups: groups)
            var strategy = settings.spec.makeStrategy()
            let iterations = ExplorationSeeds.iterations(
                budget: settings.budget, worker: worker, workers: settings.workers, shard: settings.shard.index, shards: settings.shard.count)
            for iteration in iterations {
                if tally.withLock({ $0.stopped }) { return }
                if let deadline, MonotonicClock.now() >= deadline { return }
                let seed = ExplorationSeeds.seed(base: settings.seed, iteration: iteration)
                strategy.beginRun(iteration: iteration, seed: seed)
                let outcome = try runner.run(&strategy, log: ScheduleHeader(
                    strategy: strategy.runName, seed: settings.seed, iteration: iteration, granularity: settings.granularity ?? .coarse))
                let done = tally.withLock { tally in
                    tally.schedulesRun += 1
                    if outcome.failure != nil {
                        tally.failures.append(FoundFailure(iteration: iteration, seed: seed, outcome: outcome))
                        tally.stopped = true
                    }
                    return tally.schedulesRun
                }
                progress.update(progressTotal == Int.max ? 0 : done)
                if outcome.failure != nil { return }
                if outcome.connections == 0 {
                    tally.withLock { tally in
                        tally.unconnected = true
                        tally.stopped = true
                    }
                    return
                }
                if !strategy.endRun(outcome.trace) {
                    tally.withLock { $0.exhausted = true }
                    return
                }
            }
        } catch {
            tally.withLock { tally in
                if tally.fatal == nil { tally.fatal = error }
                tally.stopped = true
            }
        }
    }

    /// How many iterations this shard has (Int.max with no budget but the time).
    private var progressTotal: Int {
        guard settings.budget != Int.max else { return Int.max }
        let shard = settings.shard
        return max(0, (settings.budget - (shard.index - 1) + shard.count - 1) / shard.count)
    }

    var commandText: String { settings.command.joined(separator: " ") }

    /// Minimizes the failure (unless told not to), replays it with source sites, writes
    /// its schedule file. Returns the report's failure and why the file could not be
    /// written, if it could not.
    private func confirm(_ found: FoundFailure) throws -> (ExplorationReport.Failure, String?) {
        let runner = try ExploreRunner(
            settings: settings, granularity: settings.granularity ?? .coarse, directory: "\(workDirectory)/confirm", groups: groups)
        let kind = found.outcome.failure!.kind
        var reported = found.outcome
        if settings.minimizes && kind != .diverged && !found.outcome.deviations.isEmpty {
            reported = try minimize(found.outcome, kind: kind, runner: runner)
        }
        let (confirmed, replayed) = try replays(of: reported.choices, kind: kind, runner: runner)
        let header = ScheduleHeader(
            strategy: found.outcome.strategyName, seed: settings.seed, iteration: found.iteration,
            granularity: settings.granularity ?? .coarse, reproducible: reported.reproducible && confirmed == settings.replays)
        let kept = replayed ?? reported
        let schedule = ScheduleFile(header: header, steps: kept.steps, failure: kept.failure ?? reported.failure)
        let name = "\(Self.fileName(for: settings.command))-seed\(settings.seed)-run\(found.iteration).schedule.json"
        let (path, problem) = ExploreScheduleDirectory.write(schedule, into: settings.scheduleDirectory, named: name)
        let failure = ExplorationReport.Failure(
            kind: schedule.failure!.kind, message: schedule.failure!.message, detail: schedule.failure!.detail, schedule: schedule,
            deviationsBeforeMinimizing: found.outcome.deviations.count, replaysConfirmed: confirmed, replaysAttempted: settings.replays,
            reproducible: header.reproducible, schedulePath: path, replayCommand: path.map(replayCommand))
        return (failure, problem)
    }

    /// The failing run with its deviations reduced (re-run with `DeviationStrategy`),
    /// or the run as found when the reduced one does not fail the same way.
    private func minimize(_ found: ScheduleOutcome, kind: FailureKind, runner: ExploreRunner) throws -> ScheduleOutcome {
        let minimal = try minimizeDeviations(found.deviations) { deviations in
            var strategy: any ExplorationStrategy = DeviationStrategy(deviations)
            return try runner.run(&strategy).failure?.kind == kind
        }
        var strategy: any ExplorationStrategy = DeviationStrategy(minimal)
        let rerun = try runner.run(&strategy)
        return rerun.failure?.kind == kind ? rerun : found
    }

    /// Replays `choices` `settings.replays` times with source sites: how many failed
    /// with `kind`, and the first that did (its steps carry the sites).
    private func replays(of choices: [String], kind: FailureKind, runner: ExploreRunner) throws -> (Int, ScheduleOutcome?) {
        var confirmed = 0
        var first: ScheduleOutcome?
        for _ in 0..<settings.replays {
            var strategy: any ExplorationStrategy = ReplayStrategy(choices: choices)
            strategy.beginRun(iteration: 0, seed: 0)
            let replayed = try runner.run(&strategy, sites: true)
            guard replayed.failure?.kind == kind else { continue }
            confirmed += 1
            if first == nil { first = replayed }
        }
        return (confirmed, first)
    }

    /// `ctxdebug explore --replay FILE -- COMMAND`, as one line a shell reads back.
    func replayCommand(_ path: String) -> String {
        var words = ["ctxdebug", "explore", "--replay", path]
        if settings.allowUncontrolled { words.append("--allow-uncontrolled") }
        if settings.hangTimeout != 2 { words += ["--hang-timeout", "\(settings.hangTimeout)"] }
        return (words + ["--"] + settings.command).map(Self.shellQuoted).joined(separator: " ")
    }

    static func shellQuoted(_ word: String) -> String {
        let plain = word.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0) }
        return plain && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// A file name from COMMAND: "swift-test---filter-NoteTests", at most 60 characters.
    static func fileName(for command: [String]) -> String {
        var words = command
        if let first = words.first { words[0] = (first as NSString).lastPathComponent }
        let text = words.joined(separator: "-")
        let safe = String(text.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "_" ? $0 : "-" }.prefix(60))
        return safe.isEmpty ? "command" : safe
    }

    /// A fresh directory for sockets: under TMPDIR, or /tmp when TMPDIR's path is too
    /// long for a socket's.
    static func makeWorkDirectory() throws -> String {
        let temporary = NSTemporaryDirectory()
        let base = temporary.utf8.count <= 60 ? temporary : "/tmp/"
        var template = Array((base + (base.hasSuffix("/") ? "" : "/") + "ctxdebug-explore-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CommandSupport.fail(
                "cannot create a working directory under \(base): \(String(cString: strerror(errno))); set TMPDIR to a writable directory",
                status: .cannotCreate)
        }
        return String(cString: made)
    }
}
