import ExploreModel
import Foundation
import Testing
import TestSupport

/// `ctxdebug explore`, the parent side of the protocol, end to end: the BUILT `ctxdebug`
/// explores the BUILT `ctxdebug-explore-fake-child` (Tests/ExploreFakeChild), which
/// speaks the child side by hand over a scripted program: a driver and a queue q1,
/// failing when q1's block starts before the driver's fetch (one deviation from FIFO,
/// at step 1). Nothing here depends on timing but the hang test's own --hang-timeout,
/// and the slow-backtrace test's stand-in backtracer, which sleeps past the silence
/// limit (a slower machine only makes it sleep longer).
@Suite("ctxdebug explore (built binary, fake child)")
struct ExploreCommandTests {
    static func fakeChild() throws -> String { try CLI.product("ctxdebug-explore-fake-child") }

    /// `ctxdebug explore ARGS -- fake-child MODE`, in a fresh directory.
    static func explore(
        _ arguments: [String], mode: String, in directory: TempDirectory, environment: [String: String] = [:]
    ) throws -> CommandRun {
        try CLI.ctxdebug(["explore"] + arguments + ["--", try fakeChild(), mode], environment: environment, in: directory.url)
    }

    static func json(_ path: URL) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(contentsOf: path)) as? [String: Any])
    }

    @Test("finds the bug, minimizes it to its one deviation, replays it 3 of 3 with sites, writes the schedule")
    func findsMinimizesReplays() throws {
        let directory = TempDirectory("explore-find")
        let run = try Self.explore(
            ["--strategy", "random", "--seed", "7", "--iterations", "200", "--json", "report.json", "--schedule-dir", "schedules"],
            mode: "bug", in: directory)
        #expect(run.status == 1, "\(run)")
        #expect(run.stdout.contains("FAILED after"), "\(run.stdout)")
        let report = try Self.json(directory.file("report.json"))
        let failure = try #require(report["failure"] as? [String: Any])
        #expect(failure["kind"] as? String == "assertion")
        #expect((failure["message"] as? String)?.contains("exited with status 1") == true)
        #expect((failure["detail"] as? String)?.contains("lost update") == true, "the end of COMMAND's output is the detail")
        #expect(failure["replaysConfirmed"] as? Int == 3)
        #expect(failure["replaysAttempted"] as? Int == 3)
        #expect(failure["reproducible"] as? Bool == true)
        #expect((failure["deviationsBeforeMinimizing"] as? Int ?? 0) >= 1)
        let path = try #require(failure["schedulePath"] as? String)
        #expect(path.hasPrefix(directory.url.appendingPathComponent("schedules").path) || path.contains("/schedules/"))
        let schedule = try Self.json(URL(fileURLWithPath: path))
        #expect(schedule["format"] as? String == "ctxdebug-schedule")
        #expect(schedule["version"] as? Int == 1)
        #expect(schedule["deviations"] as? [Int] == [1], "minimized to the one deviation that matters")
        let choices = try #require(schedule["choices"] as? [String])
        #expect(Array(choices.prefix(2)) == ["driver", "q1"])
        let steps = try #require(schedule["steps"] as? [[String: Any]])
        #expect(steps[1]["site"] as? String == "FakeChild.swift:101 in q1Step0()", "the replays' sites annotate the steps")
        #expect(steps[1]["point"] as? String == "block-start")
        #expect(steps[1]["queue"] as? String == "background")
        #expect((schedule["failure"] as? [String: Any])?["kind"] as? String == "assertion")
        #expect(run.stdout.contains("ctxdebug explore --replay \(path) -- \(try Self.fakeChild()) bug"), "\(run.stdout)")
        #expect(run.stdout.contains("q1 (background)'s block-start at FakeChild.swift:101 ran before driver's fetch"), "\(run.stdout)")
    }

    @Test("a child that speaks another version of the protocol fails the schedule as uncontrolled, saying to rebuild")
    func otherProtocolVersion() throws {
        let directory = TempDirectory("explore-old-protocol")
        let run = try Self.explore(["--iterations", "5", "--json", "report.json", "--schedule-dir", "s"], mode: "old-protocol", in: directory)
        #expect(run.status == 1, "\(run)")
        let failure = try #require(try Self.json(directory.file("report.json"))["failure"] as? [String: Any])
        #expect(failure["kind"] as? String == "uncontrolled")
        let message = try #require(failure["message"] as? String)
        #expect(message.contains("speaks version 1 of the explore protocol, this ctxdebug speaks \(ExploreMessage.version)"), "\(message)")
        #expect(message.contains("build COMMAND against this ctxdebug"), "\(message)")
    }

    @Test("--replay runs the schedule file exactly, 3 times; a changed program says where it diverged")
    func replaysExactlyAndDiverges() throws {
        let directory = TempDirectory("explore-replay")
        let found = try Self.explore(
            ["--strategy", "random", "--iterations", "200", "--json", "found.json", "--schedule-dir", "s"], mode: "bug", in: directory)
        #expect(found.status == 1, "\(found)")
        let foundFailure = try #require(try Self.json(directory.file("found.json"))["failure"] as? [String: Any])
        let path = try #require(foundFailure["schedulePath"] as? String)
        let recorded = try Self.json(URL(fileURLWithPath: path))

        let replay = try Self.explore(["--replay", path, "--json", "replay.json"], mode: "bug", in: directory)
        #expect(replay.status == 1, "\(replay)")
        let report = try Self.json(directory.file("replay.json"))
        #expect(report["schedulesRun"] as? Int == 3)
        let failure = try #require(report["failure"] as? [String: Any])
        #expect(failure["replaysConfirmed"] as? Int == 3)
        let replayed = try #require(failure["schedule"] as? [String: Any])
        #expect(replayed["choices"] as? [String] == recorded["choices"] as? [String], "the same choices, step for step")
        #expect(replayed["deviations"] as? [Int] == recorded["deviations"] as? [Int])

        let fixed = try Self.explore(["--replay", path], mode: "pass", in: directory)
        #expect(fixed.status == 0, "the fixed twin passes the schedule: \(fixed)")
        #expect(fixed.stderr.contains("ran 3 times without failing"), "\(fixed.stderr)")

        let changed = try Self.explore(["--replay", path, "--json", "changed.json"], mode: "changed", in: directory)
        #expect(changed.status == 1, "\(changed)")
        #expect(changed.stdout.contains("diverged at step 1"), "\(changed.stdout)")
        let diverged = try #require(try Self.json(directory.file("changed.json"))["failure"] as? [String: Any])
        #expect(diverged["kind"] as? String == "diverged")
    }

    @Test("a fixed program passes a whole delay:2 search, which ends when it is exhausted")
    func fixedTwinPassesExhaustiveSearch() throws {
        let directory = TempDirectory("explore-pass")
        let run = try Self.explore(["--strategy", "delay:2", "-j", "2", "--json", "r.json"], mode: "pass", in: directory)
        #expect(run.status == 0, "\(run)")
        let report = try Self.json(directory.file("r.json"))
        #expect(report["exhausted"] as? Bool == true)
        // The program's schedules (d = driver, q = q1; q1 enabled after d's first step):
        // dddqq (FIFO), ddqqd and dqqdd (one deviation each), ddqdq and dqddq (two):
        // every one within two deviations, each once, fed by the traces the parent kept.
        #expect(report["schedulesRun"] as? Int == 5, "\(report)")
        #expect(run.stderr.contains("one ordered search: it ran with one worker, not 2"), "\(run.stderr)")
        #expect(run.stdout.contains("passed: no failure"), "\(run.stdout)")
    }

    @Test(
        "each way a schedule fails has its kind",
        arguments: [("crash", "crash"), ("violation", "violation"), ("deadlock", "deadlock"), ("hang", "hang")])
    func failureKinds(mode: String, kind: String) throws {
        let directory = TempDirectory("explore-\(mode)")
        let run = try Self.explore(
            ["--strategy", "random", "--iterations", "100", "--hang-timeout", "0.5", "--no-minimize", "--json", "r.json"], mode: mode,
            in: directory)
        #expect(run.status == 1, "\(run)")
        let failure = try #require(try Self.json(directory.file("r.json"))["failure"] as? [String: Any])
        #expect(failure["kind"] as? String == kind, "\(run.stdout)")
        #expect(failure["replaysConfirmed"] as? Int == 3, "\(run.stdout)")
        if mode == "crash" { #expect((failure["message"] as? String)?.contains("SIGABRT") == true) }
    }

    /// A crashing Swift process says nothing while the runtime's `swift-backtrace`
    /// describes it: seconds for a large binary on a busy machine, longer than the
    /// silence that means a hang. Here a stand-in backtracer (`SWIFT_BACKTRACE`'s
    /// `swift-backtrace=` setting) takes 2 s against a 1.5 s silence limit.
    @Test("a crash whose Swift backtrace outlasts the hang timeout is a crash, not a hang")
    func aSlowBacktraceIsACrash() throws {
        let directory = TempDirectory("explore-slow-backtrace")
        let backtracer = directory.file("swift-backtrace")
        let ran = directory.file("backtracer-ran").path
        try "#!/bin/sh\ntouch '\(ran)'\nsleep 2\n".write(to: backtracer, atomically: true, encoding: .utf8)
        chmod(backtracer.path, 0o755)
        let run = try Self.explore(
            ["--strategy", "random", "--iterations", "100", "--hang-timeout", "0.25", "--no-minimize", "--json", "r.json"], mode: "crash",
            in: directory, environment: ["SWIFT_BACKTRACE": "enable=yes,swift-backtrace=\(backtracer.path)"])
        #expect(FileManager.default.fileExists(atPath: ran), "the stand-in backtracer never ran: \(run)")
        #expect(run.status == 1, "\(run)")
        let failure = try #require(try Self.json(directory.file("r.json"))["failure"] as? [String: Any])
        #expect(failure["kind"] as? String == "crash", "\(run.stdout)")
        #expect((failure["message"] as? String)?.contains("SIGABRT") == true, "\(run.stdout)")
        #expect(failure["replaysConfirmed"] as? Int == 3, "\(run.stdout)")
    }

    @Test("with --allow-uncontrolled a failure's schedule is marked not reproducible, and its replay line keeps the flag")
    func allowUncontrolledIsNotReproducible() throws {
        let directory = TempDirectory("explore-uncontrolled")
        let run = try Self.explore(
            ["--strategy", "random", "--iterations", "100", "--allow-uncontrolled", "--json", "r.json", "--schedule-dir", "s"], mode: "bug",
            in: directory)
        #expect(run.status == 1, "\(run)")
        let failure = try #require(try Self.json(directory.file("r.json"))["failure"] as? [String: Any])
        #expect(failure["reproducible"] as? Bool == false)
        #expect((failure["schedule"] as? [String: Any])?["reproducible"] as? Bool == false)
        #expect((failure["replayCommand"] as? String)?.contains("--allow-uncontrolled --") == true, "\(failure)")
    }

    @Test("steps are numbered across the processes of one COMMAND")
    func stepsNumberedAcrossConnections() throws {
        let directory = TempDirectory("explore-two")
        let run = try Self.explore(
            ["--strategy", "random", "--iterations", "200", "--json", "r.json", "--schedule-dir", "s"], mode: "two", in: directory)
        #expect(run.status == 1, "\(run)")
        let failure = try #require(try Self.json(directory.file("r.json"))["failure"] as? [String: Any])
        let schedule = try #require(failure["schedule"] as? [String: Any])
        #expect(schedule["deviations"] as? [Int] == [3], "the warm-up process took steps 0 and 1")
        #expect((schedule["steps"] as? [[String: Any]])?[3]["site"] as? String == "FakeChild.swift:101 in q1Step0()")
    }

    @Test("a process that connects while another waits for it is served, its steps numbered as they come")
    func nestedConnections() throws {
        let directory = TempDirectory("explore-nested")
        let run = try Self.explore(
            ["--strategy", "random", "--iterations", "200", "--hang-timeout", "1", "--json", "r.json", "--schedule-dir", "s"],
            mode: "nested", in: directory)
        #expect(run.status == 1, "\(run)")
        let failure = try #require(try Self.json(directory.file("r.json"))["failure"] as? [String: Any])
        #expect(failure["kind"] as? String == "assertion", "not a hang: \(run.stdout)")
        let schedule = try #require(failure["schedule"] as? [String: Any])
        #expect(schedule["deviations"] as? [Int] == [2], "the waiting process took step 0, the nested one steps 1 to 5")
        let sites = (schedule["steps"] as? [[String: Any]])?.map { $0["site"] as? String }
        #expect(sites?.first == "FakeChild.swift:100 in driverStep0()")
        #expect(sites?[2] == "FakeChild.swift:101 in q1Step0()")
        #expect(sites?.last == "FakeChild.swift:101 in driverStep0()", "each connection's sites go to its own steps: its second decision")
    }

    @Test("COMMAND runs with the protocol's variables and report mode")
    func childEnvironment() throws {
        let directory = TempDirectory("explore-env")
        let envFile = directory.file("env").path
        let run = try Self.explore(
            ["--strategy", "random", "--iterations", "1", "--granularity", "fine", "--allow-uncontrolled", "--hang-timeout", "3"],
            mode: "pass", in: directory, environment: ["CTXDEBUG_FAKE_ENV": envFile, "CTXDEBUG_EXITCODE": "0"])
        #expect(run.status == 0, "\(run)")
        let lines = Set(try String(contentsOfFile: envFile, encoding: .utf8).split(separator: "\n").map(String.init))
        #expect(lines.contains { $0.hasPrefix("CTXDEBUG_EXPLORE_SOCKET=/") && $0.hasSuffix(".sock") })
        for expected in [
            "CTXDEBUG_EXPLORE_GRANULARITY=fine", "CTXDEBUG_EXPLORE_ALLOW_UNCONTROLLED=1", "CTXDEBUG_EXPLORE_HANG_TIMEOUT=3.0",
            "CTXDEBUG_CONCURRENCY=1", "CTXDEBUG_ON_VIOLATION=report",
        ] {
            #expect(lines.contains(expected), "\(expected) in \(lines.sorted())")
        }
        #expect(!lines.contains { $0.hasPrefix("CTXDEBUG_EXITCODE=") }, "report mode must exit 66 on violations")
        #expect(!lines.contains { $0.hasPrefix("CTXDEBUG_EXPLORE_SITES=") }, "sites only for the runs of a failure")
    }

    /// SwiftPM keys its manifest cache on the whole environment: a variable that changed
    /// from one schedule to the next made every `swift test --skip-build` under explore
    /// evaluate the package's manifests again (about 6 s of a 7 s schedule, measured on a
    /// package with one dependency).
    @Test("Every schedule of a worker runs COMMAND with the same environment (SwiftPM's manifest cache stays warm)")
    func sameEnvironmentEverySchedule() throws {
        let directory = TempDirectory("explore-env-stable")
        let envFile = directory.file("env").path
        let run = try Self.explore(
            ["--strategy", "random", "--iterations", "3", "-j", "1"],
            mode: "pass", in: directory, environment: ["CTXDEBUG_FAKE_ENV": envFile, "CTXDEBUG_EXITCODE": "0"])
        #expect(run.status == 0, "\(run)")
        let lines = try String(contentsOfFile: envFile, encoding: .utf8).split(separator: "\n").map(String.init)
        let sockets = lines.filter { $0.hasPrefix("CTXDEBUG_EXPLORE_SOCKET=") }
        #expect(sockets.count == 3, "one line per schedule: \(lines)")
        #expect(Set(sockets).count == 1, "the socket's path changed between schedules: \(sockets)")
        #expect(Set(lines).count * 3 == lines.count, "every variable the same in each of the 3 runs: \(lines)")
    }

    /// The choices each run got, one line per run, from the `long` program (8 steps of
    /// three actors: with a random strategy no two iterations' lines are equal).
    static func choiceLines(_ arguments: [String], in directory: TempDirectory, log: String) throws -> [String] {
        let path = directory.file(log).path
        let run = try explore(
            ["--strategy", "random", "--seed", "3"] + arguments, mode: "long", in: directory, environment: ["CTXDEBUG_FAKE_LOG": path])
        #expect(run.status == 0, "\(run)")
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    @Test("-j 2 and --shard 1/2 + 2/2 run disjoint iterations that together are the budget")
    func workersAndShardsPartitionTheBudget() throws {
        let directory = TempDirectory("explore-shards")
        let all = try Self.choiceLines(["--iterations", "24"], in: directory, log: "all")
        #expect(all.count == 24)
        #expect(Set(all).count == 24, "each iteration's schedule differs")
        let parallel = try Self.choiceLines(["--iterations", "24", "-j", "2"], in: directory, log: "parallel")
        #expect(parallel.sorted() == all.sorted(), "-j 2 runs the same 24 schedules")
        let first = try Self.choiceLines(["--iterations", "24", "--shard", "1/2"], in: directory, log: "shard1")
        let second = try Self.choiceLines(["--iterations", "24", "--shard", "2/2", "-j", "2"], in: directory, log: "shard2")
        #expect(first.count == 12 && second.count == 12)
        #expect(Set(first).isDisjoint(with: second))
        #expect((first + second).sorted() == all.sorted())
    }

    @Test(
        "usage errors exit 64 and say what is accepted",
        arguments: [
            (["--strategy", "bogus"], "accepted: random"), (["--strategy", "pct:0"], "pct's depth must be"),
            (["--shard", "3/2"], "expected K/N"), (["--strategy", "delay:1", "--shard", "1/2"], "one ordered search"),
            (["--time", "soon"], "expected a duration"), (["--granularity", "medium"], "coarse or fine"),
            (["-j", "0"], "-j must be"),
        ])
    func usageErrors(arguments: [String], message: String) throws {
        let directory = TempDirectory("explore-usage")
        let run = try Self.explore(arguments, mode: "bug", in: directory)
        #expect(run.status == 64, "\(run)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    @Test("no COMMAND, a COMMAND that is not there or cannot run, a COMMAND that never connects")
    func commandProblems() throws {
        let directory = TempDirectory("explore-command")
        let none = try CLI.ctxdebug(["explore", "--iterations", "3"], in: directory.url)
        #expect(none.status == 64 && none.stderr.contains("missing the command to run"), "\(none)")
        let missing = try CLI.ctxdebug(["explore", "--", "/nonexistent/ctxdebug-no-such-command"], in: directory.url)
        #expect(missing.status == 127, "\(missing)")
        let notExecutable = directory.file("plain.txt")
        try Data("not a program".utf8).write(to: notExecutable)
        let cannot = try CLI.ctxdebug(["explore", "--", notExecutable.path], in: directory.url)
        #expect(cannot.status == 126, "\(cannot)")
        let silent = try Self.explore(["--iterations", "50"], mode: "silent", in: directory)
        #expect(silent.status == 64, "\(silent)")
        #expect(silent.stderr.contains("nothing to explore"), "\(silent.stderr)")
    }

    @Test("--time alone bounds the exploration; a --replay file that is not a schedule exits 65")
    func timeAndUnreadableReplay() throws {
        let directory = TempDirectory("explore-time")
        let timed = try Self.explore(["--strategy", "random", "--time", "300ms", "--json", "r.json"], mode: "pass", in: directory)
        #expect(timed.status == 0, "\(timed)")
        #expect((try Self.json(directory.file("r.json"))["schedulesRun"] as? Int ?? 0) >= 1)
        try Data("{\"format\": \"something-else\"}".utf8).write(to: directory.file("not-a-schedule.json"))
        let replay = try Self.explore(["--replay", "not-a-schedule.json"], mode: "bug", in: directory)
        #expect(replay.status == 65, "\(replay)")
        #expect(replay.stderr.contains("not a ctxdebug schedule file"), "\(replay.stderr)")
        let missing = try Self.explore(["--replay", "missing.json"], mode: "bug", in: directory)
        #expect(missing.status == 65, "\(missing)")
    }

    @Test(
        "Ctrl-C (or SIGTERM) kills the schedule under way (its own process group) and exits 128 + the signal",
        arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func interruptKillsTheRun(signal: Int32, status: Int32) throws {
        let directory = TempDirectory("explore-interrupt")
        let pidFile = directory.file("child.pid").path
        try #require(mkfifo(pidFile, 0o600) == 0)
        let explorer = try ChildProcess(
            try CLI.ctxdebugPath(), ["explore", "--hang-timeout", "300", "--", try Self.fakeChild(), "stall"],
            environment: ["CTXDEBUG_FAKE_PID": pidFile], in: directory.url)
        // Waits for the child to have started: it writes its pid into the FIFO.
        let pid = try #require(Self.readPID(fifo: pidFile), "the fake child never started")
        // A guard, not an ordering: a ctxdebug that ignores the interrupt is ended.
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) { [explorerPID = explorer.pid] in kill(explorerPID, SIGKILL) }
        kill(explorer.pid, signal)
        explorer.process.waitUntilExit()
        let killed = Self.wasKilled(pid)
        kill(pid, SIGKILL)  // a child left alive would hold ctxdebug's output open
        let run = explorer.wait()
        #expect(run.status == status, "\(run)")
        #expect(run.stderr.contains("interrupted"), "\(run.stderr)")
        #expect(killed, "the child was killed, not left waiting on the socket")
    }

    @Test("the schedule under way is in the schedule directory as a step log: when ctxdebug explore dies, it is left behind and reads back")
    func runningScheduleSurvivesTheParent() throws {
        let directory = TempDirectory("explore-running-log")
        let pidFile = directory.file("child.pid").path
        let log = directory.file("schedules/running-w0.log").path
        try #require(mkfifo(pidFile, 0o600) == 0)
        let explorer = try ChildProcess(
            try CLI.ctxdebugPath(),
            ["explore", "--hang-timeout", "300", "--schedule-dir", "schedules", "--", try Self.fakeChild(), "freeze"],
            environment: ["CTXDEBUG_FAKE_PID": pidFile], in: directory.url)
        // A guard, not an ordering: a ctxdebug left running is ended.
        DispatchQueue.global().asyncAfter(deadline: .now() + 120) { [explorerPID = explorer.pid] in kill(explorerPID, SIGKILL) }
        // The frozen child says its pid once every decision was answered, so logged.
        let pid = Self.readPID(fifo: pidFile)
        kill(explorer.pid, SIGKILL)  // ctxdebug explore dies: no exit hook, no clean-up
        explorer.process.waitUntilExit()
        if let pid { kill(pid, SIGKILL) }
        try #require(pid != nil, "the fake child never finished its decisions")
        _ = explorer.wait()
        let assembled = try StepLog.assemble(Data(contentsOf: URL(fileURLWithPath: log)))
        #expect(assembled.schedule.steps.count >= 2, "the decisions taken before it died")
        #expect(!assembled.finished, "the run had not ended")
        #expect(assembled.schedule.strategy == "random" || !assembled.schedule.strategy.isEmpty)
        #expect(assembled.schedule.iteration == 0)
    }

    /// The pid a fake child writes into the FIFO at `path`, waited for on a semaphore (a
    /// minute at most, a guard against a child that never runs, not a speed threshold).
    static func readPID(fifo path: String) -> pid_t? {
        let read = LockedBox<pid_t?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let fd = open(path, O_RDONLY)  // blocks until the child opens it to write
            if fd >= 0 {
                var bytes = [UInt8](repeating: 0, count: 32)
                let n = Glibc.read(fd, &bytes, bytes.count)
                close(fd)
                if n > 0 { read.set(pid_t(String(decoding: bytes[..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))) }
            }
            done.signal()
        }
        if done.wait(timeout: .now() + 60) == .timedOut {
            // Unblock the reader: a writer that opens and closes gives it end of file.
            let fd = open(path, O_WRONLY | O_NONBLOCK)
            if fd >= 0 { close(fd) }
            return nil
        }
        return read.get()
    }

    /// True when `pid` is gone, a zombie, or has SIGKILL pending (sent, not yet acted
    /// on: a busy machine may not have run it yet), from /proc/PID/status.
    static func wasKilled(_ pid: pid_t) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return true }
        var fields: [String: String] = [:]
        for line in status.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        if let state = fields["State"], state.hasPrefix("Z") || state.hasPrefix("X") { return true }
        let sigkill = UInt64(1) << UInt64(SIGKILL - 1)
        return ["SigPnd", "ShdPnd"].contains { fields[$0].flatMap { UInt64($0, radix: 16) }.map { $0 & sigkill != 0 } ?? false }
    }

    @Test("a schedule directory that cannot be written exits 74 before exploring")
    func scheduleDirectoryUnwritable() throws {
        let directory = TempDirectory("explore-dir")
        try Data().write(to: directory.file("file"))
        let run = try Self.explore(["--schedule-dir", "file/schedules"], mode: "bug", in: directory)
        #expect(run.status == 74, "\(run)")
        #expect(run.stderr.contains("--schedule-dir"), "\(run.stderr)")
    }

    @Test("--junit and --sarif files name the failure")
    func ciFiles() throws {
        let directory = TempDirectory("explore-ci")
        let run = try Self.explore(
            ["--strategy", "random", "--iterations", "100", "--junit", "e.xml", "--sarif", "e.sarif", "--schedule-dir", "s"], mode: "bug",
            in: directory)
        #expect(run.status == 1, "\(run)")
        let junit = try String(contentsOf: directory.file("e.xml"), encoding: .utf8)
        #expect(junit.contains("<failure") && junit.contains("assertion"), "\(junit)")
        let sarif = try Self.json(directory.file("e.sarif"))
        let runs = try #require(sarif["runs"] as? [[String: Any]])
        #expect((runs.first?["results"] as? [[String: Any]])?.count == 1)
    }
}

