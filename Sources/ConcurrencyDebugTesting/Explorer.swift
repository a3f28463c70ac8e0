@_spi(Runtime) import ConcurrencyDebug
import CtxdebugHelpers
import ExploreModel
import Foundation
import ManagedContext

/// One schedule's run: what it chose and how it ended.
struct ScheduleRun {
    var steps: [ControlledStep]
    var failure: ScheduleFailure?
    /// The stack that goes with the failure (an uncontrolled call's, a hung unit's).
    var failureAddresses: [UInt]
    var reproducible: Bool

    var trace: [RecordedDecision] {
        steps.map(\.recorded)
    }
    var choices: [String] { steps.map(\.chosenActor) }
    var deviations: [Int: String] {
        Dictionary(uniqueKeysWithValues: steps.filter(\.isDeviation).map { ($0.step, $0.chosenActor) })
    }
}

/// The in-process exploration loop behind `explore(_:iterations:seed:options:name:_:)`.
struct Explorer {
    let name: String
    let strategy: ExploreStrategy
    let seed: UInt64
    let options: ExploreOptions
    let body: @Sendable () throws -> Void

    func run(iterations: Int) throws -> ExplorationReport {
        ScopeRegistry.prepare(level: 1)
        try? FileManager.default.createDirectory(at: scheduleDirectory, withIntermediateDirectories: true)
        let started = MonotonicClock.now()
        var elapsed: Double { Double(MonotonicClock.now() - started) / 1e9 }
        if case .replay(let path) = strategy { return try replay(path, started: started) }
        var chooser: any ExplorationStrategy = strategy.spec!.makeStrategy()
        var ran = 0
        var exhausted = false
        for iteration in 0..<max(0, iterations) {
            let runSeed = ExplorationSeeds.seed(base: seed, iteration: iteration)
            chooser.beginRun(iteration: iteration, seed: runSeed)
            let logged = ScheduleHeader(
                strategy: chooser.runName, seed: seed, iteration: iteration, granularity: options.granularity, reproducible: true)
            let (outcome, after) = runOnce(with: chooser, log: logged)
            chooser = after
            ran += 1
            if let failure = outcome.failure {
                // The exploration's seed: with the iteration, it names the run (docs/explore.md).
                let header = ScheduleHeader(
                    strategy: chooser.runName, seed: seed, iteration: iteration, granularity: options.granularity,
                    reproducible: outcome.reproducible)
                let report = try confirm(outcome, failure, header: header, schedulesRun: ran, elapsed: elapsed)
                try? FileManager.default.removeItem(atPath: runningLogPath)
                throw ExplorationFailed(report: report)
            }
            if !chooser.endRun(outcome.trace) {
                exhausted = true
                break
            }
        }
        try? FileManager.default.removeItem(atPath: runningLogPath)
        return ExplorationReport(
            name: name, strategy: strategy.description, seed: seed, granularity: options.granularity,
            schedulesRun: ran, elapsedSeconds: elapsed, exhausted: exhausted)
    }

    var scheduleDirectory: URL {
        options.scheduleDirectory ?? FileManager.default.temporaryDirectory.appendingPathComponent("ctxdebug-explore", isDirectory: true)
    }

    var safeName: String { String(name.map { $0.isLetter || $0.isNumber ? $0 : "-" }.prefix(60)) }

    /// The step log of the schedule running now (see `runOnce`).
    var runningLogPath: String { scheduleDirectory.appendingPathComponent("\(safeName).running.log").path }

    /// Runs the schedule file at `path` once.
    private func replay(_ path: String, started: UInt64) throws -> ExplorationReport {
        let file = try ScheduleFile.read(from: path)
        let (outcome, _) = runOnce(with: ReplayStrategy(choices: file.choices), sites: true)
        let elapsed = Double(MonotonicClock.now() - started) / 1e9
        guard let failure = outcome.failure else {
            return ExplorationReport(
                name: name, strategy: strategy.description, seed: file.seed, granularity: options.granularity,
                schedulesRun: 1, elapsedSeconds: elapsed)
        }
        let report = try confirm(outcome, failure, header: file.header, schedulesRun: 1, elapsed: elapsed, minimizing: false)
        throw ExplorationFailed(report: report)
    }

    /// A failure found: minimize it, replay it, write its schedule file, report it.
    private func confirm(
        _ found: ScheduleRun, _ failure: ScheduleFailure, header: ScheduleHeader, schedulesRun: Int, elapsed: Double,
        minimizing: Bool = true
    ) throws -> ExplorationReport {
        // Runs without sites explore faster; the schedule reported is run again with them.
        var reported = found
        if minimizing && options.minimizes && failure.kind != .diverged {
            let minimal = minimizeDeviations(found.deviations) { deviations in
                runOnce(with: DeviationStrategy(deviations)).0.failure?.kind == failure.kind
            }
            let (rerun, _) = runOnce(with: DeviationStrategy(minimal), sites: true)
            if rerun.failure?.kind == failure.kind { reported = rerun }
        }
        if reported.steps.first?.chosenAddresses.isEmpty ?? false, failure.kind != .diverged {
            let (rerun, _) = runOnce(with: ReplayStrategy(choices: found.choices), sites: true)
            if rerun.failure?.kind == failure.kind { reported = rerun }
        }
        var confirmed = 0
        for _ in 0..<max(0, options.replays) {
            if runOnce(with: ReplayStrategy(choices: reported.choices)).0.failure?.kind == failure.kind { confirmed += 1 }
        }
        var header = header
        header.reproducible = reported.reproducible && confirmed == options.replays
        let schedule = ScheduleFile(header: header, steps: annotated(reported.steps), failure: reported.failure ?? failure)
        let path = try write(schedule)
        let result = ExplorationReport.Failure(
            kind: schedule.failure!.kind, message: schedule.failure!.message, detail: schedule.failure!.detail,
            schedule: schedule, deviationsBeforeMinimizing: found.deviations.count,
            replaysConfirmed: confirmed, replaysAttempted: options.replays, reproducible: header.reproducible,
            schedulePath: path, replayCommand: "try explore(.replay(\"\(path)\")) { ... }  // or: ctxdebug explore --replay \(path) -- COMMAND")
        return ExplorationReport(
            name: name, strategy: strategy.description, seed: seed, granularity: options.granularity,
            schedulesRun: schedulesRun, elapsedSeconds: elapsed, failure: result)
    }

    private func write(_ schedule: ScheduleFile) throws -> String {
        let directory = scheduleDirectory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("\(safeName)-seed\(schedule.seed)-run\(schedule.iteration).schedule.json")
        try schedule.write(to: file.path)
        return file.path
    }

    /// The schedule's steps as the file keeps them, each with its source site.
    private func annotated(_ steps: [ControlledStep]) -> [ScheduleStep] {
        let frames = StackTrace.userFrames(steps.map(\.chosenAddresses))
        return zip(steps, frames).map { step, frame in step.scheduleStep(site: frame.map(ExplorationSite.text)) }
    }
}
