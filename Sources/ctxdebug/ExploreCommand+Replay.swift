import CtxdebugHelpers
import ExploreModel
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension ExploreSession {
    /// `--replay FILE`: runs the file's schedule `settings.replays` times with source
    /// sites. A run whose forced choice is not enabled stops with "diverged at step i"
    /// (the child is told and stops controlling), so a replay never hangs on a schedule
    /// the code no longer has.
    func replay(scheduleAt path: String) throws -> ExploreOutcome {
        let file: ScheduleFile
        do {
            file = try ScheduleFile.read(from: path)
        } catch {
            throw CommandSupport.fail("--replay \(path): \(error)", status: .scheduleUnreadable)
        }
        let started = MonotonicClock.now()
        let granularity = settings.granularity ?? file.granularity
        let runner = try ExploreRunner(settings: settings, granularity: granularity, directory: "\(workDirectory)/replay", groups: groups)
        var runs: [ScheduleOutcome] = []
        for _ in 0..<settings.replays {
            var strategy: any ExplorationStrategy = ReplayStrategy(choices: file.choices)
            strategy.beginRun(iteration: file.iteration, seed: file.seed)
            runs.append(try runner.run(&strategy, sites: true))
        }
        let elapsed = Double(MonotonicClock.now() - started) / 1e9
        var report = ExplorationReport(
            name: commandText, strategy: "replay", seed: file.seed, granularity: granularity, schedulesRun: runs.count,
            elapsedSeconds: elapsed)
        var outcome = ExploreOutcome(report: report)
        if !file.reproducible {
            outcome.notes.append("note: \(path) was recorded with uncontrolled work allowed: a replay may not follow it exactly")
        }
        let outside = file.steps.filter { $0.point == "uncontrolled-wait" }.map { String($0.step) }
        if !outside.isEmpty {
            outcome.notes.append(
                "note: the schedule touched an uncontrolled wait (a unit blocked in the kernel holding the turn: a lock of the app's, "
                    + "a pipe) at step \(outside.joined(separator: ", ")): the turn passed on there, and a replay follows it only "
                    + "as long as the wait ends the same way")
        }
        let failing = runs.filter { $0.failure != nil }
        guard let first = failing.first(where: { $0.failure?.kind == .diverged }) ?? failing.first, let failure = first.failure else {
            outcome.notes.append(
                "the schedule in \(path) ran \(runs.count) times without failing"
                    + (file.failure.map { " (it was recorded failing: \($0.kind.rawValue): \($0.message))" } ?? ""))
            return outcome
        }
        let confirmed = failing.filter { $0.failure?.kind == failure.kind }.count
        var header = file.header
        header.reproducible = file.reproducible && confirmed == runs.count
        let schedule = ScheduleFile(header: header, steps: first.steps, failure: failure)
        report.failure = ExplorationReport.Failure(
            kind: failure.kind, message: failure.message, detail: failure.detail, schedule: schedule,
            deviationsBeforeMinimizing: schedule.deviations.count, replaysConfirmed: confirmed, replaysAttempted: runs.count,
            reproducible: header.reproducible, schedulePath: path, replayCommand: replayCommand(path))
        outcome.report = report
        return outcome
    }
}

/// Where failing schedules are written (`--schedule-dir`, default `.ctxdebug/explore`).
enum ExploreScheduleDirectory {
    /// Why files cannot be written into `directory` (made when missing), or nil when
    /// they can: checked before exploring, so a long exploration does not end with a
    /// lost schedule.
    static func writeProblem(_ directory: String) -> String? {
        var isDirectory: ObjCBool = false
        var existing = URL(fileURLWithPath: directory).standardizedFileURL
        while !FileManager.default.fileExists(atPath: existing.path, isDirectory: &isDirectory) {
            let parent = existing.deletingLastPathComponent()
            if parent.path == existing.path { return "no part of it exists" }
            existing = parent
        }
        if !isDirectory.boolValue { return "\(existing.path) is not a directory" }
        return access(existing.path, W_OK | X_OK) == 0 ? nil : "\(existing.path): \(String(cString: strerror(errno)))"
    }

    /// Writes `schedule` as `directory/name` (whole or not at all). Returns its path, or
    /// why it could not be written.
    static func write(_ schedule: ScheduleFile, into directory: String, named name: String) -> (path: String?, problem: String?) {
        let path = URL(fileURLWithPath: directory).appendingPathComponent(name).path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try schedule.write(to: path)
            return (path, nil)
        } catch {
            return (nil, "cannot write \(path): \(error.localizedDescription)")
        }
    }
}
