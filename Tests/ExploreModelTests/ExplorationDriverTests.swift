import CtxdebugHelpers
import ExploreModel
import Foundation
import TestSupport
import Testing

/// A scripted program run by the driver as `explore { }` and `ctxdebug explore` run
/// theirs: the driver enqueues a block on q1 ("background"), then fetches, then writes;
/// q1's block starts, then writes. The bug: q1's block starts before the driver's fetch
/// (one deviation from FIFO order). Counts its runs.
final class ScriptedRunner: ScheduleRunner, Sendable {
    let buggy: Bool
    let connects: Bool
    let runs = LockedValue(0)
    let sitedRuns = LockedValue(0)

    init(buggy: Bool = true, connects: Bool = true) {
        self.buggy = buggy
        self.connects = connects
    }

    func run(_ strategy: inout any ExplorationStrategy, sites: Bool, log: ScheduleHeader?) -> ScheduleRun {
        runs.withLock { $0 += 1 }
        if sites { sitedRuns.withLock { $0 += 1 } }
        guard connects else { return ScheduleRun(steps: [], failure: nil, reproducible: true, explored: false) }
        var actors: [(key: String, points: [SchedulingPoint], done: Int, enabledAt: Int?)] = [
            ("driver", [.performEnqueue, .fetch, .storeWrite], 0, -1), ("q1", [.blockStart, .storeWrite], 0, nil),
        ]
        var steps: [ScheduleStep] = []
        var last = 0
        var bug = false
        while true {
            let enabled = actors.indices.filter { actors[$0].enabledAt != nil && actors[$0].done < actors[$0].points.count }
            if enabled.isEmpty { break }
            let defaultActor = enabled.contains(last) ? last : enabled.min { actors[$0].enabledAt! < actors[$1].enabledAt! }!
            let decision = SchedulingDecision(
                step: steps.count, enabled: enabled.map { actors[$0].key }, defaultIndex: enabled.firstIndex(of: defaultActor)!,
                actor: actors[last].key, point: actors[last].points[min(actors[last].done, actors[last].points.count - 1)],
                candidates: enabled.map { .init(point: actors[$0].points[actors[$0].done], context: $0 == 0 ? nil : "background") })
            var chosen = strategy.choose(decision)
            if let divergence = strategy.divergence {
                return ScheduleRun(steps: steps, failure: ScheduleFailure(kind: .diverged, message: divergence.description), reproducible: true)
            }
            if !enabled.indices.contains(chosen) { chosen = decision.defaultIndex }
            let index = enabled[chosen]
            steps.append(decision.step(choosing: chosen, site: sites ? "Scripted.swift:\(10 * index + actors[index].done)" : nil))
            if index == 1 && actors[1].done == 0 && actors[0].done < 2 { bug = true }
            if index == 0 && actors[0].done == 0 { actors[1].enabledAt = steps.count }
            actors[index].done += 1
            last = index
        }
        let failure = buggy && bug ? ScheduleFailure(kind: .assertion, message: "lost update") : nil
        return ScheduleRun(steps: steps, failure: failure, reproducible: true)
    }
}

@Suite("The exploration driver (both ways in)")
struct ExplorationDriverTests {
    let directory = TempDirectory("driver")

    func driver(
        _ runner: ScriptedRunner, spec: ExploreStrategy = .random, budget: Int = 200, workers: Int = 1,
        granularity: ExploreGranularity? = nil, granularities: LockedValue<[String: ExploreGranularity]>? = nil
    ) -> ExplorationDriver {
        var plan = ExplorationPlan(
            name: "scripted", spec: spec, seed: 5, budget: budget,
            options: ExploreOptions(granularity: granularity, scheduleDirectory: directory.url), fileStem: "scripted")
        plan.workers = workers
        return ExplorationDriver(
            plan: plan,
            makeRunner: { purpose, granularity in
                granularities?.withLock { $0[purpose] = granularity }
                return runner
            }, replayCommand: { "replay \($0)" })
    }

