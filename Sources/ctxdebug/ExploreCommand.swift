import ArgumentParser
import ExploreModel
import Foundation

/// `ctxdebug explore [options] -- COMMAND [ARGS...]`: runs COMMAND once per schedule of
/// its contexts, each decision taken here, online, by a strategy of ExploreModel; the
/// first failing schedule is minimized, replayed and written to a schedule file.
struct ExploreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explore",
        abstract: "Run a test under many schedules of its contexts; minimize, replay and save the one that breaks it.",
        discussion: """
            COMMAND runs once per schedule, in its own process group, with \
            CTXDEBUG_EXPLORE_SOCKET naming a Unix socket of this process: every process of \
            COMMAND built on ManagedContext connects when it makes its first context, and \
            at each scheduling point (a block's start, a perform's enqueue, \
            performAndWait, a save's store write, the did-save post, a merge, a fetch) asks \
            which queue runs next. The strategy answers, so a process that crashes loses \
            nothing of its schedule. Checking is on in report mode (CTXDEBUG_CONCURRENCY=1 \
            unless set, CTXDEBUG_ON_VIOLATION=report). COMMAND's output is kept, not shown; \
            the end of it is in the report of a failure.

            A schedule fails when COMMAND exits non-zero (an assertion), is killed by a \
            signal (a crash), exits 66 or leaves a violation report (a violation), reports \
            a deadlock, a hang or an uncontrolled call, or neither asks nor exits for \
            twice --hang-timeout and a second more while a process of it is connected \
            (the runtime's watchdog reports a stuck thread first, with its stack): its \
            process group is killed, a hang. The time COMMAND takes before its first \
            context (building, starting) is not limited; explore one test at a time \
            (--filter), as a connected process that runs other, slow tests is silent.

            The first failing schedule is minimized to its fewest deviations from FIFO \
            order (unless --no-minimize), replayed 3 times with source sites, written to \
            --schedule-dir and reported: the deviations in words, a swim lane per queue \
            and the one line that replays it.

            Strategies: \(ExploreStrategy.accepted).

            -j N runs N schedules at a time with disjoint iterations (worker w takes \
            iterations w, w+N, ...); --shard K/N takes the iterations i with i % N = K-1, \
            so N CI jobs with the same --seed split one budget. A delay:K search is one \
            ordered stream: it runs with one worker whatever -j says, and cannot be sharded.

            --json writes the report; --junit one test case, failing with the report when \
            a schedule failed; --sarif the failing schedule as one thread flow per queue.

            Examples:
              ctxdebug explore --iterations 500 -- swift test --skip-build --filter SyncTests
              ctxdebug explore --strategy pct:3 -j 2 --time 5m --junit explore.xml -- ./MyTool
              ctxdebug explore --replay .ctxdebug/explore/MyTool-seed1-run17.schedule.json -- ./MyTool

            Exit status:
              0     no schedule failed (with --replay: the schedule ran 3 times without failing)
              1     a schedule failed (with --replay: it failed again, or diverged)
              64    usage error: no COMMAND, a bad strategy, shard, time or granularity, an output path that cannot be written
              65    the --replay file cannot be read or is not a schedule
              69    no preload library beside ctxdebug: nothing is run (Scripts/ctxdebug builds it)
              73    a --json, --junit or --sarif file could not be written after the run
              74    the schedule directory cannot be written
              126   COMMAND cannot be executed
              127   COMMAND not found
              130   interrupted (Ctrl-C; 143 for SIGTERM): the schedules under way are killed
            See docs/explore.md.
            """
    )

    @Option(help: ArgumentHelp("Which schedules to run: random, pct, pct:D, pos, delay:K or portfolio.", valueName: "spec"))
    var strategy: String = ExploreStrategy.portfolio.description

    @Option(help: ArgumentHelp("How many schedules (default 1000; unbounded with --time alone).", valueName: "n"))
    var iterations: Int?

    @Option(help: ArgumentHelp("Start no new schedule after this long: 90s, 5m, 1h (a plain number is seconds).", valueName: "duration"))
    var time: String?

    @Option(name: [.customShort("j"), .customLong("jobs")], help: ArgumentHelp("Run N schedules at a time (one for delay:K).", valueName: "n"))
    var jobs: Int = 1

    @Option(help: ArgumentHelp("Take shard K of N of the iterations, for a CI matrix.", valueName: "K/N"))
    var shard: String?

    @Option(help: "The exploration's seed: the same seed, budget and strategy run the same schedules.")
    var seed: UInt64 = 1

    @Option(help: ArgumentHelp("coarse (the default) or fine (also fault fires and refreshes).", valueName: "coarse|fine"))
    var granularity: String?

    @Option(help: ArgumentHelp("The runtime's hang timeout; this process waits twice as long, and a second.", valueName: "seconds"))
    var hangTimeout: Double = 2

    @Flag(
        help: ArgumentHelp(
            "Let runtime calls from threads the scheduler does not control run, and explore without the preload library (libdispatch uncontrolled); the schedules are then not reproducible."
        ))
    var allowUncontrolled = false

    @Option(help: ArgumentHelp("Run this schedule file's schedule 3 times instead of exploring.", valueName: "file"))
    var replay: String?

    @Option(help: ArgumentHelp("Where a failing schedule's file goes (default: .ctxdebug/explore).", valueName: "dir"))
    var scheduleDir: String?

    /// --json (the report), --junit (one test case, failing with the report when a
    /// schedule failed), --sarif (the failing schedule as one thread flow per queue).
    @OptionGroup var reportFiles: ReportFileOptions

    @Flag(help: "Report the failing schedule as found, without minimizing its deviations.")
    var noMinimize = false

    @Argument(parsing: .postTerminator, help: ArgumentHelp("The command to run, after --.", valueName: "command"))
    var command: [String] = []

    func validate() throws {
        _ = try settings()
    }

    func run() throws {
        let settings = try settings()
        // Before anything runs: without the library every schedule would run libdispatch
        // uncontrolled and report hangs a real run cannot have.
        if !settings.plan.options.allowUncontrolled, !DispatchControlLibrary.isBuilt {
            throw CommandSupport.fail(DispatchControlLibrary.missingMessage(), status: .exploreLibraryMissing)
        }
        if replay == nil, let problem = ExploreScheduleDirectory.writeProblem(settings.plan.scheduleDirectory) {
            throw CommandSupport.fail(
                "the schedule directory \(settings.plan.scheduleDirectory) cannot be written (\(problem)); give a writable one with --schedule-dir",
                status: .scheduleDirectoryUnwritable)
        }
        CommandProcess.keepInheritedDescriptorsFromCommands()
        let session = try ExploreSession(settings: settings)
        defer { try? FileManager.default.removeItem(atPath: session.workDirectory) }
        let interruption = ExploreInterruption(session)
        defer { interruption.cancel() }
        let outcome: ExplorationOutcome
        do {
            outcome = try replay.map { try session.replay(scheduleAt: $0) } ?? session.explore()
        } catch let failure as CommandProcess.SpawnFailure {
            throw CommandSupport.fail("cannot run \(command[0]): \(failure.status.description)", status: failure.status.exitStatus)
        } catch let error as ExploreSocketError {
            throw CommandSupport.fail("\(error)", status: .cannotCreate)
        }
        try ExploreOutput(command: command, reportFiles: reportFiles).finish(outcome)
    }
}

