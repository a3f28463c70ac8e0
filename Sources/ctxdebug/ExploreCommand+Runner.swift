import ConcurrencyDebug
import CtxdebugHelpers
import ExploreModel
import Foundation
import Reports
#if canImport(Glibc)
import Glibc
#endif

/// Runs COMMAND once per schedule for one worker: the worker's socket, the same for each run,
/// COMMAND in its own process group, every decision answered by the strategy, and the
/// verdict read from what the children said and how COMMAND ended.
final class ExploreRunner: ScheduleRunner {
    let command: [String]
    let granularity: ExploreGranularity
    let hangTimeout: Double
    let allowUncontrolled: Bool
    let scheduleDirectory: String
    /// The worker's own directory: sockets, COMMAND's output, violation reports.
    let directory: String
    let groups: ExploreProcessGroups

    init(settings: ExploreSettings, granularity: ExploreGranularity, directory: String, groups: ExploreProcessGroups) throws {
        command = settings.command
        self.granularity = granularity
        hangTimeout = settings.plan.options.hangTimeout
        allowUncontrolled = settings.plan.options.allowUncontrolled
        scheduleDirectory = settings.plan.scheduleDirectory
        self.directory = directory
        self.groups = groups
        try FileManager.default.createDirectory(atPath: reportDirectory, withIntermediateDirectories: true)
    }

    var outputPath: String { directory + "/output.log" }
    /// The step log of the schedule under way, in the schedule directory.
    var runningLog: String { scheduleDirectory + "/running-" + (directory as NSString).lastPathComponent + ".log" }
    var reportDirectory: String { directory + "/reports" }

    /// Runs COMMAND once, `strategy` answering (it is left as the run left it). With
    /// `sites`, the children send their steps' source sites at exit.
    ///
    /// With `log`, the schedule's steps also go to `runningLog` as they are taken (a
    /// step log, which `--replay` reads): if `ctxdebug explore` itself dies, the schedule
    /// under way is left behind. The log is removed once the run is over.
    func run(_ strategy: inout any ExplorationStrategy, sites: Bool, log header: ScheduleHeader?) throws -> ScheduleRun {
        // One path for every run of the worker: COMMAND's environment must not change
        // between schedules (SwiftPM keys its manifest cache on all of it). The last
        // run's group is dead by now, so nothing of it can connect here.
        let listener = try ExploreListener(path: directory + "/explore.sock")
        try prepareFiles()
        let spawned = CommandProcess.spawn(
            command, environment: environment(socket: listener.path, sites: sites), ownProcessGroup: true,
            streams: CommandProcess.Streams(nullInput: true, outputFile: outputPath))
        let pid = try spawned.get()
        groups.insert(pid)
        var session = ExploreRunSession(strategy: strategy)
        if header != nil { try? FileManager.default.createDirectory(atPath: scheduleDirectory, withIntermediateDirectories: true) }
        session.log = header.flatMap { try? StepLogWriter.create(path: runningLog, header: $0) }
        let ending = serve(listener, pid: pid, session: &session)
        kill(-pid, SIGKILL)  // what is left of the group: nothing of it may reach the next run
        groups.remove(pid)
        strategy = session.strategy
        let outcome = ScheduleRun(
            steps: session.steps, failure: verdict(session, ending), reproducible: session.reproducible && !allowUncontrolled,
            explored: session.connections > 0)
        if var log = session.log {
            if let failure = outcome.failure { try? log.writeFailure(failure) } else { try? log.writeEnd() }
            log.close()
            try? FileManager.default.removeItem(atPath: runningLog)
        }
        return outcome
    }

    /// How COMMAND ended: it exited (and every connection closed), or it was hung and killed.
    enum Ending {
        case exited(CommandProcess.Status)
        case hung(CommandProcess.Status)
    }

    /// Serves every process of COMMAND that connects (one after another, or one while
    /// another waits for it) until COMMAND has exited and no connection is left, or the
    /// connected processes are all silent for longer than the runtime's own watchdog
    /// needs to report a hang (twice the hang timeout, and a second). The time a
    /// process takes to crash (`swift-backtrace`, a core dump) is not silence.
    private func serve(_ listener: ExploreListener, pid: pid_t, session: inout ExploreRunSession) -> Ending {
        var open: [Int32: (connection: ExploreConnection, number: Int)] = [:]
        var status: CommandProcess.Status?
        var lastHeard = MonotonicClock.now()
        var crashSeen: UInt64?
        var idleWait: Int32 = 1
        let silenceLimit = UInt64((2 * hangTimeout + 1) * 1e9)
        while true {
            if status == nil { status = CommandProcess.reap(pid) }
            let waitMilliseconds: Int32
            if !open.isEmpty {
                let now = MonotonicClock.now()
                let silent = now - lastHeard
                if silent >= silenceLimit {
                    if now - (crashSeen ?? now) < Self.crashLimit, CommandProcess.groupIsCrashing(pid) {
                        crashSeen = crashSeen ?? now
                        lastHeard = now
                        continue
                    }
                    kill(-pid, SIGKILL)
                    return .hung(status ?? CommandProcess.wait(pid))
                }
                waitMilliseconds = Int32(min(status == nil ? 50 : 1_000, (silenceLimit - silent) / 1_000_000 + 1))
            } else {
                waitMilliseconds = status == nil ? idleWait : 0
            }
            let ready = pollReadable([listener.descriptor] + open.keys, milliseconds: waitMilliseconds)
            for descriptor in ready where descriptor != listener.descriptor {
                guard let (connection, number) = open[descriptor] else { continue }
                for line in connection.readLines() {
                    if let answer = session.handle(line, from: number), let reply = try? answer.line() { connection.send(line: reply) }
                }
                if connection.isClosed { open[descriptor] = nil }
                lastHeard = MonotonicClock.now()
            }
            if ready.contains(listener.descriptor), let accepted = listener.accept() {
                open[accepted.descriptor] = (accepted, session.beginConnection())
                lastHeard = MonotonicClock.now()
            }
            if ready.isEmpty, open.isEmpty, let status { return .exited(status) }
            idleWait = ready.isEmpty ? min(idleWait * 2, 16) : 1
        }
    }

