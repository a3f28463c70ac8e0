import ExploreModel
import Foundation
import Reports

/// The end of `ctxdebug explore`: the text report on stdout, the notes on stderr, the
/// --json, --junit and --sarif files, and the exit status.
struct ExploreOutput {
    let settings: ExploreSettings

    func finish(_ outcome: ExploreOutcome) throws {
        let report = outcome.report
        say(ExploreRendering.text(report), to: .standardOutput, terminator: "")
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
        write("--json", settings.json) { try ExploreRendering.json(report) }
        write("--junit", settings.junit) { Data(ExploreRendering.junit(report, command: settings.command).xml().utf8) }
        write("--sarif", settings.sarif) {
            try ExploreRendering.sarif(report, root: root, command: settings.command, exitStatus: status.code).encoded()
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

/// The renderings of an `ExplorationReport` this command writes. Interim, until the
/// Reports renderers of ExplorationReport land: a minimal text with the swim lane,
/// the JSON as the model encodes it, JUnit with one case, SARIF with one result.
enum ExploreRendering {
    static func text(_ report: ExplorationReport) -> String {
        var lines: [String] = []
        let verdict = report.failure == nil ? "passed: no failure in" : "FAILED after"
        lines.append("ctxdebug explore: \(report.name) \(verdict) \(report.schedulesRun) schedule(s)")
        lines.append("  strategy:   \(report.strategy), seed \(report.seed)")
        lines.append(
            "  schedules:  \(report.schedulesRun) in "
                + String(format: "%.2f s (%.1f schedules/s)", report.elapsedSeconds, report.schedulesPerSecond))
        if report.exhausted { lines.append("  search:     complete: every schedule within \(report.strategy)'s bound ran") }
        guard let failure = report.failure else { return lines.joined(separator: "\n") + "\n" }
        lines.append("  failure:    \(failure.kind.rawValue): \(failure.message)")
        if let detail = failure.detail { lines += detail.split(separator: "\n", omittingEmptySubsequences: false).map { "              \($0)" } }
        lines.append("  replayed:   \(failure.replaysText) failed the same way\(failure.reproducible ? "" : " (not reproducible)")")
        lines.append(
            "  minimized:  \(failure.schedule.deviations.count) deviation(s) from FIFO order (from \(failure.deviationsBeforeMinimizing)):")
        lines += failure.deviationsInWords.enumerated().map { "    \($0.offset + 1). \($0.element)" }
        lines.append("")
        lines.append("  the schedule, one column per queue (* marks a deviation from FIFO order):")
        lines += swimLane(failure.schedule).map { "    " + $0 }
        lines.append("")
        if let path = failure.schedulePath { lines.append("  schedule file: \(path)") }
        if let command = failure.replayCommand { lines.append("  replay: \(command)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One column per actor, one row per step.
    static func swimLane(_ schedule: ScheduleFile) -> [String] {
        let actors = ActorKey.canonicallyOrdered(Array(Set(schedule.steps.map(\.actor))))
        let width = 36
        func cell(_ text: String) -> String {
            let clipped = text.count > width ? String(text.prefix(width - 1)) + "…" : text
            return clipped + String(repeating: " ", count: width - clipped.count + 2)
        }
        var rows = ["step  " + actors.map { cell(schedule.actorLabel($0)) }.joined()]
        for step in schedule.steps {
            let text = (step.isDeviation ? "* " : "") + step.point.rawValue + (step.site.map { " at \(SourceSite($0)?.shortText ?? $0)" } ?? "")
            let cells = actors.map { $0 == step.actor ? cell(text) : cell("") }
            rows.append(String(repeating: " ", count: max(0, 4 - String(step.step).count)) + "\(step.step)  " + cells.joined())
        }
        if let failure = schedule.failure { rows.append("      ✗ \(failure.kind.rawValue) after step \(max(0, schedule.steps.count - 1))") }
        return rows.map { $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
    }

    static func json(_ report: ExplorationReport) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(report)
        data.append(0x0A)
        return data
    }

    static func junit(_ report: ExplorationReport, command: [String]) -> JUnitReport {
        let testCase = JUnitReport.TestCase(
            classname: "ctxdebug.explore", name: report.name,
            failure: report.failure.map { JUnitReport.Failure(type: $0.kind.rawValue, message: $0.message, text: text(report)) })
        return JUnitReport(
            name: "ctxdebug explore", suiteName: "ctxdebug.explore",
            properties: [JUnitReport.Property(name: "command", value: command.joined(separator: " "))], cases: [testCase])
    }

    static func sarif(_ report: ExplorationReport, root: String, command: [String], exitStatus: Int32) -> SARIF.Log {
        let results = report.failure.map { failure in
            [
                SARIF.Result(
                    ruleId: "explore-\(failure.kind.rawValue)", ruleIndex: 0, level: "error", message: failure.message,
                    partialFingerprints: ["ctxdebugExplore/v1": "\(report.name)|\(failure.kind.rawValue)"])
            ]
        } ?? []
        let rules = report.failure.map { failure in
            [
                SARIF.ReportingDescriptor(
                    id: "explore-\(failure.kind.rawValue)", name: failure.kind.rawValue, short: "A schedule fails: \(failure.kind.rawValue)",
                    full: "A schedule of the explored test fails with \(failure.kind.rawValue).", help: "Replay it: \(failure.replayCommand ?? "")",
                    level: "error", tags: ["concurrency"])
            ]
        } ?? []
        return SARIF.Log(rules: rules, results: results, root: root, commandLine: command.joined(separator: " "), exitStatus: exitStatus, informationURI: nil)
    }
}
