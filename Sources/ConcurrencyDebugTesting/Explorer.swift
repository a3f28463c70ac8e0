@_spi(Runtime) import ConcurrencyDebug
import CtxdebugHelpers
public import ExploreModel
import Foundation
import ScheduleControl
import Reports

/// The in-process way into ExploreModel's `ExplorationDriver`, behind
/// `explore(_:iterations:seed:options:name:_:)`: the driver explores, minimizes,
/// confirms, writes and reports; running one schedule of `body` is `InProcessRunner`'s.
struct Explorer {
    let name: String
    let strategy: ExploreStrategy
    let seed: UInt64
    let options: ExploreOptions
    let body: @Sendable () throws -> Void

    func run(iterations: Int) throws -> ExplorationReport {
        _ = try strategy.validated()  // `.pct(depth: 0)` is an error, as `--strategy pct:0` is
        ScopeRegistry.prepare(level: 1)
        try? FileManager.default.createDirectory(at: scheduleDirectory, withIntermediateDirectories: true)
        let outcome: ExplorationOutcome
        if case .replay(let path) = strategy {
            outcome = try driver(iterations: 1).replay(ScheduleFile.read(from: path), at: path)
        } else {
            outcome = try driver(iterations: iterations).explore()
        }
        if let problem = outcome.scheduleWriteProblem {
            throw ExplorationScheduleUnwritable(problem: problem, report: outcome.report)
        }
        if outcome.report.failure != nil { throw ExplorationFailed(report: outcome.report) }
        return outcome.report
    }

    /// One worker on the calling thread: a main-queue context's blocks run on the real
    /// main queue, which a caller on the main thread serves while it waits for a run.
    func driver(iterations: Int) -> ExplorationDriver {
        let plan = ExplorationPlan(
            name: name, spec: strategy, seed: seed, budget: max(0, iterations), options: options, fileStem: safeName)
        let (body, options, logPath) = (body, options, runningLogPath)
        return ExplorationDriver(
            plan: plan,
            makeRunner: { _, granularity in InProcessRunner(body: body, options: options, granularity: granularity, logPath: logPath) },
            replayCommand: { path in "try explore(.replay(\"\(path)\")) { ... }  // or: ctxdebug explore --replay \(path) -- COMMAND" })
    }

    var scheduleDirectory: URL { options.scheduleDirectoryInForce }

    var safeName: String { String(name.map { $0.isLetter || $0.isNumber ? $0 : "-" }.prefix(60)) }

    /// The step log of the schedule running now (see `InProcessRunner`).
    var runningLogPath: String { scheduleDirectory.appendingPathComponent("\(safeName).running.log").path }
}

/// A failure was found but its schedule file could not be written.
public struct ExplorationScheduleUnwritable: Error, CustomStringConvertible, Sendable {
    public let problem: String
    public let report: ExplorationReport
    public var description: String {
        "the failing schedule could not be saved: \(problem); give a writable directory in ExploreOptions.scheduleDirectory\n" + report.text()
    }
}
