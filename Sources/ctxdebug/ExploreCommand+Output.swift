import ExploreModel
import Foundation
import Reports

/// The end of `ctxdebug explore`: the text report on stdout, the notes on stderr, the
/// --json, --junit and --sarif files, and the exit status.
struct ExploreOutput {
    let command: [String]
    let reportFiles: ReportFileOptions

    func finish(_ outcome: ExplorationOutcome) throws {
        let report = outcome.report
        say(report.text(), to: .standardOutput, terminator: "")
        for note in outcome.notes { say("ctxdebug explore: \(note)") }
        let status = exitStatus(report)
        let root = FileManager.default.currentDirectoryPath
        let contents = ReportFileOptions.Contents(
            junit: { Data(ExplorationReport.junit([report], command: command).xml().utf8) },
            sarif: { try ExplorationReport.sarif([report], root: root, command: command, exitStatus: status.code).encoded() },
            json: { try report.jsonData() })
        let writeFailed = reportFiles.write(contents, command: "explore") { say($0) }
        if let problem = outcome.scheduleWriteProblem {
            throw CommandSupport.fail(
                "the failing schedule could not be saved: \(problem); give a writable directory with --schedule-dir",
                status: .scheduleDirectoryUnwritable)
        }
        if writeFailed { throw ExitStatus.cannotCreate.exitCode }
        if status != .success { throw status.exitCode }
    }

    func exitStatus(_ report: ExplorationReport) -> ExitStatus {
        report.failure == nil ? .success : .scheduleFailed
    }
}
