public import ExploreModel
public import Foundation
public import ReportFormats

// The reports of `ctxdebug explore` and of the in-process `explore { }` (docs/explore.md):
// the text summary with a swim lane of the minimized failing schedule, JSON, JUnit
// (a test case per explored test) and SARIF 2.1.0 (a thread flow per actor, whose
// locations' executionOrder is the schedule's step).

extension ExplorationReport {
    /// The text summary: the verdict, strategy and seed, schedules run and how fast;
    /// for a failure its message, replays, deviations in words, the minimized schedule
    /// as a swim lane and the one-line replay command.
    public func text() -> String {
        var text = ""
        let scheduleCount = plural(schedulesRun, "schedule", "schedules")
        if failure != nil {
            text += "ctxdebug explore: \(name) FAILED after \(scheduleCount)\n"
        } else {
            text += "ctxdebug explore: \(name) passed: no failure in \(scheduleCount)\n"
        }
        text += "  strategy:   \(strategy), seed \(seed)"
        if let failure { text += " (the failing run: \(failure.schedule.strategy), iteration \(failure.schedule.iteration))" }
        if granularity != .coarse { text += ", granularity \(granularity.rawValue)" }
        text += "\n"
        text += "  schedules:  \(schedulesRun) in " + String(format: "%.2f s (%.1f schedules/s)", elapsedSeconds, schedulesPerSecond) + "\n"
        if exhausted { text += "  search:     complete: every schedule within \(strategy)'s bound ran\n" }
        for runs in setAside { text += "  set aside:  \(runs.text)\n" }
        guard let failure else { return text }
        return text + failure.text()
    }

    /// The report as JSON (pretty-printed, keys sorted), with a final newline.
    public func jsonData() throws -> Data {
        var data = try ReportJSON.encoder().encode(self)
        data.append(0x0A)
        return data
    }

    /// A test case per explored test, failing with the text report when it failed,
    /// at the site of the failing schedule's last step (relative to `root` when under it).
    public static func junit(_ reports: [ExplorationReport], root: String? = nil, command: [String]? = nil) -> JUnitReport {
        let cases = reports.map { report in
            let site = report.failure?.schedule.steps.last { $0.site.flatMap(SourceSite.init) != nil }?.site.flatMap(SourceSite.init)
            let file = site.map { site in root.flatMap { SourceLocator.relative(site.file, to: $0) } ?? site.file }
            return JUnitReport.TestCase(
                classname: "ctxdebug.explore", name: report.name, file: file, line: site?.line,
                failure: report.failure.map { JUnitReport.Failure(type: $0.kind.rawValue, message: $0.message, text: report.text()) })
        }
        var properties: [JUnitReport.Property] = []
        if let command { properties.append(JUnitReport.Property(name: "command", value: command.joined(separator: " "))) }
        if let first = reports.first {
            properties.append(JUnitReport.Property(name: "strategy", value: first.strategy))
            properties.append(JUnitReport.Property(name: "seed", value: String(first.seed)))
        }
        return JUnitReport(name: "ctxdebug explore", suiteName: "ctxdebug.explore", properties: properties, cases: cases)
    }

    /// A rule per failure kind; a result per failed test at the site of its schedule's
    /// last step, with the minimized schedule as a code flow: one thread flow per actor,
    /// each location at its step's site with `executionOrder` = the step.
    public static func sarif(_ reports: [ExplorationReport], root: String, command: [String], exitStatus: Int32) -> SARIF.Log {
        let failed = reports.compactMap { report in report.failure.map { (report, $0) } }
        let kinds = FailureKind.allCases.filter { kind in failed.contains { $0.1.kind == kind } }
        let results = failed.map { report, failure in
            SARIF.Result(
                ruleId: ExploreSARIF.ruleID(failure.kind), ruleIndex: kinds.firstIndex(of: failure.kind) ?? 0, level: "error",
                message: ExploreSARIF.message(report, failure),
                locations: ExploreSARIF.lastSite(failure.schedule, root: root).map { [SARIF.Location(physicalLocation: $0)] },
                partialFingerprints: [
                    ExploreSARIF.fingerprintKey: SARIF.fingerprint("\(report.name)\n\(failure.kind.rawValue)\n\(failure.message)")
                ],
                properties: ExploreSARIF.properties(report, failure),
                codeFlows: [ExploreSARIF.codeFlow(failure.schedule, root: root)])
        }
        return SARIF.Log(
            rules: kinds.map(ExploreSARIF.rule), results: results, root: root, commandLine: command.joined(separator: " "),
            exitStatus: exitStatus, informationURI: ExploreSARIF.documentation)
    }
}

