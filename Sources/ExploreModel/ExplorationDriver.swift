import CtxdebugHelpers
import Foundation

/// One schedule's run as the driver sees it: the steps taken, how it ended.
public struct ScheduleRun: Sendable {
    public var steps: [ScheduleStep]
    public var failure: ScheduleFailure?
    /// False when uncontrolled work ran (`--allow-uncontrolled`): a replay may differ.
    public var reproducible: Bool
    /// False when nothing of the run was under control (no process of COMMAND
    /// connected): there is nothing to explore, and the search stops.
    public var explored: Bool

    public init(steps: [ScheduleStep], failure: ScheduleFailure?, reproducible: Bool, explored: Bool = true) {
        self.steps = steps
        self.failure = failure
        self.reproducible = reproducible
        self.explored = explored
    }

    /// What a strategy reads after the run.
    public var trace: [RecordedDecision] { steps.map(\.decision) }
    /// The chosen actor at each step: what a replay forces.
    public var choices: [String] { steps.map(\.actor) }
    /// The steps that deviate from FIFO order, step → actor: what the minimizer reduces.
    public var deviations: [Int: String] {
        Dictionary(uniqueKeysWithValues: steps.filter(\.isDeviation).map { ($0.step, $0.actor) })
    }
}

/// What runs one schedule: the in-process `explore { }` (a body under the runtime's
/// scheduler) or `ctxdebug explore` (COMMAND, whose processes ask over a socket).
public protocol ScheduleRunner {
    /// Runs once with `strategy` answering every decision; `strategy` is left as the
    /// run left it. With `sites`, each step carries its source site (slower: taken for
    /// the runs that confirm a failure). With `log`, the steps also go to a step log as
    /// they are taken (removed once the run is over), so a crash leaves them behind.
    func run(_ strategy: inout any ExplorationStrategy, sites: Bool, log: ScheduleHeader?) throws -> ScheduleRun
}

/// What an exploration runs: the test's name, the strategy, the budget, and how
/// (`options`, what both ways in share) (docs/explore.md).
public struct ExplorationPlan: Sendable {
    /// The explored test's name, or the command (the report's `name`).
    public var name: String
    public var spec: ExploreStrategy
    /// The strategy's name in the report (`portfolio`, `pct:3`, `replay F`).
    public var strategyName: String
    public var seed: UInt64
    /// Iterations in all, over every shard (Int.max: until `timeLimit`).
    public var budget: Int
    /// Start no new schedule after this many seconds.
    public var timeLimit: Double?
    /// Schedules run at a time (each worker a thread of its own, with a runner of its
    /// own); with one, the search runs on the calling thread.
    public var workers = 1
    public var shard = ShardSpec(index: 1, count: 1)
    /// Granularity, hang timeout, replays, minimizing, the schedule directory.
    public var options: ExploreOptions
    /// Failing schedules are written as `STEM-seedS-runI.schedule.json`.
    public var fileStem: String

    public init(
        name: String, spec: ExploreStrategy, strategyName: String? = nil, seed: UInt64, budget: Int, options: ExploreOptions,
        fileStem: String
    ) {
        self.name = name
        self.spec = spec
        self.strategyName = strategyName ?? spec.description
        self.seed = seed
        self.budget = budget
        self.options = options
        self.fileStem = fileStem
    }

    /// The granularity a search runs at (coarse unless the options say).
    public var granularity: ExploreGranularity { options.granularity ?? .coarse }
    /// Where failing schedules are written.
    public var scheduleDirectory: String { options.scheduleDirectoryInForce.path }
    /// How many times a failure (or a replayed file) is replayed; never below 0.
    var replays: Int { max(0, options.replays) }
}

/// What an exploration or a replay ends with: the report, and what to say besides.
public struct ExplorationOutcome: Sendable {
    public var report: ExplorationReport
    /// Why the failing schedule's file could not be written, if it could not.
    public var scheduleWriteProblem: String?
    /// Lines for the user (a replay that no longer fails, a file recorded with
    /// uncontrolled work allowed).
    public var notes: [String] = []
    /// The search stopped because a run had nothing to explore, and nothing failed.
    public var nothingExplored = false

