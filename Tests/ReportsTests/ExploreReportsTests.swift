import ExploreModel
import Foundation
import ReportFormats
import Reports
import Testing

/// The reports of `ctxdebug explore` from an `ExplorationReport` built by hand, as the
/// scheduler would fill it: the bytes of each format against snapshots in
/// Tests/Fixtures/ReportSnapshots (re-record with `RECORD_SNAPSHOTS=1 swift test
/// --filter ExploreReportsTests` and review the diff), and their structure.
@Suite("ctxdebug explore's reports")
struct ExploreReportsTests {
    static let root = "/src/project"

    static func step(_ index: Int, _ actor: String, _ point: SchedulingPoint, _ queue: String?, _ site: String?, _ enabled: [String], _ defaultIndex: Int) -> ScheduleStep {
        ScheduleStep(
            step: index, actor: actor, point: point, queue: queue, site: site, enabled: enabled, defaultIndex: defaultIndex,
            chosen: enabled.firstIndex(of: actor)!)
    }

    /// The driver enqueues a save on background (q1) and a fetch on main, then waits:
    /// main's block starts before q1's (a deviation), then q1's block runs before main's
    /// fetch (another): the fetch sees the save. Sites: relative, absolute under the
    /// root with a space, absolute elsewhere, none.
    static var schedule: ScheduleFile {
        let site = "/src/project/Sources/App/My Store.swift"
        let steps = [
            step(0, "driver", .performEnqueue, "background", "Tests/App/BugTests.swift:12 in saveThenFetch()", ["driver"], 0),
            step(1, "driver", .performEnqueue, "viewContext", "Tests/App/BugTests.swift:14 in saveThenFetch()", ["driver", "q1"], 0),
            step(2, "main", .blockStart, "viewContext", nil, ["main", "q1"], 1),
            step(3, "q1", .blockStart, "background", "\(site):30 in save()", ["main", "q1"], 0),
            step(4, "q1", .storeWrite, "background", "\(site):33 in save()", ["main", "q1"], 1),
            step(5, "q1", .didSave, "background", "/elsewhere/Merge.swift:8", ["main", "q1"], 1),
            step(6, "main", .fetch, "viewContext", "Tests/App/BugTests.swift:20 in saveThenFetch()", ["main"], 0),
        ]
        return ScheduleFile(
            header: ScheduleHeader(strategy: "pct:3", seed: 0xDEAD_BEEF, iteration: 17), steps: steps,
            failure: ScheduleFailure(kind: .assertion, message: "expected 2 notes, found 1 <&>", detail: "BugTests.swift:21\nXCTAssertEqual failed"))
    }

    static var failing: ExplorationReport {
        ExplorationReport(
            name: "BugTests.saveThenFetch", strategy: "portfolio", seed: 42, schedulesRun: 37, elapsedSeconds: 0.5,
            failure: ExplorationReport.Failure(
                kind: .assertion, message: "expected 2 notes, found 1 <&>", detail: "BugTests.swift:21\nXCTAssertEqual failed",
                schedule: schedule, deviationsBeforeMinimizing: 5, replaysConfirmed: 3, replaysAttempted: 3, reproducible: true,
                schedulePath: "/tmp/ctxdebug-explore/BugTests.saveThenFetch.schedule.json",
                replayCommand: "ctxdebug explore --replay /tmp/ctxdebug-explore/BugTests.saveThenFetch.schedule.json -- swift test --filter BugTests.saveThenFetch"))
    }

    static let passing = ExplorationReport(
        name: "BugTests.fixedTwin", strategy: "delay:1", seed: 1, granularity: .fine, schedulesRun: 12, elapsedSeconds: 0.04, exhausted: true)