extension ExplorationReport.Failure {
    /// The failure's part of the text report.
    func text() -> String {
        var text = "  failure:    \(kind.rawValue): \(indented(message))\n"
        if let detail, !detail.isEmpty { text += "              \(indented(detail))\n" }
        text += "  replayed:   \(replaysText) failed the same way"
        text += reproducible ? "\n" : " (not reproducible: uncontrolled work ran, or a replay passed)\n"
        let count = schedule.deviations.count
        text += "  minimized:  \(plural(count, "deviation", "deviations")) from FIFO order"
        text += deviationsBeforeMinimizing != count ? " (from \(deviationsBeforeMinimizing))" : ""
        text += count == 0 ? ": the failure needs no other order\n" : ":\n"
        let rules = schedule.deviations.count == deviationsInWords.count ? schedule.deviationRules : []
        for (index, words) in deviationsInWords.enumerated() {
            text += "    \(index + 1). \(words)\n"
            if rules.indices.contains(index) { text += "       rule: \(rules[index])\n" }
        }
        text += "\n  the schedule, one column per queue (* marks a deviation from FIFO order):\n"
        text += SwimLane(schedule).lines.map { "    " + $0 + "\n" }.joined()
        text += "\n"
        if let schedulePath { text += "  schedule file: \(schedulePath)\n" }
        if let replayCommand { text += "  replay: \(replayCommand)\n" }
        return text
    }

    private func indented(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n              ")
    }
}

/// A schedule drawn as a table: a column per actor (canonical order), a row per step,
/// the step's point, queue and site (file name and line) in its actor's column;
/// deviations marked `*`.
struct SwimLane {
    static let maximumWidth = 56
    var lines: [String]

    init(_ schedule: ScheduleFile) {
        let actors = ActorKey.canonicallyOrdered(Array(Set(schedule.steps.map(\.actor))))
        let headers = actors.map { schedule.actorLabel($0) }
        let rows = schedule.steps.map { step in
            (step.step, actors.firstIndex(of: step.actor) ?? 0, (step.isDeviation ? "* " : "") + schedule.action(step, fileNameOnly: true))
        }
        var widths = headers.map(\.count)
        for (_, column, cell) in rows { widths[column] = min(Self.maximumWidth, max(widths[column], cell.count)) }
        let stepWidth = max(4, String(schedule.steps.count - 1).count)
        func line(_ first: String, _ cells: [String]) -> String {
            let padded = cells.enumerated().map { Self.fit($0.element, widths[$0.offset]) }
            let text = String(repeating: " ", count: stepWidth - first.count) + first + "  " + padded.joined(separator: "  ")
            return String(text.reversed().drop { $0 == " " }.reversed())
        }
        lines = [line("step", headers)]
        for (step, column, cell) in rows {
            var cells = Array(repeating: "", count: actors.count)
            cells[column] = cell
            lines.append(line(String(step), cells))
        }
        if let failure = schedule.failure {
            lines.append(String(repeating: " ", count: stepWidth) + "  ✗ \(failure.kind.rawValue) after step \(schedule.steps.count - 1)")
        }
    }

    /// `text` padded to `width`, or cut to it with "…".
    static func fit(_ text: String, _ width: Int) -> String {
        if text.count <= width { return text + String(repeating: " ", count: width - text.count) }
        return String(text.prefix(width - 1)) + "…"
    }
}

/// The parts of explore's SARIF that are not one result's fields.
enum ExploreSARIF {
    static let documentation = "https://github.com/ctxdebug/ctxdebug/blob/main/docs/explore.md"
    static let fingerprintKey = "ctxdebugExplore/v1"

    static func ruleID(_ kind: FailureKind) -> String { "explore-\(kind.rawValue)" }