    public init(report: ExplorationReport) { self.report = report }
}

/// The one loop of schedule exploration, for both ways in: the in-process `explore { }`
/// and `ctxdebug explore`. It runs schedules until the budget, the time or a failure;
/// the first failure (the lowest iteration found) is minimized, replayed with source
/// sites, written to a schedule file and reported. Only running one schedule differs
/// between the two, behind `ScheduleRunner`.
public struct ExplorationDriver: Sendable {
    public let plan: ExplorationPlan
    /// A runner for one worker (`"w0"`, `"w1"`...), for confirming a failure
    /// (`"confirm"`) or for a replay (`"replay"`), at a granularity.
    public let makeRunner: @Sendable (_ purpose: String, _ granularity: ExploreGranularity) throws -> any ScheduleRunner
    /// The one line that replays the schedule file at a path.
    public let replayCommand: @Sendable (_ path: String) -> String
    /// Called after each schedule with how many ran (a progress bar).
    public var onSchedule: (@Sendable (_ done: Int) -> Void)?
    /// Called once the search is over, before a failure is minimized and confirmed.
    public var onSearchEnd: (@Sendable () -> Void)?

    public init(
        plan: ExplorationPlan, makeRunner: @escaping @Sendable (String, ExploreGranularity) throws -> any ScheduleRunner,
        replayCommand: @escaping @Sendable (String) -> String
    ) {
        self.plan = plan
        self.makeRunner = makeRunner
        self.replayCommand = replayCommand
    }

    // MARK: Exploring

    /// A failure one worker found, before it is minimized and replayed.
    struct Found: Sendable {
        var iteration: Int
        var strategyName: String
        var run: ScheduleRun
    }

    /// The workers' shared tally.
    struct Tally: Sendable {
        var schedulesRun = 0
        var stopped = false
        var exhausted = false
        var found: [Found] = []
        var unexplored = false
        var fatal: (any Error)?
        var setAside: [SetAsideRuns] = []

        /// Counts a run that failed but not as the program's failure; keeps the first.
        mutating func setAside(_ reason: SetAsideRuns.Reason, _ message: String, iteration: Int) {
            guard let index = setAside.firstIndex(where: { $0.reason == reason }) else {
                setAside.append(SetAsideRuns(reason: reason, count: 1, iteration: iteration, message: message))
                return
            }
            setAside[index].count += 1
            if iteration < setAside[index].iteration {
                setAside[index].iteration = iteration
                setAside[index].message = message
            }
        }
    }

    /// Explores with the plan's strategy and budget.
    public func explore() throws -> ExplorationOutcome {
        let started = MonotonicClock.now()
        let tally = LockedValue(Tally())
        let deadline = plan.timeLimit.map { started + UInt64($0 * 1e9) }
        if plan.workers <= 1 {
            work(0, tally: tally, deadline: deadline)
        } else {
            let workers = DispatchGroup()
            for worker in 0..<plan.workers {
                workers.enter()
                Thread.detachNewThread {
                    work(worker, tally: tally, deadline: deadline)
                    workers.leave()
                }
            }
            workers.wait()
        }
        onSearchEnd?()
        let final = tally.withLock { $0 }
        if let fatal = final.fatal { throw fatal }
        var report = ExplorationReport(
            name: plan.name, strategy: plan.strategyName, seed: plan.seed, granularity: plan.granularity,
            schedulesRun: final.schedulesRun, elapsedSeconds: Self.seconds(since: started), exhausted: final.exhausted)
        report.setAside = final.setAside.sorted { $0.reason.rawValue < $1.reason.rawValue }
        guard let found = final.found.min(by: { $0.iteration < $1.iteration }) else {
            var outcome = ExplorationOutcome(report: report)
            outcome.nothingExplored = final.unexplored
            return outcome
        }
        let (failure, problem) = try confirm(found)
        report.failure = failure
        var outcome = ExplorationOutcome(report: report)
        outcome.scheduleWriteProblem = problem
        return outcome
    }

