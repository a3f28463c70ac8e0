import ConcurrencyDebugTesting
import Dispatch
import Foundation
import ManagedContext

/// Item 10: `explore`, in process. How many schedules a second a 3-context test runs
/// under the scheduler, and what one scheduling point costs (the decision and the
/// handoff of the baton between threads). Issue 26's targets: ≥ 200 schedules/s for a
/// 3-context test on one core, a scheduling point ≤ 20 µs (median).
enum ExploreBench {
    final class Entry: ManagedObject {
        @Attribute("value") var value: Int64? = 0
    }

    static func run(schedules: Int, blocks: Int, repetitions: Int, work: URL) throws -> BenchItem {
        var explored: [Double] = [], plain: [Double] = [], pointMicros: [Double] = []
        // A test's store goes to tmpfs where there is one, as a CI job would put it: on
        // disk, making the file costs more than the test.
        let shm = URL(fileURLWithPath: "/dev/shm/ctxdebug-explore-bench-\(getpid())")
        let work = (try? FileManager.default.createDirectory(at: shm, withIntermediateDirectories: true)) != nil ? shm : work
        defer { try? FileManager.default.removeItem(at: shm) }
        let test: @Sendable () -> Void = { freshStack(in: work) { threeContexts($0) } }
        for round in 0..<repetitions {
            plain.append(plainRunsPerSecond(runs: schedules, test))
            explored.append(try schedulesPerSecond(schedules: schedules, seed: UInt64(round + 1), test))
            pointMicros.append(try pointCost(blocks: blocks, seed: UInt64(round + 1)))
        }
        let figures = [
            BenchFigure(schedulesName, unit: "schedules/s", samples: explored),
            BenchFigure("the same test unexplored (real dispatch queues, no scheduler)", unit: "runs/s", samples: plain),
            BenchFigure("explored ÷ unexplored", unit: "×", samples: zip(explored, plain).map { $0 / $1 }),
            BenchFigure(pointName, unit: "µs/point", samples: pointMicros),
        ]
        let rate = figures[0].median, point = figures[3].median
        return BenchItem(
            id: "10", title: "Explore, in process",
            setup: [
                "A 3-context test as a test writes it: a fresh store file (in /dev/shm when it exists, else the temporary directory), three private contexts on it, each with two `perform` blocks (a count, an insert and a save), then `drain()`; \(schedules) schedules of `explore(.random)` a round.",
                "Side by side in each round: the same test run plainly as many times (real dispatch queues, no scheduler; the end waited with `performAndWait` on each context).",
                "The scheduling point: three private contexts, \(blocks) empty `perform` blocks each, one schedule of `explore(.random)`; the run's time over its decisions (two a block: its enqueue and its end; each a strategy call, a recorded step and a handoff of the baton between two threads).",
                "\(repetitions) rounds; the median is reported. The machine has 2 cores; the scheduler runs one unit at a time, so a run uses about one.",
            ],
            figures: figures,
            targets: [
                BenchTarget(what: "explore in process, a 3-context test", target: "≥ 200 schedules/s", measured: "\(Int(rate)) schedules/s", met: rate >= 200),
                BenchTarget(what: "a scheduling point", target: "≤ 20 µs", measured: "\(point.benchFormatted) µs", met: point <= 20),
            ],
            detections: nil, skipped: nil,
            notes: [
                "Exploration off costs one branch on a context's stored scheduler (nil) in `perform`, `performAndWait`'s wait and the points; items 1, 2 and 9 measure the runtime with it.",
            ])
    }

    static func freshStack(in work: URL, _ body: (PersistentStoreCoordinator) -> Void) {
        let directory = work.appendingPathComponent("explore-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [Entry.self]))
        try! coordinator.addPersistentStore(at: directory.appendingPathComponent("s.sqlite"))
        body(coordinator)
        coordinator.removePersistentStore()
    }

    static let schedulesName = "schedules of a 3-context test"
    static let pointName = "one scheduling point (decision and handoff)"

    static func threeContexts(_ coordinator: PersistentStoreCoordinator) {
        let contexts = (0..<3).map { index -> ManagedObjectContext in
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            context.name = "context \(index)"
            return context
        }
        for context in contexts {
            for _ in 0..<2 {
                context.perform {
                    _ = try? context.count(for: FetchRequest<Entry>())
                    Entry(context: context).value = 1
                    try? context.save()
                }
            }
        }
        drain()
        // Unexplored, `drain()` does nothing: wait for each queue in turn.
        for context in contexts { context.performAndWait {} }
    }

    static func plainRunsPerSecond(runs: Int, _ body: () -> Void) -> Double {
        let t0 = benchNow()
        for _ in 0..<runs { body() }
        return Double(runs) / (Double(benchNow() - t0) / 1e9)
    }

    static func schedulesPerSecond(schedules: Int, seed: UInt64, _ body: @escaping @Sendable () throws -> Void) throws -> Double {
        let t0 = benchNow()
        let report = try explore(.random, iterations: schedules, seed: seed, name: "bench", body)
        return Double(report.schedulesRun) / (Double(benchNow() - t0) / 1e9)
    }

    static func pointCost(blocks: Int, seed: UInt64) throws -> Double {
        let steps = LockedCounter()
        let t0 = benchNow()
        try explore(.random, iterations: 1, seed: seed, name: "points") {
            let contexts = (0..<3).map { _ in ManagedObjectContext(concurrencyType: .privateQueue) }
            for i in 0..<blocks {
                for context in contexts { context.perform { benchSink(i) } }
            }
            drain()
            steps.add(blocks * 3 * 2)  // each block: its enqueue and its start/end decision
        }
        return Double(benchNow() - t0) / 1e3 / Double(steps.value)
    }

    /// A count the explored body sets (it runs on another thread).
    final class LockedCounter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add(_ n: Int) { lock.lock(); count += n; lock.unlock() }
        var value: Int { lock.lock(); defer { lock.unlock() }; return count }
    }
}