    @Test("a failure is found, minimized to its one deviation, confirmed 3 of 3 with sites, written, and its file replays it")
    func findsMinimizesConfirmsWrites() throws {
        let runner = ScriptedRunner()
        let outcome = try driver(runner).explore()
        let failure = try #require(outcome.report.failure)
        #expect(failure.kind == .assertion && failure.message == "lost update")
        #expect(failure.schedule.deviations == [1], "\(failure.schedule.steps)")
        #expect(failure.replaysConfirmed == 3 && failure.replaysAttempted == 3 && failure.reproducible)
        #expect(failure.schedule.steps.allSatisfy { $0.site?.hasPrefix("Scripted.swift:") == true }, "the kept steps are a sited replay's")
        #expect(runner.sitedRuns.withLock { $0 } == 3)
        let path = try #require(failure.schedulePath)
        #expect(path.hasSuffix("scripted-seed5-run\(failure.schedule.iteration).schedule.json"))
        #expect(failure.replayCommand == "replay \(path)")
        let file = try ScheduleFile.read(from: path)
        #expect(file.choices == failure.schedule.choices)
        #expect(outcome.scheduleWriteProblem == nil)

        let replayed = try driver(ScriptedRunner()).replay(file, at: path)
        #expect(replayed.report.schedulesRun == 3)
        #expect(replayed.report.failure?.replaysConfirmed == 3)
        #expect(replayed.report.failure?.schedule.choices == file.choices)
        let fixed = try driver(ScriptedRunner(buggy: false)).replay(file, at: path)
        #expect(fixed.report.failure == nil)
        #expect(fixed.notes.contains { $0.contains("ran 3 times without failing") && $0.contains("lost update") }, "\(fixed.notes)")
    }

    @Test("the options' granularity runs the search and a replay; with none, coarse searches and a replay takes the file's")
    func granularityFromTheOptionsElseTheFile() throws {
        let found = try #require(try driver(ScriptedRunner()).explore().report.failure)
        var file = found.schedule
        file.granularity = .fine
        let path = directory.url.appendingPathComponent("fine.schedule.json").path
        try file.write(to: path)
        for (asked, expected) in [(nil, ExploreGranularity.fine), (.coarse, .coarse), (.fine, .fine)] as [(ExploreGranularity?, ExploreGranularity)] {
            let seen = LockedValue<[String: ExploreGranularity]>([:])
            let replayed = try driver(ScriptedRunner(), granularity: asked, granularities: seen).replay(file, at: path)
            #expect(seen.withLock { $0 } == ["replay": expected], "asked \(String(describing: asked))")
            #expect(replayed.report.granularity == expected)
            _ = try driver(ScriptedRunner(buggy: false), budget: 2, granularity: asked, granularities: seen).explore()
            #expect(seen.withLock { $0["w0"] } == asked ?? .coarse)
        }
    }

    @Test("the fixed twin runs the whole budget, with one worker or two")
    func twinRunsTheBudget() throws {
        for workers in [1, 2] {
            let runner = ScriptedRunner(buggy: false)
            let outcome = try driver(runner, budget: 50, workers: workers).explore()
            #expect(outcome.report.failure == nil)
            #expect(outcome.report.schedulesRun == 50 && runner.runs.withLock { $0 } == 50)
        }
    }

    @Test("a delay:K search stops when it has run every schedule in its bound")
    func exhaustsDelay() throws {
        let outcome = try driver(ScriptedRunner(buggy: false), spec: .delay(0), budget: 100).explore()
        #expect(outcome.report.exhausted && outcome.report.schedulesRun == 1)
    }

    @Test("a run with nothing under control stops the search and says so")
    func nothingExplored() throws {
        let runner = ScriptedRunner(connects: false)
        let outcome = try driver(runner).explore()
        #expect(outcome.nothingExplored && outcome.report.schedulesRun == 1 && runner.runs.withLock { $0 } == 1)
    }

    @Test("a schedule directory that cannot be written leaves the failure reported and says why")
    func unwritableDirectory() throws {
        let blocker = directory.file("a-file")
        try Data("x".utf8).write(to: blocker)
        var plan = driver(ScriptedRunner()).plan
        plan.options.scheduleDirectory = blocker.appendingPathComponent("schedules")
        let outcome = try ExplorationDriver(plan: plan, makeRunner: { _, _ in ScriptedRunner() }, replayCommand: { $0 }).explore()
        #expect(outcome.report.failure != nil && outcome.report.failure?.schedulePath == nil)
        #expect(outcome.scheduleWriteProblem?.contains("cannot write") == true, "\(String(describing: outcome.scheduleWriteProblem))")
    }
}
