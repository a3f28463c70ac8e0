import CtxdebugHelpers
import ExploreModel
import Foundation
import Testing

@Suite("The minimizer and deviations in words")
struct MinimizerTests {
    static let deviations = Dictionary(uniqueKeysWithValues: (0..<12).map { ($0 * 3, "q\($0 % 3 + 1)") })

    @Test("Two deviations that only fail together are what is left of twelve")
    func pair() {
        var asked: [Set<Int>] = []
        let result = minimizeDeviations(Self.deviations) { set in
            asked.append(Set(set.keys))
            return set[9] == "q1" && set[21] == "q2"
        }
        #expect(result == [9: "q1", 21: "q2"])
        #expect(Set(asked).count == asked.count, "a set was run twice")
        #expect(asked.first == [])
    }

    @Test("A failure that needs no deviation minimizes to none, after one run")
    func none() {
        var runs = 0
        let result = minimizeDeviations(Self.deviations) { _ in
            runs += 1
            return true
        }
        #expect(result.isEmpty)
        #expect(runs == 1)
        #expect(minimizeDeviations([:]) { _ in Issue.record("ran for an empty set"); return true } == [:])
    }

    @Test("Any monotone failure (a superset of one of some causes) reduces to a 1-minimal set", arguments: 1...40)
    func oneMinimal(seed: UInt64) {
        var generator = SplitMix(seed: seed)
        let steps = Array(Self.deviations.keys)
        let causes = (0..<Int(generator.next() % 3 + 1)).map { _ in
            Set((0..<Int(generator.next() % 3 + 1)).map { _ in steps[Int(generator.next() % UInt64(steps.count))] })
        }
        let fails = { (set: [Int: String]) in causes.contains { $0.isSubset(of: Set(set.keys)) } }
        let result = minimizeDeviations(Self.deviations, stillFails: fails)
        #expect(fails(result))
        for step in result.keys { #expect(!fails(result.filter { $0.key != step }), "step \(step) is not needed; causes \(causes)") }
        #expect(result.allSatisfy { Self.deviations[$0.key] == $0.value })
    }

    @Test("The re-run's errors pass through")
    func errorsPassThrough() {
        struct Stop: Error {}
        #expect(throws: Stop.self) { try minimizeDeviations([1: "q1"]) { _ in throw Stop() } }
    }

    static var schedule: ScheduleFile { ScheduleFileTests.schedule }

    @Test("A deviation in words: who ran, where, before whom and where that one went on")
    func words() {
        #expect(
            Self.schedule.describe(deviation: 1)
                == "q1 (background)'s block-start at Bug.swift:30 ran before driver's fetch at Bug.swift:41")
        // Step 3 passed over q1, which never ran again before the failure.
        #expect(
            Self.schedule.describe(deviation: 3)
                == "driver's fetch at Bug.swift:41 ran before q1 (background) could go on (it did not run again before the failure)")
        #expect(Self.schedule.deviationsInWords.count == 2)
        #expect(Self.schedule.describe(deviation: 2) == "q1 (background)'s store-write at Bug.swift:33 ran in FIFO order")
        #expect(Self.schedule.describe(deviation: 9) == "step 9 is not in the schedule")
        #expect(Self.schedule.actorLabel("main") == "main")
        // The driver's step names the queue it acts on.
        #expect(Self.schedule.action(Self.schedule.steps[0]) == "perform-enqueue on background at Bug.swift:12")
        #expect(Self.schedule.actorLabel("driver") == "driver")
    }

    /// Issue 50: each deviation of a reported schedule names the rule of libdispatch's that
    /// lets a real run take it too.
    @Test("A deviation's rule: a block's start, a preemption, virtual time, a waiter's turn on the main queue")
    func rules() {
        #expect(Self.schedule.rule(ofDeviation: 1).hasPrefix("a queue's next block may start as soon as the queue is free"))
        #expect(Self.schedule.rule(ofDeviation: 3).hasPrefix("a thread may be preempted at any scheduling point"))
        #expect(Self.schedule.deviationRules.count == Self.schedule.deviations.count)
        var timed = Self.schedule
        timed.steps[1].actor = "t0"
        timed.steps[1].point = .timerFire
        #expect(timed.rule(ofDeviation: 1).hasPrefix("virtual time: a timer's deadline may pass"))
        timed.steps[1].actor = ActorKey.main
        timed.steps[1].point = .performAndWait
        #expect(timed.rule(ofDeviation: 1).hasSuffix("while the main thread serves the main queue"))
        #expect(timed.rule(ofDeviation: 9) == "step 9 is not in the schedule")
    }

    @Test("A step's site: file and line, and the function after \" in \"")
    func sites() {
        #expect(SourceSite("Bug.swift:12 in saveTwice()") == SourceSite(file: "Bug.swift", line: 12, function: "saveTwice()"))
        #expect(SourceSite("Sources/App/My File.swift:7") == SourceSite(file: "Sources/App/My File.swift", line: 7))
        #expect(SourceSite("Bug.swift") == nil)
        #expect(SourceSite(":3") == nil)
        #expect(SourceSite("Bug.swift:0") == nil)
    }

    @Test("A site with no source position (a library without debug info) reads \"in FUNCTION\", not \"at ?:0\"")
    func siteWithoutFile() {
        var schedule = Self.schedule
        schedule.steps[0].site = "in XCTest.WaiterManager.startManaging(_:timeout:)"
        #expect(schedule.action(schedule.steps[0]) == "perform-enqueue on background in XCTest.WaiterManager.startManaging(_:timeout:)")
    }
}

@Suite("The exploration report model")
struct ExplorationReportModelTests {
    @Test("Codable round trip; schedules per second is written and derived; failure null when none")
    func roundTrip() throws {
        let failure = ExplorationReport.Failure(
            kind: .assertion, message: "expected 2", schedule: ScheduleFileTests.schedule, deviationsBeforeMinimizing: 5,
            replaysConfirmed: 3, replaysAttempted: 3, reproducible: true, schedulePath: "/tmp/a.schedule.json",
            replayCommand: "ctxdebug explore --replay /tmp/a.schedule.json -- swift test")
        let report = ExplorationReport(name: "BugTests.saveTwice", strategy: "portfolio", seed: 42, schedulesRun: 37, elapsedSeconds: 0.5, failure: failure)
        #expect(report.schedulesPerSecond == 74)
        #expect(failure.deviationsInWords == ScheduleFileTests.schedule.deviationsInWords)
        #expect(failure.replaysText == "3 of 3")
        let data = try JSONEncoder().encode(report)
        #expect(try JSONDecoder().decode(ExplorationReport.self, from: data) == report)
        let clean = ExplorationReport(name: "x", strategy: "delay:1", seed: 1, schedulesRun: 0, elapsedSeconds: 0, exhausted: true)
        let cleanText = String(decoding: try JSONEncoder().encode(clean), as: UTF8.self)
        #expect(cleanText.contains(#""failure":null"#) && cleanText.contains(#""schedulesPerSecond":0"#))
        #expect(try JSONDecoder().decode(ExplorationReport.self, from: Data(cleanText.utf8)) == clean)
    }
}