    static func rule(_ kind: FailureKind) -> SARIF.ReportingDescriptor {
        let (short, help): (String, String) =
            switch kind {
            case .assertion: ("A test failed under one schedule of its contexts.", "Read the deviations: the test assumed an order of queue work that Core Data does not promise.")
            case .crash: ("The test crashed under one schedule of its contexts.", "Replay the schedule under a debugger to see the crash.")
            case .violation: ("A concurrency violation or diagnostic under one schedule.", "Fix the violation the checker reported; the schedule makes it happen.")
            case .deadlock: ("A deadlock: no queue could run while some waited.", "Break the cycle of performAndWait calls, or use perform.")
            case .hang: ("The test hung outside the scheduler's control.", "Look at the stuck thread's stack in the detail.")
            case .uncontrolled: ("A runtime call from a thread the scheduler does not control.", "Go through a context's perform, or pass --allow-uncontrolled.")
            case .diverged: ("A replay left its recorded schedule.", "The code changed since the schedule was recorded: explore again.")
            case .limit: ("A timeout passed in virtual time while work a real run does first was still to run: explore's limit, not the program's.", "Nothing to fix in the test; the schedule says nothing of it.")
            }
        return SARIF.ReportingDescriptor(
            id: ruleID(kind), name: "Explore" + kind.rawValue.prefix(1).uppercased() + kind.rawValue.dropFirst(), short: short,
            full: short + " ctxdebug explore ran the test under controlled schedules of its contexts' queues; this one fails, and its file replays it.",
            help: help, level: "error", tags: ["concurrency", "ordering"])
    }

    static func message(_ report: ExplorationReport, _ failure: ExplorationReport.Failure) -> String {
        var text = "\(report.name): \(failure.kind.rawValue): \(failure.message)."
        if !failure.deviationsInWords.isEmpty { text += " It fails when " + failure.deviationsInWords.joined(separator: "; and ") + "." }
        if let command = failure.replayCommand { text += " Replay: \(command)" }
        return text
    }

    static func properties(_ report: ExplorationReport, _ failure: ExplorationReport.Failure) -> [String: SARIF.PropertyValue] {
        var properties: [String: SARIF.PropertyValue] = [
            "strategy": .string(failure.schedule.strategy), "seed": .string(String(report.seed)),
            "iteration": .integer(failure.schedule.iteration), "schedulesRun": .integer(report.schedulesRun),
            "replays": .string(failure.replaysText), "reproducible": .string(failure.reproducible ? "true" : "false"),
            "deviations": .strings(failure.deviationsInWords),
        ]
        if let path = failure.schedulePath { properties["scheduleFile"] = .string(path) }
        if let command = failure.replayCommand { properties["replayCommand"] = .string(command) }
        return properties
    }

    /// The schedule as one code flow: a thread flow per actor, in canonical order.
    static func codeFlow(_ schedule: ScheduleFile, root: String) -> SARIF.CodeFlow {
        let actors = ActorKey.canonicallyOrdered(Array(Set(schedule.steps.map(\.actor))))
        let flows = actors.map { actor in
            SARIF.ThreadFlow(
                id: actor, message: schedule.actorLabel(actor),
                locations: schedule.steps.filter { $0.actor == actor }.map { step in
                    var text = "step \(step.step): \(schedule.action(step))"
                    if step.isDeviation { text += " (deviation: " + schedule.describe(deviation: step.step) + ")" }
                    return SARIF.ThreadFlowLocation(
                        location: SARIF.Location(message: text, physicalLocation: step.site.flatMap { physicalLocation($0, root: root) }),
                        executionOrder: step.step)
                })
        }
        let count = schedule.deviations.count
        return SARIF.CodeFlow(
            message: "the failing schedule, minimized: \(plural(schedule.steps.count, "step", "steps")), \(plural(count, "deviation", "deviations")) from FIFO order",
            threadFlows: flows)
    }

    static func lastSite(_ schedule: ScheduleFile, root: String) -> SARIF.PhysicalLocation? {
        schedule.steps.last { $0.site.flatMap(SourceSite.init) != nil }?.site.flatMap { physicalLocation($0, root: root) }
    }

    /// A site "File.swift:LINE": relative paths are taken as relative to the root.
    static func physicalLocation(_ site: String, root: String) -> SARIF.PhysicalLocation? {
        guard let site = SourceSite(site) else { return nil }
        let relative = site.file.hasPrefix("/") ? SourceLocator.relative(site.file, to: root) : site.file
        return SARIF.PhysicalLocation(
            artifactLocation: .file(relative ?? site.file, relativeToRoot: relative != nil), region: SARIF.Region(startLine: site.line))
    }
}

private func plural(_ n: Int, _ one: String, _ many: String) -> String {
    "\(n) \(n == 1 ? one : many)"
}
