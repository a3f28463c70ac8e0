import ArgumentParser
import ConcurrencyDebug
import Foundation
import Reports
#if canImport(Glibc)
import Glibc
#endif

/// `ctxdebug check [options] -- COMMAND [ARGS...]`: runs a command with concurrency
/// checking on in report mode, collects the reports of every process it starts, and
/// fails on any violation.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Run a command (e.g. swift test) with concurrency checking on; fail on any violation.",
        discussion: """
            COMMAND runs with its output passed through, and with:
              CTXDEBUG_CONCURRENCY=<level>   checking on (1 unless --level)
              CTXDEBUG_ON_VIOLATION=report   record, go on, report at exit
              CTXDEBUG_REPORT_DIR=<tmp dir>  every process writes its JSON report there
              CTXDEBUG_EXITCODE=0            violations leave each process's own exit status alone
              TMPDIR=<tmp dir>/tmp           a temporary directory of its own, removed at the end
            so every process it starts (children, grandchildren: swift test's test bundles, \
            exit tests) reports into one directory. CTXDEBUG_REPORT is removed (the \
            processes would overwrite one file); CTXDEBUG_SUPPRESSIONS and CTXDEBUG_JOURNAL \
            are passed on.

            At the end it merges the reports, groups them by kind and stack, and prints a \
            summary on stderr, most frequent first. --junit writes one failing test case \
            per distinct violation, with its stack; --sarif one rule per violation kind and \
            one result per distinct violation; --json the merged report.

            Exit status:
              0     COMMAND passed and no violation was found
              66    COMMAND passed, and at least one violation was found
              N     COMMAND failed with status N (128+signal when a signal killed it); \
            its failure wins, and violations are still summarized and written
              64    usage error: no COMMAND, a bad option, an output path that cannot be written
              73    a --junit/--sarif/--json file could not be written after the run
              126   COMMAND cannot be executed
              127   COMMAND not found
            See docs/ci.md.
            """
    )

    @Option(help: "Checking level for COMMAND: 1 check, 2 also perform queues, 3 also journal.")
    var level: Int = 1

    /// --junit (one failing test case per distinct violation), --sarif (one rule per
    /// violation kind, one result per distinct violation), --json (the merged report).
    @OptionGroup var reportFiles: ReportFileOptions

    @Option(help: ArgumentHelp("Paths in reports are relative to this directory (default: the current directory).", valueName: "dir"))
    var sourceRoot: String?

    @Argument(parsing: .postTerminator, help: ArgumentHelp("The command to run, after --.", valueName: "command"))
    var command: [String] = []

    func validate() throws {
        guard !command.isEmpty else {
            throw ValidationError("missing the command to run; usage: ctxdebug check [options] -- COMMAND [ARGS...] (for example: ctxdebug check -- swift test)")
        }
        guard (1...3).contains(level) else {
            throw ValidationError("--level must be 1, 2 or 3 (got \(level)); 0 would check nothing")
        }
        if let sourceRoot {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: sourceRoot, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--source-root \(sourceRoot): not a directory")
            }
        }
    }

    func run() throws {
        let root = URL(fileURLWithPath: sourceRoot ?? FileManager.default.currentDirectoryPath).standardizedFileURL.path
        let workspace = try Self.makeWorkspace()
        defer { try? FileManager.default.removeItem(atPath: workspace.root) }
        let directory = workspace.reports

        let status = Self.spawnAndWait(
            command, environment: childEnvironment(reportDirectory: directory, temporaryDirectory: workspace.temporary))
        switch status {
        case .notFound(let message), .cannotExecute(let message):
            say("ctxdebug check: cannot run \(command[0]): \(message)")
            throw status.exitStatus.exitCode
        case .exited, .signaled:
            break
        }
        let (merged, problems) = Self.merge(directory)
        var text = "\n"
        if merged.violations.isEmpty && problems.isEmpty {
            text += "ctxdebug check: no concurrency violations (level \(level)).\n"
        } else if !merged.violations.isEmpty {
            text += merged.summary(root: root)
        }
        let writeFailed = writeReports(merged, root: root, status: status, log: &text)
        let verdict = Verdict(status: status, merged: merged, problems: problems, writeFailed: writeFailed, command: command)
        text += "ctxdebug check: \(verdict.message)\n"
        say(text, terminator: "")
        if verdict.exitStatus != .success { throw verdict.exitStatus.exitCode }
    }

    /// The environment COMMAND runs with: this one, with report mode into `reportDirectory`
    /// set from the configuration's table, `CTXDEBUG_REPORT` taken out, and TMPDIR set to
    /// `temporaryDirectory`, so a suite that empties its temporary directory (as real
    /// ones do between tests) cannot take the reports with it. At level 3 the journals
    /// stay where they would be without check (`$TMPDIR/ctxdebug-<pid>.journal`, this
    /// process's TMPDIR) unless CTXDEBUG_JOURNAL says where.
    func childEnvironment(reportDirectory: String, temporaryDirectory: String) -> [String: String] {
        var base = ProcessInfo.processInfo.environment
        var set: [ConcurrencyDebug.Variable: String] = [
            .concurrency: String(level), .onViolation: "report", .reportDirectory: reportDirectory, .exitCode: "0",
        ]
        if level >= 3 && base[ConcurrencyDebug.Variable.journal.name] == nil {
            set[.journal] = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("ctxdebug-%p.journal").path
        }
        base["TMPDIR"] = temporaryDirectory
        return ConcurrencyDebug.Variable.environment(set, removing: [.report], base: base)
    }

    /// The reports every process wrote into `directory`, merged; a warning for each
    /// that could not be read.
    static func merge(_ directory: String) -> (MergedRun, problems: [String]) {
        let (reports, problems) = ReportDirectory.read(directory)
        for problem in problems { say("ctxdebug check: warning: \(problem)") }
        return (MergedRun(reports: reports), problems)
    }

    /// Writes the --junit, --sarif and --json files asked for, each whole or not at all;
    /// adds a line for each to `log`. True when one could not be written.
    func writeReports(_ merged: MergedRun, root: String, status: Status, log: inout String) -> Bool {
        let contents = ReportFileOptions.Contents(
            junit: { Data(merged.junit(root: root, command: command).xml().utf8) },
            sarif: { try merged.sarif(root: root, command: command, exitStatus: status.code).encoded() },
            json: { try CheckJSON(merged, root: root, command: command, exitStatus: status.code, level: level).data() })
        return reportFiles.write(contents, command: "check") { log += $0 + "\n" }
    }

    /// How the run ends: COMMAND's failure wins, then a report that could not be
    /// written, then violations (or reports that could not be read).
    struct Verdict {
        let exitStatus: ExitStatus
        let message: String

        init(status: Status, merged: MergedRun, problems: [String], writeFailed: Bool, command: [String]) {
            let commandText = command.joined(separator: " ")
            let n = merged.violations.count
            let distinct = "\(n) distinct concurrency violation\(n == 1 ? "" : "s")"
            let found = n > 0 || !problems.isEmpty
            if status.code != 0 {
                exitStatus = status.exitStatus
                message = "FAILED: `\(commandText)` \(status.description); exiting with its status \(exitStatus)"
                    + (found ? " (and \(distinct) found)" : "")
            } else if writeFailed {
                exitStatus = .cannotCreate
                message = "FAILED: a report file could not be written; exiting with status \(exitStatus)"
            } else if found {
                exitStatus = .violations
                message = n > 0
                    ? "FAILED: \(distinct) (\(merged.totalCount) in all); `\(commandText)` passed; exiting with status \(exitStatus)"
                    : "FAILED: some reports could not be read; exiting with status \(exitStatus)"
            } else {
                exitStatus = .success
                message = "passed: `\(commandText)` exited with status 0"
            }
        }
    }

    /// A run's own directory under TMPDIR: `reports` (the report directory) beside `tmp`
    /// (COMMAND's TMPDIR); removed when the run ends.
    struct Workspace {
        let root: String
        var reports: String { root + "/reports" }
        var temporary: String { root + "/tmp" }
    }

    static func makeWorkspace() throws -> Workspace {
        var template = Array((NSTemporaryDirectory() + "/ctxdebug-check-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            say("ctxdebug check: error: cannot create a report directory under \(NSTemporaryDirectory()): \(String(cString: strerror(errno)))")
            throw ExitStatus.cannotCreate.exitCode
        }
        let workspace = Workspace(root: String(cString: made))
        do {
            for path in [workspace.reports, workspace.temporary] {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: workspace.root)
            say("ctxdebug check: error: cannot create a report directory under \(workspace.root): \(error.localizedDescription)")
            throw ExitStatus.cannotCreate.exitCode
        }
        return workspace
    }

    typealias Status = CommandProcess.Status

    /// Runs `arguments` (looked up on PATH) with stdin, stdout and stderr inherited,
    /// and waits. While it runs, this process ignores SIGINT and SIGQUIT, as
    /// `system(3)` does: a Ctrl-C reaches the command (same process group), and the
    /// summary of what ran is still printed.
    static func spawnAndWait(_ arguments: [String], environment: [String: String]) -> Status {
        let oldInt = signal(SIGINT, SIG_IGN)
        let oldQuit = signal(SIGQUIT, SIG_IGN)
        defer {
            signal(SIGINT, oldInt)
            signal(SIGQUIT, oldQuit)
        }
        switch CommandProcess.spawn(arguments, environment: environment) {
        case .failure(let failure): return failure.status
        case .success(let pid): return CommandProcess.wait(pid)
        }
    }
}
