import Foundation
import Testing
import TestSupport

/// Runs the BUILT ctxdebug binary, which `swift build --build-tests` builds next to
/// ctxdebug-bench and this test bundle: `ctxdebug bench --quick --format json`. Checks the
/// report's shape and that every figure is there, never how fast anything was.
@Suite struct BenchCommandTests {
    static let binary = BuiltProducts.directory.appendingPathComponent("ctxdebug").path

    struct Report: Decodable {
        var schemaVersion: Int
        var tool: String
        var quick: Bool
        var machine: Machine
        var items: [Item]
        var wallSeconds: Double
    }
    struct Machine: Decodable {
        var date: String
        var cores: Int
        var cpuModel: String
        var toolchain: String
        var build: String
    }
    struct Item: Decodable {
        var id: String
        var title: String
        var setup: [String]
        var figures: [Figure]
        var targets: [Target]
        var detections: [Detection]?
        var skipped: String?
        var notes: [String]
    }
    struct Figure: Decodable {
        var name: String
        var unit: String
        var median: Double
        var min: Double
        var max: Double
        var samples: [Double]
        var signed: Bool
    }
    struct Target: Decodable {
        var what: String
        var target: String
        var measured: String
        var met: Bool
    }
    struct Detection: Decodable {
        var name: String
        var hasBug: Bool
        var threadSanitizer: Bool?
        var ctxdebug: Bool
    }

