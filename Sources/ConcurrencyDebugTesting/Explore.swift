@_spi(Runtime) import ConcurrencyDebug
import CtxdebugHelpers
public import ExploreModel
public import Foundation
import ScheduleControl
import Reports

/// How `explore` runs, beyond its strategy and budget: ExploreModel's one options
/// type, which `ctxdebug explore`'s flags fill too.
public typealias ExploreOptions = ExploreModel.ExploreOptions

/// An exploration found a schedule that fails. Its description is the text report:
/// the failure, the minimized schedule in words and per queue, and how to replay it.
public struct ExplorationFailed: Error, CustomStringConvertible, Sendable {
    public let report: ExplorationReport
    public var failure: ExplorationReport.Failure { report.failure! }
    public var description: String { report.text() }
}

/// Runs `body` under many schedules of the contexts it makes, as loom and Shuttle do
/// for threads (docs/explore.md). Each schedule runs `body` once, on a fresh thread,
/// and waits for every queue it used; `body` builds its own stack (store, coordinator,
/// contexts) and fails by throwing. A violation, a deadlock, a hang or a runtime call
/// from a thread the scheduler does not control fails it too. The first failing
/// schedule is minimized, replayed `options.replays` times, written to a schedule
/// file and thrown as `ExplorationFailed`.
///
///     try explore(.pct(depth: 3), iterations: 1_000) {
///         let stack = try Stack()
///         ...
///     }
@discardableResult
public func explore(
    _ strategy: ExploreStrategy = .portfolio, iterations: Int = 1_000, seed: UInt64 = 1,
    options: ExploreOptions = ExploreOptions(), name: String = #function,
    _ body: @escaping @Sendable () throws -> Void
) throws -> ExplorationReport {
    let explorer = Explorer(name: name, strategy: strategy, seed: seed, options: options, body: body)
    return try explorer.run(iterations: iterations)
}

/// Inside an explored body: waits until every queue of the run is idle, letting the
/// other units run in the strategy's order meanwhile. Outside a run it does nothing.
public func drain() {
    ThreadUnit.current?.scheduler.drain()
}
