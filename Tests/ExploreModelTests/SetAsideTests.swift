import ExploreModel
import Foundation
import TestSupport
import Testing

/// What the driver does with a failing run that is not the program's failure (docs/explore.md,
/// "What counts as a failure"): explore's own limit (`FailureKind.limit`), or a schedule
/// libdispatch cannot produce (`ScheduleFeasibility`). Either is set aside, counted and
/// described in the report, and the search goes on; neither is reported as a bug.
@Suite struct SetAsideTests {
    let directory = TempDirectory("set-aside")

    /// The scripted program, its failing runs changed by `change` (a fixed twin's run passes through).
    final class ChangedRunner: ScheduleRunner, Sendable {
        let inner = ScriptedRunner()
        let change: @Sendable (ScheduleRun) -> ScheduleRun

        init(_ change: @escaping @Sendable (ScheduleRun) -> ScheduleRun) { self.change = change }

        func run(_ strategy: inout any ExplorationStrategy, sites: Bool, log: ScheduleHeader?) -> ScheduleRun {
            let run = inner.run(&strategy, sites: sites, log: log)
            return run.failure == nil ? run : change(run)
        }
    }

    func explore(_ runner: any ScheduleRunner & Sendable, budget: Int = 100) throws -> ExplorationOutcome {
        let plan = ExplorationPlan(
            name: "scripted", spec: .random, seed: 5, budget: budget, options: ExploreOptions(scheduleDirectory: directory.url),
            fileStem: "scripted")
        return try ExplorationDriver(plan: plan, makeRunner: { _, _ in runner }, replayCommand: { "replay \($0)" }).explore()
    }

    @Test("a run that reached explore's limit is set aside: counted and described, not reported, and the budget runs on")
    func limitIsSetAside() throws {
        let runner = ChangedRunner { run in
            var run = run
            run.failure = ScheduleFailure(kind: .limit, message: "explore's limit: the deadline of timer t0 would pass while q1 (in a sleep) …")
            return run
        }
        let outcome = try explore(runner)
        #expect(outcome.report.failure == nil)
        #expect(outcome.report.schedulesRun == 100, "the search went on")
        let setAside = try #require(outcome.report.setAside.first)
        #expect(outcome.report.setAside.count == 1 && setAside.reason == .limit && setAside.count > 0)
        #expect(setAside.text.contains("reached explore's limit, not the program's"), "\(setAside.text)")
        let json = String(decoding: try JSONEncoder().encode(outcome.report), as: UTF8.self)
        #expect(json.contains("\"setAside\""))
        let decoded = try JSONDecoder().decode(ExplorationReport.self, from: Data(json.utf8))
        #expect(decoded.setAside == outcome.report.setAside)
    }

    @Test("a failure whose schedule ran a unit that could not run then is set aside as infeasible, saying which step")
    func infeasibleIsSetAside() throws {
        let runner = ChangedRunner { run in
            var run = run
            run.steps[1].actor = "q9"  // a step that ran a unit nobody enabled
            return run
        }
        let outcome = try explore(runner)
        #expect(outcome.report.failure == nil)
        let setAside = try #require(outcome.report.setAside.first)
        #expect(setAside.reason == .infeasible)
        #expect(setAside.message.hasPrefix("assertion (lost update) in a schedule libdispatch cannot produce: "), "\(setAside.message)")
        #expect(setAside.message.contains("step 1 ran q9, which could not run then"), "\(setAside.message)")
    }

    @Test("every schedule the program produces is feasible, and a failing one is reported as before")
    func feasibleFailuresAreReported() throws {
        let runner = ScriptedRunner()
        for iteration in 0..<20 {
            var strategy: any ExplorationStrategy = RandomStrategy()
            strategy.beginRun(iteration: iteration, seed: UInt64(iteration))
            let run = runner.run(&strategy, sites: false, log: nil)
            #expect(ScheduleFeasibility.problem(in: run.steps) == nil)
        }
        let outcome = try explore(ScriptedRunner())
        #expect(outcome.report.failure?.kind == .assertion)
        #expect(outcome.report.setAside.isEmpty)
        let json = String(decoding: try JSONEncoder().encode(outcome.report), as: UTF8.self)
        #expect(!json.contains("setAside"), "the report's JSON is as before when nothing was set aside")
    }

    @Test("the check names what is wrong: a step out of order, a unit listed twice, no FIFO choice")
    func problemsAreNamed() {
        let good = ScheduleStep(step: 0, actor: "q1", point: .blockStart, enabled: ["driver", "q1"], defaultIndex: 0, chosen: 1)
        #expect(ScheduleFeasibility.problem(in: [good]) == nil)
        var renumbered = good
        renumbered.step = 3
        #expect(ScheduleFeasibility.problem(in: [renumbered])?.contains("numbered 3") == true)
        var twice = good
        twice.enabled = ["q1", "q1"]
        #expect(ScheduleFeasibility.problem(in: [twice])?.contains("twice") == true)
        var noDefault = good
        noDefault.defaultIndex = 5
        #expect(ScheduleFeasibility.problem(in: [noDefault])?.contains("no FIFO choice") == true)
        let fire = ScheduleStep(step: 0, actor: "t0", point: .timerFire, enabled: ["driver", "t0"], defaultIndex: 0, chosen: 1)
        #expect(ScheduleFeasibility.problem(in: [fire]) == nil)
        var timerStarting = fire
        timerStarting.point = .blockStart
        #expect(ScheduleFeasibility.problem(in: [timerStarting])?.contains("a timer only fires") == true)
        var queueFiring = good
        queueFiring.point = .timerFire
        #expect(ScheduleFeasibility.problem(in: [queueFiring])?.contains("which only a timer does") == true)
    }
}
