import Foundation
import Testing
import TestSupport

/// `ctxdebug explore` on code as people write it (issue 37): the BUILT `ctxdebug`
/// explores the BUILT app-style corpus (Tests/ExploreAppCorpus), unchanged, through the
/// preload library. A fixed seed and
/// a small budget: each bug is found, replayed 3 of 3 and minimized; each fixed twin
/// passes its budget. The full measurement (found within 1,000, 10,000 schedules of each
/// twin) is `Scripts/explore-app-corpus` (docs/benchmarks.md).
@Suite("ctxdebug explore on app-style code (built binaries, preload library)")
struct ExploreAppCorpusTests {
    static func corpus() throws -> String { try CLI.product("ctxdebug-explore-app-corpus") }

    static func requireLibrary() throws {
        let library = CLI.productsDirectory.appendingPathComponent("libCtxdebugDispatchControl.so").path
        try #require(
            FileManager.default.fileExists(atPath: library),
            "\(library) is not built: `swift build --build-tests` builds it (or `swift build --product CtxdebugDispatchControl`)")
    }

    static func explore(_ arguments: [String], _ command: [String], in directory: TempDirectory) throws -> CommandRun {
        try requireLibrary()
        return try CLI.ctxdebug(
            ["explore", "--seed", "1", "--schedule-dir", "schedules", "--json", "report.json"] + arguments + ["--"] + command,
            in: directory.url)
    }

    static func report(_ directory: TempDirectory) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(contentsOf: directory.file("report.json"))) as? [String: Any])
    }

    @Test(
        "an app-style bug is found, replayed 3 of 3, minimized, and its schedule replays",
        arguments: [
            "group-lost-update", "main-hop-before-save", "semaphore-handoff", "debounce-before-save", "task-unawaited-import",
            "semaphore-timeout-ignored",
            // Barriers, target queues, concurrentPerform, timer sources (ControlledScheduler+Primitives.swift).
            "barrier-cache-dirty-read", "target-queue-lost-update", "apply-check-then-insert", "timer-debounce-before-save",
            // A Swift Testing @MainActor test's shape: the main queue drained by a libdispatch thread.
            "mainactor-test-deferred-save",
        ])
    func bugIsFound(name: String) throws {
        let directory = TempDirectory("explore-app-\(name)")
        let run = try Self.explore(["--iterations", "100"], [try Self.corpus(), name], in: directory)
        #expect(run.status == 1, "\(run)")
        let failure = try #require(try Self.report(directory)["failure"] as? [String: Any], "\(run)")
        #expect(failure["kind"] as? String == "assertion", "\(run.stdout)")
        #expect((failure["detail"] as? String)?.contains("assertion failed") == true, "\(failure)")
        #expect(failure["replaysConfirmed"] as? Int == 3, "\(run.stdout)")
        #expect(failure["reproducible"] as? Bool == true)
        let path = try #require(failure["schedulePath"] as? String)
        let replay = try CLI.ctxdebug(["explore", "--replay", path, "--", try Self.corpus(), name], in: directory.url)
        #expect(replay.status == 1, "the schedule fails again: \(replay)")
        #expect(replay.stdout.contains("3 of 3"), "\(replay.stdout)")
    }

    @Test(
        "a fixed twin passes its budget",
        arguments: [
            "group-lost-update-fixed", "main-hop-before-save-fixed", "semaphore-handoff-fixed", "debounce-before-save-fixed",
            "semaphore-timeout-ignored-fixed",
            "barrier-cache-dirty-read-fixed", "target-queue-lost-update-fixed", "apply-check-then-insert-fixed",
            "timer-debounce-before-save-fixed",
            // Its driver is the test's first job on the main queue, and ends with it: a
            // false hang before (the main queue was taken for the main thread's).
            "mainactor-test-deferred-save-fixed",
        ])
    func twinPasses(name: String) throws {
        let directory = TempDirectory("explore-app-\(name)")
        let run = try Self.explore(["--iterations", "20"], [try Self.corpus(), name], in: directory)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("no failure in 20 schedules"), "\(run.stdout)")
    }

    /// `CTXDEBUG_DISPATCH_COST=FILE` (docs/explore.md, "Speed"): each explored process
    /// appends one line per hook it took, four figures in nanoseconds: the hook's time less
    /// its waits, the real `dispatch_async_f`'s part, the protocol's coding, its CPU time.
    @Test("the cost file has one line of four figures per hook the scheduler took")
    func costFileHasFourFiguresPerHook() throws {
        let directory = TempDirectory("explore-cost-file")
        let file = directory.file("hooks.cost").path
        try Self.requireLibrary()
        let run = try CLI.ctxdebug(
            ["explore", "--seed", "1", "--iterations", "3", "--schedule-dir", "schedules", "--", try Self.corpus(), "main-hop-before-save-fixed"],
            environment: ["CTXDEBUG_DISPATCH_COST": file], in: directory.url)
        #expect(run.status == 0, "\(run)")
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        #expect(!lines.isEmpty, "the hooks of 3 schedules")
        let rows = lines.map { $0.split(separator: " ").compactMap { UInt64($0) } }
        for (line, figures) in zip(lines, rows) { #expect(figures.count == 4, "\(line)") }
        #expect(rows.contains { $0.count == 4 && $0[3] > 0 }, "some hook took CPU time: \(lines)")
    }

    /// A preload library of another layout than the program's runtime (here, one that
    /// exports only the entry point's name before the tables' layout was in it) is not
    /// installed, and the program says so: libdispatch runs uncontrolled, nothing crashes.
    @Test("a preload library of another version is refused with a warning, not a crash")
    func libraryOfAnotherVersionIsRefused() throws {
        let directory = TempDirectory("explore-old-library")
        let source = directory.file("old.c")
        try "int ctxdebug_dispatch_control_install(const void *hooks, void *services) { return 1; }\n"
            .write(to: source, atomically: true, encoding: .utf8)
        let compiler = try #require(CLI.which("clang") ?? CLI.which("cc"), "no C compiler on PATH")
        let library = directory.file("libold.so").path
        let build = try CLI.run(compiler, ["-shared", "-fPIC", "-o", library, source.path])
        try #require(build.status == 0, "\(build)")
        let stderr = directory.file("child-stderr").path
        // The child's own LD_PRELOAD replaces the one `ctxdebug explore` set.
        let run = try Self.explore(
            ["--iterations", "1"],
            ["/bin/sh", "-c", #"LD_PRELOAD="$1" exec "$2" main-hop-before-save-fixed 2>"$3""#, "sh", library, try Self.corpus(), stderr],
            in: directory)
        // Uncontrolled, the run may pass or end as `uncontrolled`; it must not crash.
        let failure = try Self.report(directory)["failure"] as? [String: Any]
        #expect(failure?["kind"] as? String != "crash", "\(run)")
        let said = try String(contentsOfFile: stderr, encoding: .utf8)
        #expect(said.contains("from another version of ctxdebug"), "\(said)")
    }

    /// An XCTest run, unchanged (Tests/ExploreXCTestSample, run through `XCTMain` as
    /// `swift test` runs one): a method that waits with `wait(for:timeout:)` on
    /// expectations fulfilled from the main queue. XCTest's wait spins the main run loop;
    /// under explore it is a modelled wait, so the ordering bug is found, minimized and
    /// replayed, and the fixed method passes its budget (docs/explore.md, "An XCTest,
    /// unchanged").
    @Test("an XCTest method waiting on expectations is explored unchanged: its bug found and replayed, its fix passes")
    func xctestWaitIsExplored() throws {
        let sample = try CLI.product("ctxdebug-explore-xctest-sample")
        let tests = "ctxdebug_explore_xctest_sample.NoteListTests"
        let directory = TempDirectory("explore-xctest-sample")
        let run = try Self.explore(["--iterations", "100"], [sample, "\(tests)/testListShowsImportedNotes"], in: directory)
        #expect(run.status == 1, "\(run)")
        let failure = try #require(try Self.report(directory)["failure"] as? [String: Any], "\(run)")
        #expect(failure["kind"] as? String == "assertion", "\(run.stdout)")
        #expect((failure["detail"] as? String)?.contains("XCTAssertEqual failed") == true, "\(failure)")
        #expect(failure["replaysConfirmed"] as? Int == 3, "\(run.stdout)")
        #expect(run.stdout.contains("minimized:"), "\(run.stdout)")
        let path = try #require(failure["schedulePath"] as? String)
        let replay = try CLI.ctxdebug(["explore", "--replay", path, "--", sample, "\(tests)/testListShowsImportedNotes"], in: directory.url)
        #expect(replay.status == 1, "the schedule fails again: \(replay)")
        #expect(replay.stdout.contains("3 of 3"), "\(replay.stdout)")

        let fixed = TempDirectory("explore-xctest-sample-fixed")
        let twin = try Self.explore(["--iterations", "30", "-j", "2"], [sample, "\(tests)/testListShowsImportedNotesFixed"], in: fixed)
        #expect(twin.status == 0, "\(twin)")
        #expect(twin.stdout.contains("no failure in 30 schedules"), "\(twin.stdout)")
    }

    /// The false bug of issue 50, as a test of ours (Tests/ExploreXCTestSample): the main
    /// thread waits in `waitForExpectations` while a background thread calls
    /// `performAndWait` on the view context (a main-queue context). libdispatch runs that
    /// block on the main thread, inside its run loop's wait; explore used to give the
    /// background unit the main queue while the main thread was parked, so XCTest's
    /// timeout fired in virtual time and a correct method failed. Its twin, whose read
    /// may come before the edit is merged into the view context, is found.
    @Test("a background performAndWait on the main-queue context during waitForExpectations: no false failure; its bug is found")
    func mainQueueSyncDuringTheTestsWait() throws {
        try Self.expectSampleTwins(fixed: "testSyncReadsTheEditedTitle", bug: "testSyncReadsTheEditedTitleBeforeTheMerge", saying: "before the edit was merged")
    }

    /// The same through libdispatch itself: `DispatchQueue.main.sync` from a global queue's
    /// block while the test waits in `wait(for:timeout:)` (the preload library's sync).
    @Test("DispatchQueue.main.sync from a background block during wait(for:): no false failure; its bug is found")
    func dispatchMainSyncDuringTheTestsWait() throws {
        try Self.expectSampleTwins(fixed: "testMainSyncCountsTheImport", bug: "testMainSyncCountsBesideTheImport", saying: "before the import of 2 was saved")
    }

    /// Explore's own limit (issue 50, Tests/ExploreXCTestSample): the expectation is
    /// fulfilled after a back-off of short sleeps, which virtual time keeps no durations
    /// of, so XCTest's watchdog (a long timer) would pass first. Before, that was reported
    /// as the test's failure (XCTest's timeout, an assertion), though every plain run
    /// passes; now each such schedule is set aside as explore's limit, and the exploration
    /// passes, saying so.
    @Test("a watchdog that would pass before a back-off's sleeps end is explore's limit, set aside, not the test's failure")
    func backOffPastTheWatchdogIsTheLimit() throws {
        let sample = try CLI.product("ctxdebug-explore-xctest-sample")
        let method = "ctxdebug_explore_xctest_sample.NoteListTests/testImportAfterABackOff"
        let plain = try CLI.run(sample, [method])
        #expect(plain.status == 0, "a plain run passes: \(plain)")
        let directory = TempDirectory("explore-xctest-back-off")
        let run = try Self.explore(["--iterations", "10"], [sample, method], in: directory)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("set aside:") && run.stdout.contains("reached explore's limit"), "\(run.stdout)")
        let report = try Self.report(directory)
        #expect(report["failure"] is NSNull, "\(report)")
        let setAside = try #require((report["setAside"] as? [[String: Any]])?.first, "\(report)")
        #expect(setAside["reason"] as? String == "limit")
        #expect((setAside["message"] as? String)?.contains("(in a sleep)") == true, "\(setAside)")
    }

    /// The XCTest sample's method `fixed` passes 30 schedules; `bug` fails within 100 as an
    /// assertion that says `saying`, confirmed 3 of 3.
    static func expectSampleTwins(fixed: String, bug: String, saying: String) throws {
        let sample = try CLI.product("ctxdebug-explore-xctest-sample")
        let tests = "ctxdebug_explore_xctest_sample.NoteListTests"
        let twin = try explore(["--iterations", "30", "-j", "2"], [sample, "\(tests)/\(fixed)"], in: TempDirectory("explore-xctest-\(fixed)"))
        #expect(twin.status == 0, "\(twin)")
        #expect(twin.stdout.contains("no failure in 30 schedules"), "\(twin.stdout)")
        let directory = TempDirectory("explore-xctest-\(bug)")
        let run = try explore(["--iterations", "100"], [sample, "\(tests)/\(bug)"], in: directory)
        #expect(run.status == 1, "\(run)")
        let failure = try #require(try report(directory)["failure"] as? [String: Any], "\(run)")
        #expect(failure["kind"] as? String == "assertion", "\(run.stdout)")
        #expect((failure["detail"] as? String)?.contains(saying) == true, "\(failure)")
        #expect(failure["replaysConfirmed"] as? Int == 3, "\(run.stdout)")
    }

    /// The conflict-retry shape of issue 50 (Tests/ExploreAppCorpus, ConflictCases.swift): a
    /// note filed into a folder another context deletes first, retried into the next folder
    /// on the conflict. The fix (the gone folder refreshed before the retry) passes; the
    /// bug (left changed, it conflicts at every retry) is found; and the fix itself fails
    /// with `shouldDeleteInaccessibleFaults` off: the runtime's old behaviour was the cause
    /// of the false failure the issue saw, not the control.
    @Test("the conflict-retry shape: the fix passes, the bug is found, and without shouldDeleteInaccessibleFaults the fix fails")
    func conflictRetryShape() throws {
        let fixed = TempDirectory("explore-conflict-retry-fixed")
        let twin = try Self.explore(["--iterations", "30", "-j", "2"], [try Self.corpus(), "conflict-retry-keeps-gone-folder-fixed"], in: fixed)
        #expect(twin.status == 0, "\(twin)")
        #expect(twin.stdout.contains("no failure in 30 schedules"), "\(twin.stdout)")
        for name in ["conflict-retry-keeps-gone-folder", "probe-conflict-retry-faults-kept"] {
            let directory = TempDirectory("explore-\(name)")
            let run = try Self.explore(["--iterations", "100"], [try Self.corpus(), name], in: directory)
            #expect(run.status == 1, "\(name): \(run)")
            let failure = try #require(try Self.report(directory)["failure"] as? [String: Any], "\(run)")
            #expect((failure["detail"] as? String)?.contains("the note was not filed") == true, "\(name): \(failure)")
        }
    }

    /// A wait explore does not model (Tests/ExploreAppCorpus, `probe-lock-across-point`):
    /// one worker holds an NSLock across a save, the other blocks on it in the kernel
    /// while it holds the turn. The turn passes on, so every schedule ends; before, each
    /// such schedule was a hang after the hang timeout.
    @Test("a unit blocked on a lock of the app's while it holds the turn: the turn passes on, no false hang")
    func uncontrolledWaitPassesTheTurn() throws {
        let directory = TempDirectory("explore-app-lock")
        let run = try Self.explore(
            ["--iterations", "20", "--strategy", "random"], [try Self.corpus(), "probe-lock-across-point"], in: directory)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("no failure in 20 schedules"), "\(run.stdout)")
    }

    /// A schedule that touched an uncontrolled wait replays only as long as the wait ends
    /// the same way: `--replay` says so.
    @Test("--replay says when a schedule touched an uncontrolled wait")
    func replayNamesTheUncontrolledWait() throws {
        let directory = TempDirectory("explore-app-replay-outside")
        let log = [
            #"{"format":"ctxdebug-schedule-log","version":1,"strategy":"random","seed":5,"iteration":0,"granularity":"coarse","reproducible":true}"#,
            #"{"step":0,"actor":"driver","point":"dispatch-async","enabled":["driver","q1"],"defaultIndex":0,"chosen":0}"#,
            #"{"step":1,"actor":"q2","point":"uncontrolled-wait","enabled":["q2"],"defaultIndex":0,"chosen":0}"#,
            #"{"end":true}"#,
        ].joined(separator: "\n") + "\n"
        try Data(log.utf8).write(to: directory.file("outside.log"))
        try Self.requireLibrary()
        let replay = try CLI.ctxdebug(
            ["explore", "--replay", directory.file("outside.log").path, "--", try Self.corpus(), "probe-lock-across-point"], in: directory.url)
        #expect(replay.stderr.contains("the schedule touched an uncontrolled wait"), "\(replay)")
        #expect(replay.stderr.contains("at step 1"), "\(replay)")
    }

    /// A read of a pipe nobody writes (`probe-pipe-never-written`): nothing can run and
    /// nothing comes back, so the run is a hang, with every unit's stack.
    @Test("a unit blocked for good outside the scheduler is a hang with every unit's stack")
    func blockedForGoodIsAHangWithEveryStack() throws {
        let directory = TempDirectory("explore-app-pipe")
        let run = try Self.explore(
            ["--iterations", "1", "--no-minimize", "--hang-timeout", "0.5"], [try Self.corpus(), "probe-pipe-never-written"], in: directory)
        #expect(run.status == 1, "\(run)")
        let failure = try #require(try Self.report(directory)["failure"] as? [String: Any], "\(run)")
        #expect(failure["kind"] as? String == "hang", "\(run.stdout)")
        #expect((failure["message"] as? String)?.contains("blocked in the kernel outside the scheduler") == true, "\(failure)")
        let detail = try #require(failure["detail"] as? String, "\(failure)")
        #expect(detail.contains("(blocked in the kernel, outside the scheduler)"), "\(detail)")
        #expect(detail.contains("driver (waiting for its turn)"), "\(detail)")
        #expect(detail.contains("pipeNeverWritten"), "\(detail)")
    }

    /// The opt-in long run of the targets (docs/benchmarks.md, "Explore: the app-style corpus"):
    /// `RELIABILITY_EXPLORE_APP_TWINS=10000` explores every fixed twin of the corpus and
    /// the XCTest sample's fixed method for that many schedules each (`-j 2`), and
    /// expects no failure. Off by default: 10,000 schedules a twin take 15 to 20 minutes.
    static let twinSchedules = Int(ProcessInfo.processInfo.environment["RELIABILITY_EXPLORE_APP_TWINS"] ?? "") ?? 0

    @Test("every fixed twin passes RELIABILITY_EXPLORE_APP_TWINS schedules (opt-in)", .enabled(if: twinSchedules > 0))
    func everyTwinPassesTheLongRun() throws {
        let listing = try CLI.run(try Self.corpus(), ["list"])
        let twins = listing.stdout.split(separator: "\n").compactMap { $0.split(separator: "\t").first.map(String.init) }
            .filter { $0.hasSuffix("-fixed") }
        #expect(twins.count >= 12, "\(listing.stdout)")
        var commands = twins.map { [try! Self.corpus(), $0] }
        commands.append([try CLI.product("ctxdebug-explore-xctest-sample"), "ctxdebug_explore_xctest_sample.NoteListTests/testListShowsImportedNotesFixed"])
        commands.append([try CLI.product("ctxdebug-explore-xctest-sample"), "ctxdebug_explore_xctest_sample.NoteListTests/testSyncReadsTheEditedTitle"])
        for command in commands {
            let directory = TempDirectory("explore-app-long-\(command.last!.suffix(24))")
            try Self.requireLibrary()
            let run = try CLI.ctxdebug(
                ["explore", "--seed", "1", "--schedule-dir", "schedules", "--iterations", String(Self.twinSchedules), "-j", "2", "--"] + command,
                in: directory.url, timeout: nil)
            #expect(run.status == 0, "\(command.last!): \(run)")
            #expect(run.stdout.contains("no failure in \(Self.twinSchedules) schedules"), "\(run.stdout)")
        }
    }
}