    /// How long a run may spend crashing (in `swift-backtrace` or a core dump) before
    /// it counts as hung: past the 30 s that the backtracer gives itself by default.
    static let crashLimit: UInt64 = 60_000_000_000

    /// The run's failure: what a child reported first; else a hang, a crash, a
    /// violation or an assertion from how COMMAND ended; nil when it passed.
    private func verdict(_ session: ExploreRunSession, _ ending: Ending) -> ScheduleFailure? {
        if let reported = session.failure { return reported }
        let commandText = command.joined(separator: " ")
        switch ending {
        case .hung:
            return ScheduleFailure(
                kind: .hang,
                message: "no scheduling point and no exit for \(Self.seconds(2 * hangTimeout + 1)) while a process of `\(commandText)` was connected;"
                    + " its process group was killed",
                detail: outputTail())
        case .exited(.signaled(let signal)):
            return ScheduleFailure(
                kind: .crash, message: "`\(commandText)` was killed by signal \(signal) (\(Self.signalName(signal)))", detail: outputTail())
        case .exited(let status):
            if let violation = violationFailure(status: status) { return violation }
            guard status.code != 0 else { return nil }
            return ScheduleFailure(kind: .assertion, message: "`\(commandText)` \(status.description)", detail: outputTail())
        }
    }

    /// A violation when a process left a report of violations, or COMMAND exited 66.
    private func violationFailure(status: CommandProcess.Status) -> ScheduleFailure? {
        let (reports, _) = ReportDirectory.read(reportDirectory)
        let merged = MergedRun(reports: reports)
        if let first = merged.violations.first {
            let root = FileManager.default.currentDirectoryPath
            return ScheduleFailure(
                kind: .violation, message: "\(merged.totalCount) concurrency violation(s): \(first.kind)", detail: merged.summary(root: root))
        }
        guard status == .exited(ExitStatus.violations.code) else { return nil }
        return ScheduleFailure(
            kind: .violation, message: "`\(command.joined(separator: " "))` exited with status 66 (violations found in report mode)",
            detail: outputTail())
    }

    /// The environment COMMAND runs with: the protocol's variables and report mode.
    private func environment(socket: String, sites: Bool) -> [String: String] {
        var base = ProcessInfo.processInfo.environment
        for key in base.keys where key.hasPrefix("CTXDEBUG_EXPLORE") { base[key] = nil }
        var values: [ConcurrencyDebug.Variable: String] = [
            .onViolation: "report", .reportDirectory: reportDirectory, .report: directory + "/report.json",
            .exploreSocket: socket, .exploreGranularity: granularity.rawValue, .exploreHangTimeout: String(hangTimeout),
        ]
        if base[ConcurrencyDebug.Variable.concurrency.name] == nil { values[.concurrency] = "1" }
        if allowUncontrolled { values[.exploreAllowUncontrolled] = "1" }
        if sites { values[.exploreSites] = "1" }
        var environment = ConcurrencyDebug.Variable.environment(values, removing: [.exitCode], base: base)
        if let library = DispatchControlLibrary.path {
            // libdispatch under the scheduler's control in every process of COMMAND that
            // connects (inert in the others: `swift test` building first, say).
            environment["LD_PRELOAD"] = [library, base["LD_PRELOAD"]].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ":")
        }
        return environment
    }

    /// Empties COMMAND's output and the violation reports of the last run.
    private func prepareFiles() throws {
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: reportDirectory)) ?? [] {
            try? FileManager.default.removeItem(atPath: reportDirectory + "/" + name)
        }
        try? FileManager.default.removeItem(atPath: directory + "/report.json")
    }

    /// The last lines COMMAND printed (stdout and stderr together), nil when none.
    private func outputTail(lines count: Int = 30) -> String? {
        guard let data = FileManager.default.contents(atPath: outputPath), !data.isEmpty else { return nil }
        let text = String(decoding: data.suffix(16_384), as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let tail = lines.suffix(count + 1).joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        return tail.isEmpty ? nil : "the end of its output:\n" + tail
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }

    static func signalName(_ signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGSEGV: "SIGSEGV", SIGABRT: "SIGABRT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE",
            SIGKILL: "SIGKILL", SIGTERM: "SIGTERM", SIGINT: "SIGINT",
        ]
        return names[signal] ?? "signal \(signal)"
    }
}

/// The process groups of the runs under way, so an interrupted exploration kills them
/// all rather than leave them waiting on a socket.
final class ExploreProcessGroups: Sendable {
    private struct Groups {
        var live = Set<pid_t>()
        var killed = false
    }
    private let groups = LockedValue(Groups())

    /// A run's group, from its spawn to its end. After `killAll()` a group is killed as
    /// it comes: the interrupted exploration's worker may still start a run (a replay
    /// that confirms the failure the kill itself made) before the process ends.
    func insert(_ pid: pid_t) {
        groups.withLock { groups in
            if groups.killed {
                kill(-pid, SIGKILL)
            } else {
                groups.live.insert(pid)
            }
        }
    }

    func remove(_ pid: pid_t) { groups.withLock { _ = $0.live.remove(pid) } }

    /// Kills every group under way, and every one started later (at Ctrl-C).
    func killAll() {
        groups.withLock { groups in
            groups.killed = true
            for pid in groups.live { kill(-pid, SIGKILL) }
        }
    }
}
