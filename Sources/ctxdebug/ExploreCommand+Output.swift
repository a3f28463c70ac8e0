import ExploreModel
import Foundation
import Reports

/// The end of `ctxdebug explore`: the text report on stdout, the notes on stderr, the
/// --json, --junit and --sarif files, and the exit status.
struct ExploreOutput {
    let settings: ExploreSettings

    func finish(_ outcome: ExplorationOutcome) throws {
        let report = outcome.report
        say(report.text(), to: .standardOutput, terminator: "")
        for note in outcome.notes { say("ctxdebug explore: \(note)") }
        let status = exitStatus(report)
        let root = FileManager.default.currentDirectoryPath
        var writeFailed = false
        func write(_ flag: String, _ path: String?, _ make: () throws -> Data) {
            guard let path else { return }
            do {
                try ReportFile.write(make(), to: path)
                say("ctxdebug explore: wrote \(flag) \(path)")
            } catch {
                say("ctxdebug explore: error: could not write \(flag) \(path): \(error)")
                writeFailed = true
            }
        }
        write("--json", settings.json) { try report.jsonData() }
        write("--junit", settings.junit) { Data(ExplorationReport.junit([report], command: settings.command).xml().utf8) }
        write("--sarif", settings.sarif) {
            try ExplorationReport.sarif([report], root: root, command: settings.command, exitStatus: status.code).encoded()
        }
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