    /// One worker: its iterations of the budget, one schedule each.
    private func work(_ worker: Int, tally: LockedValue<Tally>, deadline: UInt64?) {
        do {
            let runner = try makeRunner("w\(worker)", plan.granularity)
            var strategy = plan.spec.makeStrategy()
            let iterations = ExplorationSeeds.iterations(
                budget: plan.budget, worker: worker, workers: max(1, plan.workers), shard: plan.shard.index, shards: plan.shard.count)
            for iteration in iterations {
                if tally.withLock({ $0.stopped }) { return }
                if let deadline, MonotonicClock.now() >= deadline { return }
                strategy.beginRun(iteration: iteration, seed: ExplorationSeeds.seed(base: plan.seed, iteration: iteration))
                // The header names the run by the exploration's seed and the iteration (docs/explore.md).
                let header = ScheduleHeader(strategy: strategy.runName, seed: plan.seed, iteration: iteration, granularity: plan.granularity)
                var run = try runner.run(&strategy, sites: false, log: header)
                if let (reason, message) = SetAsideRuns.reason(for: run) {
                    // Not the program's failure: counted, and the search goes on.
                    tally.withLock { $0.setAside(reason, message, iteration: iteration) }
                    run.failure = nil
                }
                let done = tally.withLock { tally in
                    tally.schedulesRun += 1
                    if run.failure != nil {
                        tally.found.append(Found(iteration: iteration, strategyName: strategy.runName, run: run))
                        tally.stopped = true
                    }
                    return tally.schedulesRun
                }
                onSchedule?(done)
                if run.failure != nil { return }
                if !run.explored {
                    tally.withLock { tally in
                        tally.unexplored = true
                        tally.stopped = true
                    }
                    return
                }
                if !strategy.endRun(run.trace) {
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

    // MARK: A failure: minimize, confirm, write, report

    /// Minimizes the failure (unless told not to), replays it with source sites, writes
    /// its schedule file. Returns the report's failure and why the file could not be
    /// written, if it could not.
    private func confirm(_ found: Found) throws -> (ExplorationReport.Failure, String?) {
        let runner = try makeRunner("confirm", plan.granularity)
        let kind = found.run.failure!.kind
        var reported = found.run
        if plan.options.minimizes && kind != .diverged && !found.run.deviations.isEmpty {
            reported = try minimize(found.run, kind: kind, runner: runner)
        }
        let (confirmed, replayed) = try replays(of: reported.choices, kind: kind, runner: runner)
        let header = ScheduleHeader(
            strategy: found.strategyName, seed: plan.seed, iteration: found.iteration, granularity: plan.granularity,
            reproducible: reported.reproducible && confirmed == plan.replays)
        let kept = replayed ?? reported
        let schedule = ScheduleFile(header: header, steps: kept.steps, failure: kept.failure ?? reported.failure)
        let (path, problem) = write(schedule)
        let failure = ExplorationReport.Failure(
            kind: schedule.failure!.kind, message: schedule.failure!.message, detail: schedule.failure!.detail, schedule: schedule,
            deviationsBeforeMinimizing: found.run.deviations.count, replaysConfirmed: confirmed, replaysAttempted: plan.replays,
            reproducible: header.reproducible, schedulePath: path, replayCommand: path.map(replayCommand))
        return (failure, problem)
    }

    /// The failing run with its deviations reduced (re-run with `DeviationStrategy`),
    /// or the run as found when the reduced one does not fail the same way.
    private func minimize(_ found: ScheduleRun, kind: FailureKind, runner: any ScheduleRunner) throws -> ScheduleRun {
        let minimal = try minimizeDeviations(found.deviations) { deviations in
            var strategy: any ExplorationStrategy = DeviationStrategy(deviations)
            return try runner.run(&strategy, sites: false, log: nil).failure?.kind == kind
        }
        var strategy: any ExplorationStrategy = DeviationStrategy(minimal)
        let rerun = try runner.run(&strategy, sites: false, log: nil)
        return rerun.failure?.kind == kind ? rerun : found
    }

    /// Replays `choices` `plan.replays` times with source sites: how many failed with
    /// `kind`, and the first that did (its steps carry the sites). With no replay asked
    /// for, the schedule still runs once with its sites, uncounted.
    private func replays(of choices: [String], kind: FailureKind, runner: any ScheduleRunner) throws -> (Int, ScheduleRun?) {
        var confirmed = 0
        var first: ScheduleRun?
        for _ in 0..<max(1, plan.replays) {
            var strategy: any ExplorationStrategy = ReplayStrategy(choices: choices)
            strategy.beginRun(iteration: 0, seed: 0)
            let replayed = try runner.run(&strategy, sites: true, log: nil)
            guard replayed.failure?.kind == kind else { continue }
            if plan.replays > 0 { confirmed += 1 }
            if first == nil { first = replayed }
        }
        return (confirmed, first)
    }

    /// Writes `schedule` into the schedule directory (made when missing), whole or not
    /// at all. Returns its path, or why it could not be written.
    public func write(_ schedule: ScheduleFile) -> (path: String?, problem: String?) {
        let directory = plan.scheduleDirectory
        let path = URL(fileURLWithPath: directory).appendingPathComponent(
            "\(plan.fileStem)-seed\(schedule.seed)-run\(schedule.iteration).schedule.json").path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try schedule.write(to: path)
            return (path, nil)
        } catch {
            return (nil, "cannot write \(path): \(error.localizedDescription)")
        }
    }

    // MARK: Replaying a file

    /// Runs the schedule of `file` (read from `path`) `plan.replays` times with source
    /// sites, at the options' granularity, else the file's. A run whose forced choice is not enabled stops with
    /// "diverged at step i", so a replay never hangs on a schedule the code no longer
    /// has. The report's failure is the first divergence, else the first failure; the
    /// file is not written again.
    public func replay(_ file: ScheduleFile, at path: String) throws -> ExplorationOutcome {
        let granularity = plan.options.granularity ?? file.granularity
        let started = MonotonicClock.now()
        let runner = try makeRunner("replay", granularity)
        var runs: [ScheduleRun] = []
        for _ in 0..<max(1, plan.replays) {
            var strategy: any ExplorationStrategy = ReplayStrategy(choices: file.choices)
            strategy.beginRun(iteration: file.iteration, seed: file.seed)
            runs.append(try runner.run(&strategy, sites: true, log: nil))
        }
        var report = ExplorationReport(
            name: plan.name, strategy: plan.strategyName, seed: file.seed, granularity: granularity, schedulesRun: runs.count,
            elapsedSeconds: Self.seconds(since: started))
        var outcome = ExplorationOutcome(report: report)
        if !file.reproducible {
            outcome.notes.append("note: \(path) was recorded with uncontrolled work allowed: a replay may not follow it exactly")
        }
        let outside = file.steps.filter { $0.point == .uncontrolledWait }.map { String($0.step) }
        if !outside.isEmpty {
            outcome.notes.append(
                "note: the schedule touched an uncontrolled wait (a unit blocked in the kernel holding the turn: a lock of the app's, "
                    + "a pipe) at step \(outside.joined(separator: ", ")): the turn passed on there, and a replay follows it only "
                    + "as long as the wait ends the same way")
        }
        let failing = runs.filter { $0.failure != nil }
        guard let first = failing.first(where: { $0.failure?.kind == .diverged }) ?? failing.first, let failure = first.failure else {
            outcome.notes.append(
                "the schedule in \(path) ran \(runs.count) times without failing"
                    + (file.failure.map { " (it was recorded failing: \($0.kind.rawValue): \($0.message))" } ?? ""))
            return outcome
        }
        let confirmed = failing.filter { $0.failure?.kind == failure.kind }.count
        var header = file.header
        header.reproducible = file.reproducible && confirmed == runs.count
        let schedule = ScheduleFile(header: header, steps: first.steps, failure: failure)
        report.failure = ExplorationReport.Failure(
            kind: failure.kind, message: failure.message, detail: failure.detail, schedule: schedule,
            deviationsBeforeMinimizing: schedule.deviations.count, replaysConfirmed: confirmed, replaysAttempted: runs.count,
            reproducible: header.reproducible, schedulePath: path, replayCommand: replayCommand(path))
        outcome.report = report
        return outcome
    }

    static func seconds(since started: UInt64) -> Double { Double(MonotonicClock.now() - started) / 1e9 }
}
