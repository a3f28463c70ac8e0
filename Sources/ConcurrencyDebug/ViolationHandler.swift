import CConcurrencyDebug
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What happens at a violation. One protocol, swappable handlers, in the shape of
/// pointfree's `IssueReporter`: `.trap` (the default), `.report`, `.log`, or your own,
/// installed with `ConcurrencyDebug.setViolationHandler(_:)`.
///
/// The checker deduplicates before it calls a handler: `violation.count` is 1 the
/// first time a stack is seen and counts up after. Suppressed violations never reach
/// a handler. A handler runs on the thread that made the access, with checking paused
/// on that thread, so it may touch confined values without reporting itself.
public protocol ViolationHandler: Sendable {
    /// Called at each violation, with the stack captured but not symbolicated
    /// (call `violation.symbolicated()` or `violation.report` for frames).
    func handle(_ violation: Violation)

    /// Called once at process exit (from `atexit`) with every distinct violation
    /// recorded, symbolicated, in the order they were first seen. The default does
    /// nothing.
    func processWillExit(_ violations: [Violation])
}

extension ViolationHandler {
    public func processWillExit(_ violations: [Violation]) {}
}

/// Prints the report to stderr, then stops the process with SIGTRAP in
/// `ctxdebug_violation_trap`, the function to break on in a debugger. If a debugger
/// resumes the process, it goes on.
public struct TrapViolationHandler: ViolationHandler {
    /// The trap handler (also `.trap`).
    public init() {}

    public func handle(_ violation: Violation) {
        writeToStandardError(
            violation.report
                + "ctxdebug: stopping with SIGTRAP in ctxdebug_violation_trap (set CTXDEBUG_ON_VIOLATION=report or log to go on instead)\n"
        )
        ConcurrencyDebug.flushAccessJournal()
        Checker.shared.writeToReportDirectory(
            ConcurrencyDebug.recordedViolations.map { $0.symbolicated() }, handler: self)
        ConcurrencyDebug.trap()
    }
}

/// Records and goes on. At exit, when at least one violation was recorded: prints a
/// summary to stderr, writes the JSON report to `reportPath` (when set), and ends the process with `exitCode`
/// (66 by default), after flushing stdout and stderr.
///
/// An `exitCode` of 0 means "leave the exit status alone": the process is not ended
/// early and exits with the status it was exiting with. That is what `ctxdebug check`
/// sets, so that a command's own failures stay visible.
public struct ReportViolationHandler: ViolationHandler {
    /// Where the JSON report is written at exit; nil for none (the summary is printed).
    public var reportPath: String?
    /// The status the process ends with after a violation; 0 leaves it alone.
    public var exitCode: Int32
    /// A directory that also receives this process's report at exit (the checker writes
    /// it, as it does for `CTXDEBUG_REPORT_DIR` whatever the handler).
    public var reportDirectory: String?

    /// A report handler writing to `reportPath` (and `reportDirectory`) and exiting
    /// with `exitCode` (66 by default) at exit after a violation.
    public init(
        reportPath: String? = nil, exitCode: Int32 = ConcurrencyDebug.Configuration.defaultExitCode,
        reportDirectory: String? = nil
    ) {
        self.reportPath = reportPath
        self.exitCode = exitCode
        self.reportDirectory = reportDirectory
    }

    public func handle(_ violation: Violation) {}

    public func processWillExit(_ violations: [Violation]) {
        guard !violations.isEmpty else { return }
        fflush(nil)
        let total = violations.reduce(0) { $0 + $1.count }
        var text = "ctxdebug: SUMMARY: \(violations.count) distinct concurrency violation"
        text += violations.count == 1 ? "" : "s"
        text += " (\(total) in all)\n"
        for (index, violation) in violations.enumerated() {
            text += "\n[\(index + 1)/\(violations.count)] \(violation.count) time\(violation.count == 1 ? "" : "s")\n"
            text += violation.report
        }
        let file = ViolationReportFile(violations: violations)
        if let reportPath {
            do {
                try file.write(to: reportPath)
                text += "\nctxdebug: wrote the JSON report to \(reportPath)\n"
            } catch {
                text += "\nctxdebug: warning: could not write the JSON report to \(reportPath): \(error)\n"
            }
        }
        if exitCode == 0 {
            text += "ctxdebug: leaving the exit status alone (CTXDEBUG_EXITCODE=0)\n"
            writeToStandardError(text)
            return
        }
        text += "ctxdebug: exiting with status \(exitCode) because of concurrency violations\n"
        writeToStandardError(text)
        fflush(nil)
        _exit(exitCode)
    }
}

/// Prints each distinct violation (by stack) once, and goes on.
public struct LogViolationHandler: ViolationHandler {
    /// The log handler (also `.log`).
    public init() {}

    public func handle(_ violation: Violation) {
        guard violation.count == 1 else { return }
        writeToStandardError(violation.report)
    }
}

extension ViolationHandler where Self == TrapViolationHandler {
    /// Stop at the first violation with SIGTRAP (`TrapViolationHandler`).
    public static var trap: TrapViolationHandler { TrapViolationHandler() }
}

extension ViolationHandler where Self == ReportViolationHandler {
    /// Record and go on; at exit, the summary, the JSON report at `path` and the exit
    /// status `exitCode` (`ReportViolationHandler`).
    public static func report(to path: String? = nil, exitCode: Int32 = ConcurrencyDebug.Configuration.defaultExitCode)
        -> ReportViolationHandler
    {
        ReportViolationHandler(reportPath: path, exitCode: exitCode)
    }
}

extension ViolationHandler where Self == LogViolationHandler {
    /// Print each distinct violation once and go on (`LogViolationHandler`).
    public static var log: LogViolationHandler { LogViolationHandler() }
}

/// One write(2) to fd 2: unbuffered, and no lock that a crashing thread could hold.
func writeToStandardError(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
        _ = ctxdebug_write_all(2, bytes.baseAddress, bytes.count)
    }
}