    static func expectSnapshot(_ data: Data, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = ModuleGraphTests.packageRoot.appendingPathComponent("Tests/Fixtures/ReportSnapshots").appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
            try data.write(to: url)
            return
        }
        let expected = try #require(FileManager.default.contents(atPath: url.path), "no snapshot \(name): record with RECORD_SNAPSHOTS=1", sourceLocation: sourceLocation)
        #expect(data == expected, "\(name) differs from its snapshot:\n\(String(decoding: data, as: UTF8.self))", sourceLocation: sourceLocation)
    }

    @Test("Snapshots: text, JSON, JUnit and SARIF of a failing and a passing exploration")
    func snapshots() throws {
        try Self.expectSnapshot(Data(Self.failing.text().utf8), "explore-failed.txt")
        try Self.expectSnapshot(Data(Self.passing.text().utf8), "explore-passed.txt")
        try Self.expectSnapshot(Self.failing.jsonData(), "explore.json")
        let junit = ExplorationReport.junit([Self.failing, Self.passing], command: ["swift", "test"])
        try Self.expectSnapshot(Data(junit.xml().utf8), "explore.xml")
        let sarif = ExplorationReport.sarif([Self.failing, Self.passing], root: Self.root, command: ["swift", "test"], exitStatus: 1)
        try Self.expectSnapshot(sarif.encoded(), "explore.sarif")
    }

    @Test("Text: verdict, strategy and seed, schedules per second, deviations in words, the swim lane and the replay command")
    func text() {
        let text = Self.failing.text()
        #expect(text.hasPrefix("ctxdebug explore: BugTests.saveThenFetch FAILED after 37 schedules\n"))
        #expect(text.contains("  strategy:   portfolio, seed 42 (the failing run: pct:3, iteration 17)\n"))
        #expect(text.contains("  schedules:  37 in 0.50 s (74.0 schedules/s)\n"))
        #expect(text.contains("  replayed:   3 of 3 failed the same way\n"))
        #expect(text.contains("  minimized:  2 deviations from FIFO order (from 5):\n"))
        #expect(text.contains("    1. main (viewContext)'s block-start ran before q1 (background)'s block-start at /src/project/Sources/App/My Store.swift:30\n"))
        #expect(text.contains("    2. q1 (background)'s block-start at /src/project/Sources/App/My Store.swift:30 ran before main (viewContext)'s fetch at Tests/App/BugTests.swift:20\n"))
        #expect(text.hasSuffix("  replay: ctxdebug explore --replay /tmp/ctxdebug-explore/BugTests.saveThenFetch.schedule.json -- swift test --filter BugTests.saveThenFetch\n"))
        // The swim lane: a header with a column per actor, a row per step, deviations marked.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let found = lines.firstIndex { $0.hasPrefix("    step  driver") }
        try? #require(found != nil)
        guard let header = found else { return }
        func column(_ line: String, _ text: String) -> Int? {
            line.range(of: text).map { line.distance(from: line.startIndex, to: $0.lowerBound) }
        }
        #expect(column(lines[header], "main (viewContext)") != nil)
        #expect(lines[header + 1] == "       0  perform-enqueue on background at BugTests.swift:12")
        #expect(column(lines[header + 4], "* block-start at My Store.swift:30") == column(lines[header], "q1 (background)"))
        #expect(column(lines[header + 3], "* block-start") == column(lines[header], "main (viewContext)"))
        #expect(column(lines[header + 7], "fetch at BugTests.swift:20") == column(lines[header], "main (viewContext)"))
        #expect(lines[header + 8] == "          ✗ assertion after step 6")
        #expect(Self.passing.text() == """
            ctxdebug explore: BugTests.fixedTwin passed: no failure in 12 schedules
              strategy:   delay:1, seed 1, granularity fine
              schedules:  12 in 0.04 s (300.0 schedules/s)
              search:     complete: every schedule within delay:1's bound ran

            """)
    }

    @Test("SARIF: a thread flow per actor, executionOrder = the step, locations from the sites")
    func sarif() throws {
        let log = ExplorationReport.sarif([Self.failing, Self.passing], root: Self.root, command: ["swift", "test"], exitStatus: 1)
        let run = try #require(log.runs.first)
        #expect(run.tool.driver.rules.map(\.id) == ["explore-assertion"])
        #expect(run.results.count == 1)
        let result = run.results[0]
        #expect(result.locations?.first?.physicalLocation?.artifactLocation == .init(uri: "Tests/App/BugTests.swift", uriBaseId: "%SRCROOT%"))
        let flows = try #require(result.codeFlows?.first?.threadFlows)
        #expect(flows.map(\.id) == ["driver", "main", "q1"])
        #expect(flows.map(\.message?.text) == ["driver", "main (viewContext)", "q1 (background)"])
        #expect(flows.map { $0.locations.map(\.executionOrder) } == [[0, 1], [2, 6], [3, 4, 5]])
        let q1 = flows[2].locations.map { $0.location.physicalLocation?.artifactLocation }
        #expect(q1[0] == .init(uri: "Sources/App/My%20Store.swift", uriBaseId: "%SRCROOT%"))
        #expect(q1[2] == .init(uri: "file:///elsewhere/Merge.swift"))
        #expect(flows[1].locations[0].location.physicalLocation == nil)
        #expect(
            flows[2].locations[0].location.message?.text
                == "step 3: block-start at /src/project/Sources/App/My Store.swift:30 (deviation: q1 (background)'s block-start at /src/project/Sources/App/My Store.swift:30 ran before main (viewContext)'s fetch at Tests/App/BugTests.swift:20)")
        #expect(try JSONDecoder().decode(SARIF.Log.self, from: log.encoded()) == log)
        let clean = ExplorationReport.sarif([Self.passing], root: Self.root, command: ["swift", "test"], exitStatus: 0)
        #expect(clean.runs[0].results.isEmpty && clean.runs[0].tool.driver.rules.isEmpty)
    }

    @Test("JUnit: a test case per explored test; the failing one carries the text report at its last site")
    func junit() {
        let report = ExplorationReport.junit([Self.failing, Self.passing])
        #expect(report.cases.map(\.name) == ["BugTests.saveThenFetch", "BugTests.fixedTwin"])
        #expect(report.failureCount == 1)
        #expect(report.cases[0].file == "Tests/App/BugTests.swift" && report.cases[0].line == 20)
        #expect(report.cases[0].failure?.text == Self.failing.text())
        #expect(report.cases[0].failure?.type == "assertion")
        #expect(report.cases[1].failure == nil)
        // An absolute site under the root is given relative to it.
        var absolute = Self.failing
        absolute.failure?.schedule.steps[6].site = "/src/project/Tests/App/BugTests.swift:20"
        #expect(ExplorationReport.junit([absolute], root: Self.root).cases[0].file == "Tests/App/BugTests.swift")
        #expect(ExplorationReport.junit([absolute]).cases[0].file == "/src/project/Tests/App/BugTests.swift")
    }

    @Test("JSON: the report's fields, and it reads back")
    func json() throws {
        let data = try Self.failing.jsonData()
        #expect(data.last == 0x0A)
        #expect(try JSONDecoder().decode(ExplorationReport.self, from: data) == Self.failing)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["schedulesPerSecond"] as? Double == 74)
        let failure = try #require(object["failure"] as? [String: Any])
        #expect((failure["schedule"] as? [String: Any])?["format"] as? String == "ctxdebug-schedule")
        #expect((failure["deviationsInWords"] as? [String])?.count == 2)
    }
}