/// `ctxdebug explore` over the runtime's own child side: the BUILT
/// `ctxdebug-explore-sample` (Tests/ExploreSample) races two contexts' read-modify-write
/// increments of one counter on a real SQLite store. FIFO order keeps both increments;
/// a schedule that lets both blocks fetch before either saves loses one.
@Suite("ctxdebug explore (built binary, the runtime's child side)")
struct ExploreRuntimeTests {
    static func explore(_ arguments: [String], mode: String, in directory: TempDirectory) throws -> CommandRun {
        try CLI.ctxdebug(["explore"] + arguments + ["--", try CLI.product("ctxdebug-explore-sample"), mode], in: directory.url)
    }

    @Test("a lost update is found, minimized, replayed 3 of 3; its file replays exactly; a changed program diverges")
    func lostUpdate() throws {
        let directory = TempDirectory("explore-runtime")
        let found = try Self.explore(["--iterations", "200", "--json", "found.json", "--schedule-dir", "s"], mode: "lost-update", in: directory)
        #expect(found.status == 1, "\(found)")
        let failure = try #require(try ExploreCommandTests.json(directory.file("found.json"))["failure"] as? [String: Any])
        #expect(failure["kind"] as? String == "assertion")
        #expect((failure["detail"] as? String)?.contains("two increments left the counter at 1") == true, "\(failure)")
        #expect(failure["replaysConfirmed"] as? Int == 3)
        #expect(failure["reproducible"] as? Bool == true)
        let path = try #require(failure["schedulePath"] as? String)
        let recorded = try ExploreCommandTests.json(URL(fileURLWithPath: path))
        let deviations = try #require(recorded["deviations"] as? [Int])
        #expect(!deviations.isEmpty && deviations.count <= failure["deviationsBeforeMinimizing"] as? Int ?? 0)
        let steps = try #require(recorded["steps"] as? [[String: Any]])
        #expect(steps.contains { ($0["site"] as? String)?.hasPrefix("main.swift:") == true }, "the replays' sites: \(steps)")
        #expect(steps.contains { $0["point"] as? String == "store-write" && $0["queue"] as? String == "a" })
        #expect(found.stdout.contains("ran before"), "the deviations in words: \(found.stdout)")

        let replay = try Self.explore(["--replay", path, "--json", "replay.json"], mode: "lost-update", in: directory)
        #expect(replay.status == 1, "\(replay)")
        let replayed = try #require(try ExploreCommandTests.json(directory.file("replay.json"))["failure"] as? [String: Any])
        #expect(replayed["replaysConfirmed"] as? Int == 3)
        #expect((replayed["schedule"] as? [String: Any])?["choices"] as? [String] == recorded["choices"] as? [String])

        let changed = try Self.explore(["--replay", path], mode: "changed", in: directory)
        #expect(changed.status == 1, "\(changed)")
        #expect(changed.stdout.contains("diverged at step"), "\(changed.stdout)")
    }

    @Test("the fixed twin passes every schedule within two deviations")
    func fixedTwin() throws {
        let directory = TempDirectory("explore-runtime-fixed")
        let run = try Self.explore(["--strategy", "delay:2", "--json", "r.json"], mode: "fixed", in: directory)
        #expect(run.status == 0, "\(run)")
        let report = try ExploreCommandTests.json(directory.file("r.json"))
        #expect(report["exhausted"] as? Bool == true)
        #expect((report["schedulesRun"] as? Int ?? 0) > 1)
    }
}

/// A value set on one thread and read on another, under a lock.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func set(_ new: Value) { lock.lock(); value = new; lock.unlock() }
    func get() -> Value { lock.lock(); defer { lock.unlock() }; return value }
}
