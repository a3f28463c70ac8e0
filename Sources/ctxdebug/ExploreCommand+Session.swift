import CtxdebugHelpers
import ExploreModel
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One `ctxdebug explore`: ExploreModel's `ExplorationDriver` (the loop the in-process
/// `explore { }` runs too) with a runner that runs COMMAND once per schedule. What is
/// the CLI's own: the workers' directories and process groups, the progress bar, the
/// error when no process connected, the replay line, and the file name from COMMAND.
struct ExploreSession: Sendable {
    let settings: ExploreSettings
    let groups = ExploreProcessGroups()
    /// A temporary directory of this process: each worker's sockets, output and reports.
    let workDirectory: String

    init(settings: ExploreSettings) throws {
        self.settings = settings
        workDirectory = try Self.makeWorkDirectory()
    }

    /// The driver, with `strategyName` in the report.
    func driver(strategyName: String? = nil) -> ExplorationDriver {
        var plan = settings.plan
        if let strategyName { plan.strategyName = strategyName }
        let (settings, groups, workDirectory) = (settings, groups, workDirectory)
        return ExplorationDriver(
            plan: plan,
            makeRunner: { purpose, granularity in
                try ExploreRunner(settings: settings, granularity: granularity, directory: "\(workDirectory)/\(purpose)", groups: groups)
            },
            replayCommand: replayCommand)
    }

    /// Explores with the settings' strategy and budget.
    func explore() throws -> ExplorationOutcome {
        let progress = ProgressBar(label: "ctxdebug explore", total: progressTotal)
        var driver = driver()
        let total = progressTotal
        driver.onSchedule = { done in progress.update(total == Int.max ? 0 : done) }
        driver.onSearchEnd = { progress.finish() }
        var outcome = try driver.explore()
        if outcome.nothingExplored {
            throw CommandSupport.fail(
                "no process of `\(commandText)` connected to the explorer, so there was nothing to explore: it made no context"
                    + " of ManagedContext (a test filter that matches no test, or a program not built against this ctxdebug's"
                    + " ManagedContext?); check that COMMAND runs the code you mean",
                status: .usage)
        }
        if settings.requestedWorkers > settings.plan.workers {
            outcome.notes.insert("note: \(settings.plan.spec) is one ordered search: it ran with one worker, not \(settings.requestedWorkers)", at: 0)
        }
        return outcome
    }

    /// `--replay FILE`: runs the file's schedule 3 times with source sites.
    func replay(scheduleAt path: String) throws -> ExplorationOutcome {
        let file: ScheduleFile
        do {
            file = try ScheduleFile.read(from: path)
        } catch {
            throw CommandSupport.fail("--replay \(path): \(error)", status: .scheduleUnreadable)
        }
        return try driver(strategyName: "replay").replay(file, at: path)
    }

    /// How many iterations this shard has (Int.max with no budget but the time).
    private var progressTotal: Int {
        let (budget, shard) = (settings.plan.budget, settings.plan.shard)
        guard budget != Int.max else { return Int.max }
        return max(0, (budget - (shard.index - 1) + shard.count - 1) / shard.count)
    }

    var commandText: String { settings.command.joined(separator: " ") }

    /// `ctxdebug explore --replay FILE -- COMMAND`, as one line a shell reads back.
    func replayCommand(_ path: String) -> String {
        var words = ["ctxdebug", "explore", "--replay", path]
        let options = settings.plan.options
        if options.allowUncontrolled { words.append("--allow-uncontrolled") }
        if options.hangTimeout != 2 { words += ["--hang-timeout", "\(options.hangTimeout)"] }
        return (words + ["--"] + settings.command).map(Self.shellQuoted).joined(separator: " ")
    }

    static func shellQuoted(_ word: String) -> String {
        let plain = word.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0) }
        return plain && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// A file name from COMMAND: "swift-test---filter-NoteTests", at most 60 characters.
    static func fileName(for command: [String]) -> String {
        var words = command
        if let first = words.first { words[0] = (first as NSString).lastPathComponent }
        let text = words.joined(separator: "-")
        let safe = String(text.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "_" ? $0 : "-" }.prefix(60))
        return safe.isEmpty ? "command" : safe
    }

    /// A fresh directory for sockets: under TMPDIR, or /tmp when TMPDIR's path is too
    /// long for a socket's.
    static func makeWorkDirectory() throws -> String {
        let temporary = NSTemporaryDirectory()
        let base = temporary.utf8.count <= 60 ? temporary : "/tmp/"
        var template = Array((base + (base.hasSuffix("/") ? "" : "/") + "ctxdebug-explore-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CommandSupport.fail(
                "cannot create a working directory under \(base): \(String(cString: strerror(errno))); set TMPDIR to a writable directory",
                status: .cannotCreate)
        }
        return String(cString: made)
    }
}
