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

    /// One round's figures: explored schedules/s, the same test plainly (runs/s), and
    /// one scheduling point (µs).
    struct Round: Codable {
        var explored: Double
        var plain: Double
        var point: Double
    }

    static func run(schedules: Int, blocks: Int, repetitions: Int, work: URL) throws -> BenchItem {
        var oneCore: [Round] = [], bothCores: [Round] = []
        var pinnedTo = -1
        for round in 0..<repetitions {
            let seed = UInt64(round + 1)
            let (pinned, cpu) = try measureOnOneCore(schedules: schedules, blocks: blocks, seed: seed, work: work)
            oneCore.append(pinned)
            pinnedTo = cpu
            bothCores.append(try measureRound(schedules: schedules, blocks: blocks, seed: seed, work: work))
        }
        let figures = [
            BenchFigure(schedulesName, unit: "schedules/s", samples: oneCore.map(\.explored)),
            BenchFigure("the same test unexplored, on one core", unit: "runs/s", samples: oneCore.map(\.plain)),
            BenchFigure("explored ÷ unexplored, on one core", unit: "×", samples: oneCore.map { $0.explored / $0.plain }),
            BenchFigure(pointName, unit: "µs/point", samples: oneCore.map(\.point)),
            BenchFigure("schedules of a 3-context test, both cores", unit: "schedules/s", samples: bothCores.map(\.explored)),
            BenchFigure("the same test unexplored, both cores", unit: "runs/s", samples: bothCores.map(\.plain)),
            BenchFigure("one scheduling point, both cores", unit: "µs/point", samples: bothCores.map(\.point)),
        ]
        let rate = figures[0].median, point = figures[3].median
        return BenchItem(
            id: "10", title: "Explore, in process",
            setup: [
                "A 3-context test as a test writes it: a fresh store file (in /dev/shm when it exists, else the temporary directory), three private contexts on it, each with two `perform` blocks (a count, an insert and a save), then `drain()`; \(schedules) schedules of `explore(.random)` a round, called from the main thread as an XCTest method calls it.",
                "Side by side in each round: the same test run plainly as many times (real dispatch queues, no scheduler; the end waited with `performAndWait` on each context).",
                "The scheduling point: three private contexts, \(blocks) empty `perform` blocks each, one schedule of `explore(.random)`; the run's time over its decisions (two a block: its enqueue and its end; each a strategy call, a recorded step and a handoff of the baton between two threads).",
                "On one core, as the targets state: each round first runs in a child process (`ctxdebug bench --child explore-one-core`) pinned to CPU \(pinnedTo) with sched_setaffinity before it starts a thread, so every thread of it, dispatch's workers included, shares that core. Then the same round in this process, free to use both cores of the machine.",
                "\(repetitions) rounds; the median is reported.",
            ],
            figures: figures,
            targets: [
                BenchTarget(what: "explore in process, a 3-context test, on one core", target: "≥ 200 schedules/s", measured: "\(Int(rate)) schedules/s", met: rate >= 200),
                BenchTarget(what: "a scheduling point, on one core", target: "≤ 20 µs", measured: "\(point.benchFormatted) µs", met: point <= 20),
            ],
            detections: nil, skipped: nil,
            notes: [
                "The scheduler runs one unit at a time, so an explored run uses one core; the plain run uses both when it has them. Every handoff of the baton wakes a parked thread: on one core that is a context switch, across two cores a wake-up of the other (idle) core, which costs more on this virtual machine.",
                "Exploration off costs one branch on a context's stored scheduler (nil) in `perform`, `performAndWait`'s wait and the points; items 1, 2 and 9 measure the runtime with it.",
            ])
    }

    /// One round: the explored test, the same test plainly, and the scheduling point.
    static func measureRound(schedules: Int, blocks: Int, seed: UInt64, work: URL) throws -> Round {
        // A test's store goes to tmpfs where there is one, as a CI job would put it: on
        // disk, making the file costs more than the test.
        let shm = URL(fileURLWithPath: "/dev/shm/ctxdebug-explore-bench-\(getpid())")
        let work = (try? FileManager.default.createDirectory(at: shm, withIntermediateDirectories: true)) != nil ? shm : work
        defer { try? FileManager.default.removeItem(at: shm) }
        let test: @Sendable () -> Void = { freshStack(in: work) { threeContexts($0) } }
        let plain = plainRunsPerSecond(runs: schedules, test)
        let explored = try schedulesPerSecond(schedules: schedules, seed: seed, test)
        let point = try pointCost(blocks: blocks, seed: seed)
        return Round(explored: explored, plain: plain, point: point)
    }

    /// Runs one round in a child process pinned to one CPU; returns its figures and the CPU.
    static func measureOnOneCore(schedules: Int, blocks: Int, seed: UInt64, work: URL) throws -> (Round, Int) {
        let output = work.appendingPathComponent("explore-one-core-\(seed).json")
        try? FileManager.default.removeItem(at: output)
        let run = try BenchSupport.run(
            BenchSupport.selfExecutable,
            ["bench", "--child", "explore-one-core", "--program", "\(schedules):\(blocks):\(seed)", "--child-output", output.path],
            work: work)
        guard run.status == 0, !run.signaled, let data = try? Data(contentsOf: output) else {
            throw BenchError("The one-core explore child failed (status \(run.status)): \(run.standardError)")
        }
        try? FileManager.default.removeItem(at: output)
        let result = try JSONDecoder().decode(OneCoreResult.self, from: data)
        return (result.round, result.cpu)
    }

    struct OneCoreResult: Codable {
        var cpu: Int
        var round: Round
    }

    /// The child: pins itself to one CPU (the first it may use) before any thread starts,
    /// measures one round, writes it as JSON to `output`.
    static func runOneCoreChild(program: String, output: String) throws {
        let parts = program.split(separator: ":").compactMap { UInt64($0) }
        guard parts.count == 3, parts[0] > 0, parts[1] > 0 else {
            throw BenchError("--child explore-one-core needs --program SCHEDULES:BLOCKS:SEED (got \(program)).")
        }
        let cpu = try CPUAffinity.pinToFirstAllowedCPU()
        let round = try measureRound(
            schedules: Int(parts[0]), blocks: Int(parts[1]), seed: parts[2],
            work: URL(fileURLWithPath: output).deletingLastPathComponent())
        try JSONEncoder().encode(OneCoreResult(cpu: cpu, round: round)).write(to: URL(fileURLWithPath: output))
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

    static let schedulesName = "schedules of a 3-context test, on one core"
    static let pointName = "one scheduling point (decision and handoff), on one core"

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