/// Ctrl-C (or a CI job's SIGTERM, a closed terminal's SIGHUP) during an exploration:
/// COMMAND runs in process groups of its own, which the terminal's signals do not
/// reach, so they are killed here before this process ends with 128 + the signal.
final class ExploreInterruption {
    static let signals = [SIGINT, SIGTERM, SIGHUP]
    private let sources: [any DispatchSourceSignal]

    init(_ session: ExploreSession) {
        sources = Self.signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                session.groups.killAll()
                try? FileManager.default.removeItem(atPath: session.workDirectory)
                say("\nctxdebug explore: interrupted; the schedules under way were killed")
                ExitStatus.command(killedBy: number).endProcess()
            }
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
        for number in Self.signals { signal(number, SIG_DFL) }
    }
}

extension ExploreCommand {
    /// The options, read and checked: every usage error says what is accepted.
    func settings() throws -> ExploreSettings {
        guard !command.isEmpty else {
            throw ValidationError(
                "missing the command to run; usage: ctxdebug explore [options] -- COMMAND [ARGS...] (for example: ctxdebug explore -- swift test --filter MyTests)")
        }
        let spec: ExploreStrategy
        do { spec = try ExploreStrategy(parsing: strategy) } catch { throw ValidationError("--strategy: \(error)") }
        var shardSpec = ShardSpec(index: 1, count: 1)
        if let shard {
            do { shardSpec = try ShardSpec(parsing: shard) } catch { throw ValidationError("--shard: \(error)") }
        }
        if case .delay = spec, shardSpec.count > 1 {
            throw ValidationError("--shard: \(spec) is one ordered search and cannot be split across machines; shard random, pct or portfolio, or run delay on one machine")
        }
        guard jobs >= 1 && jobs <= 256 else { throw ValidationError("-j must be from 1 to 256 (got \(jobs))") }
        if let iterations, iterations < 1 { throw ValidationError("--iterations must be at least 1 (got \(iterations))") }
        guard hangTimeout > 0 && hangTimeout.isFinite else { throw ValidationError("--hang-timeout must be a positive number of seconds (got \(hangTimeout))") }
        let seconds = try time.map { text in
            guard let value = ExploreSettings.duration(text) else {
                throw ValidationError("--time \(text): expected a duration such as 90s, 5m or 1h (a plain number is seconds)")
            }
            return value
        }
        var chosenGranularity: ExploreGranularity?
        if let granularity {
            guard let value = ExploreGranularity(rawValue: granularity.lowercased()) else {
                throw ValidationError("--granularity \(granularity): expected coarse or fine")
            }
            chosenGranularity = value
        }
        if replay != nil && (self.shard != nil || time != nil || iterations != nil) {
            throw ValidationError("--replay runs one schedule 3 times: leave out --iterations, --time and --shard")
        }
        let directory = scheduleDir ?? FileManager.default.currentDirectoryPath + "/.ctxdebug/explore"
        let options = ExploreOptions(
            granularity: chosenGranularity, allowUncontrolled: allowUncontrolled, hangTimeout: hangTimeout,
            scheduleDirectory: URL(fileURLWithPath: directory, isDirectory: true), minimizes: !noMinimize)
        var plan = ExplorationPlan(
            name: command.joined(separator: " "), spec: spec, seed: seed, budget: iterations ?? (seconds == nil ? 1_000 : Int.max),
            options: options, fileStem: ExploreSession.fileName(for: command))
        plan.timeLimit = seconds
        plan.workers = spec.isOrderedSearch ? 1 : jobs
        plan.shard = shardSpec
        return ExploreSettings(command: command, plan: plan, requestedWorkers: jobs)
    }
}

/// What `ctxdebug explore` was asked to do, read from its options: COMMAND and the
/// plan the driver runs (the report files are `ReportFileOptions`').
struct ExploreSettings: Sendable {
    var command: [String]
    var plan: ExplorationPlan
    /// What -j said (a delay search runs with one worker whatever it says).
    var requestedWorkers: Int

    /// "90s", "5m", "1h", "250ms" or a plain number of seconds; nil when not one.
    static func duration(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3_600)]
        for (suffix, scale) in units where trimmed.hasSuffix(suffix) {
            guard let value = Double(trimmed.dropLast(suffix.count)), value > 0, value.isFinite else { return nil }
            return value * scale
        }
        guard let value = Double(trimmed), value > 0, value.isFinite else { return nil }
        return value
    }
}

extension ExploreStrategy {
    /// A delay:K search is one ordered stream: each schedule comes from the last one's trace.
    var isOrderedSearch: Bool {
        if case .delay = self { return true }
        return false
    }
}