    @Test func quickBenchReportsEveryItemAndFigure() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary), "build first: swift build --build-tests")
        let run = try ChildProcess(Self.binary, ["bench", "--quick", "--format", "json"]).wait()
        #expect(run.status == 0, "\(run)")
        let report = try JSONDecoder().decode(Report.self, from: Data(run.stdout.utf8))

        #expect(report.schemaVersion == 1)
        #expect(report.tool == "ctxdebug bench")
        #expect(report.quick)
        #expect(report.machine.cores > 0)
        #expect(!report.machine.cpuModel.isEmpty && !report.machine.toolchain.isEmpty && !report.machine.date.isEmpty)
        #expect(report.wallSeconds > 0)
        #expect(report.items.map(\.id) == ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17"])

        for item in report.items {
            #expect(!item.title.isEmpty && !item.setup.isEmpty, "item \(item.id)")
            #expect(!item.figures.isEmpty, "item \(item.id) has figures")
            for f in item.figures {
                #expect(!f.samples.isEmpty, "\(item.id) \(f.name): samples")
                #expect(f.samples.allSatisfy(\.isFinite) && f.median.isFinite, "\(item.id) \(f.name): finite")
                #expect(f.min <= f.median && f.median <= f.max, "\(item.id) \(f.name): median within spread")
                if !f.signed { #expect(f.median > 0 && f.min > 0, "\(item.id) \(f.name): positive") }
                #expect(!f.unit.isEmpty)
            }
            for t in item.targets {
                #expect(!t.what.isEmpty && !t.target.isEmpty && !t.measured.isEmpty)
            }
        }
        // Every map target has a row (met or missed, whatever the quick figures say).
        let targets = report.items.flatMap(\.targets).map(\.what)
        // 24 up to item 10; item 11 has one (format predicates), 12 one (model load), 13 two
        // (key-value get and set), 14 two (port speed and memory), and the migration item two
        // (the inferred mapping and an app's policy, each against the 50k rows/s target).
        #expect(targets.count == 34, "\(targets)")
        // Item 9 has five: levels 1 and 2 over level 0 per block, and level 0 against DispatchQueue.sync (issue 25).
        #expect(targets.contains("level 1 over level 0, per `performAndWait`"))
        #expect(targets.contains("a level-0 `performAndWait` against a plain `DispatchQueue.sync`"))
        #expect(targets.contains("a managed attribute read, checking off"))
        // Item 10 has two, both on one core as issue 26 states them: schedules a second of a
        // 3-context test, and one scheduling point. Its figures come from a child pinned to
        // one CPU and from the bench itself on both cores.
        #expect(targets.contains("explore in process, a 3-context test, on one core"))
        #expect(targets.contains("a scheduling point, on one core"))
        // Item 11: a fetch with a format predicate against the typed one (issue 35).
        #expect(targets.contains("a fetch with `NSPredicate(format:)`"))
        let explore = try #require(report.items.first { $0.id == "10" })
        for name in ["schedules of a 3-context test, on one core", "one scheduling point (decision and handoff), on one core",
                     "schedules of a 3-context test, both cores", "one scheduling point, both cores"] {
            #expect(explore.figures.contains { $0.name == name }, "item 10 has \(name)")
        }
        #expect(explore.setup.contains { $0.contains("pinned to CPU ") }, "item 10 says which CPU its child was pinned to")
        // Item 8 has two: lint's speed and its peak memory per line (issue 24).
        #expect(targets.contains("`ctxdebug lint` peak memory"))
        #expect(targets.contains("level 1 over level 0, inside `perform`"))
        #expect(targets.contains("level 1 over level 0, a view-context read from plain main-queue code under `dispatchMain()`"))
        // Item 1 measures the view-context read from plain main-queue code at levels 0, 1 and 3.
        let access = try #require(report.items.first { $0.id == "1" })
        for name in ["main-queue read (view context, outside perform), level 0", "main-queue read, level 1", "main-queue read, level 3 (journaled)"] {
            #expect(access.figures.contains { $0.name == name }, "item 1 has \(name)")
        }
        // Item 3: every injected bug (3 or more) and the 5 seeded programs, and the controls.
        let detections = try #require(report.items.first { $0.id == "3" }?.detections)
        #expect(detections.filter(\.hasBug).count >= 8)
        #expect(detections.filter { !$0.hasBug }.count == 2)
        // Without --tsan-binary the ThreadSanitizer column is absent, and said so.
        #expect(detections.allSatisfy { $0.threadSanitizer == nil })
        #expect(report.items.first { $0.id == "3" }?.skipped != nil)
    }

    /// `--only` runs the items listed and nothing else; a bad list is refused.
    @Test func onlyRunsTheItemsListed() throws {
        let run = try Self.run(Self.binary, ["bench", "--quick", "--format", "json", "--only", "9,5"])
        #expect(run.status == 0, "\(run)")
        let report = try JSONDecoder().decode(Report.self, from: Data(run.stdout.utf8))
        #expect(report.items.map(\.id) == ["5", "9"])
        let bad = try Self.run(Self.binary, ["bench", "--quick", "--only", "1,18"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("--only takes item numbers from 1 to 17"), "\(bad.stderr)")
    }

    /// Copies an executable through a descriptor closed on exec: a copy whose descriptor
    /// another test's child process inherited (a fork between open and close) cannot be
    /// run ("Text file busy") until that child ends, as Foundation's copy allows.
    static func copyExecutable(_ source: String, to destination: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: source))
        let fd = open(destination, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        try #require(fd >= 0, "cannot create \(destination): errno \(errno)")
        defer { close(fd) }
        let written = data.withUnsafeBytes { bytes -> Int in
            var offset = 0
            while offset < bytes.count {
                let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if n <= 0 { break }
                offset += n
            }
            return offset
        }
        try #require(written == data.count, "short write to \(destination): errno \(errno)")
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> CommandRun {
        try #require(FileManager.default.isExecutableFile(atPath: executable), "build first: swift build --build-tests")
        return try ChildProcess(executable, arguments).wait(timeout: 600)
    }

    /// `ctxdebug bench` hands every argument, `--help` included, to ctxdebug-bench.
    @Test func ctxdebugBenchHelpIsTheBenchmarksHelp() throws {
        let run = try Self.run(Self.binary, ["bench", "--help"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("USAGE: ctxdebug bench"), "\(run.stdout)")
        #expect(run.stdout.contains("--quick") && run.stdout.contains("--tsan-binary"), "\(run.stdout)")
    }

    /// A ctxdebug with no ctxdebug-bench beside it says how to build it, with status 69.
    @Test func ctxdebugBenchWithoutTheBenchmarksSaysHowToBuildThem() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-forwarder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let lonely = directory.appendingPathComponent("ctxdebug").path
        try Self.copyExecutable(Self.binary, to: lonely)
        let run = try Self.run(lonely, ["bench", "--quick"])
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.stderr.contains("ctxdebug-bench is missing") && run.stderr.contains("swift build --product ctxdebug-bench"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }
}
