import ConcurrencyDebug
import Foundation
import Replay
import Testing

/// Every built-in scenario, replayed for real on a small seeded store: the view
/// context on the real main queue, the background work on private contexts. Each runs
/// in a child process with checking on (level 1, report mode) unless the environment
/// already chose (`Scripts/test` runs this suite again under `ctxdebug check`, which
/// collects the child's report), and must record no violation.
@Suite struct ScenarioReplayTests {
    @Test("a short replay of each built-in scenario records no violation", arguments: ScenarioName.allCases.map(\.rawValue))
    func scenarioRunsClean(name: String) async {
        await #expect(processExitsWith: .success) { [name] in
            if ConcurrencyDebug.Variable.concurrency.value(in: ConcurrencyDebug.Variable.current()) == nil {
                ConcurrencyDebug.Variable.set([.concurrency: "1", .onViolation: "report"])
            }
            let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("ctxdebug-replay-test-\(getpid())")
            try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            var options = ReplayOptions()
            options.scenarios = [ScenarioName(rawValue: name)!]
            options.entries = 400
            options.duration = 0.3
            options.storeURL = dir.appendingPathComponent("SurfJournal.sqlite")
            options.workDirectory = dir
            // The replay drives the real main queue: run it off the main queue.
            let outcome = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var report: ReplayReport?
            Thread.detachNewThread { [options] in
                report = try! Replayer.run(options)
                outcome.signal()
            }
            outcome.wait()
            precondition(report?.scenarios.map(\.name) == [name], "\(String(describing: report?.scenarios.map(\.name)))")
            // The runner's results, as the report model holds them: the settings it ran
            // with, frames drawn, no errors, and an export of every entry when it exported.
            let scenario = report!.scenarios[0]
            precondition(report!.settings.entries == 400 && report!.settings.durationSeconds == 0.3, "\(report!.settings)")
            precondition(scenario.frames.count > 0 && scenario.durationSeconds > 0, "\(name): \(scenario.frames.count) frames")
            precondition(scenario.errors.isEmpty, "\(name): \(scenario.errors)")
            if let export = scenario.export { precondition(export.rows == 400, "\(name): exported \(export.rows) of 400 rows") }
            let violations = ConcurrencyDebug.recordedViolations
            precondition(violations.isEmpty, "\(name): \(violations.map { $0.symbolicated().report })")
        }
    }
}
