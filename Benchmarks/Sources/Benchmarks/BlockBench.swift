import ConcurrencyDebug
import Dispatch
import Foundation
import ManagedContext
import SurfJournal

/// Item 9: what a block costs to check. An empty `performAndWait` and an empty
/// `perform` block on a private context at levels 0, 1 and 2, side by side with the
/// same work done by plain libdispatch on a serial queue (the anchor): `sync` for
/// `performAndWait`, `async` for `perform`. Issue 25's targets: level 1 adds at most
/// 30 ns to a block, level 2 at most 100 ns, and a level-0 `performAndWait` costs at
/// most twice a plain `DispatchQueue.sync`.
enum BlockBench {
    struct Samples {
        var sync: [Double] = [], async: [Double] = []
        var performAndWait: [Int: [Double]] = [:], perform: [Int: [Double]] = [:]
    }

    static let levels = [0, 1, 2]

    static func run(storeURL: URL, calls: Int, repetitions: Int) throws -> BenchItem {
        armBenchSink()
        let container = try SurfJournal.openContainer(at: storeURL, readOnly: true)
        defer { container.persistentStoreCoordinator.removePersistentStore() }
        let context = container.newBackgroundContext()
        context.name = "bench.blocks"
        let chunks = 7
        let samples = measure(context: context, calls: max(1, calls / chunks), chunks: chunks, repetitions: repetitions)
        let figures = figures(samples)
        return BenchItem(
            id: "9", title: "Block cost",
            setup: [
                "An empty block (one sink call) on a private context, \((calls / chunks).formattedCount) calls a loop, called from the bench's main thread (not under `dispatchMain()`: main-queue code, as UI code calls `performAndWait`): `performAndWait`, and `perform` (a first block holds the queue shut while the loop enqueues every block; then it opens, and the loop waits for the last block: enqueueing plus running, without the two threads contending), at levels 0, 1 and 2 switched with `ConcurrencyDebug.configure(_:)` between loops.",
                "The anchor, in the same rounds: `DispatchQueue.sync` and `DispatchQueue.async` of the same empty block onto a serial queue made with `DispatchQueue(label:)`, from the same thread.",
                "\(repetitions) rounds; in each, \(chunks) passes that measure every variant in turn (levels switched between loops), and each variant's sample is its fastest pass, so that a burst of load from another process lands on every variant alike. The figures include the loop.",
            ],
            figures: figures, targets: targets(figures), detections: nil, skipped: nil,
            notes: [
                "Level 1 checks accesses and keeps the wait-for graph (deadlock detection); level 2 also asserts that each block runs on its context's queue (libdispatch's queue-specific data)."
            ])
    }

    /// One kind of block (`performAndWait`, `perform`, `sync`, `async`) at one level,
    /// `calls` times: what `perf record` profiles.
    static func loop(_ program: String, storeURL: URL, calls: Int) throws {
        armBenchSink()
        let parts = program.split(separator: ":")
        guard parts.count == 2, let level = Int(parts[1]) else { throw BenchError("--program must be KIND:LEVEL, e.g. performAndWait:1") }
        let container = try SurfJournal.openContainer(at: storeURL, readOnly: true)
        defer { container.persistentStoreCoordinator.removePersistentStore() }
        let context = container.newBackgroundContext()
        BenchSupport.quietly { ConcurrencyDebug.configure(.init(level: .init(rawValue: level) ?? .off)) }
        let serial = DispatchQueue(label: "ctxdebug.bench.serial")
        let done = DispatchSemaphore(value: 0)
        switch parts[0] {
        case "performAndWait": for i in 0..<calls { context.performAndWait { benchSink(i) } }
        case "perform":
            for i in 0..<calls { context.perform { benchSink(i) } }
            context.perform { done.signal() }
            done.wait()
        case "sync": for i in 0..<calls { serial.sync { benchSink(i) } }
        case "async":
            for i in 0..<calls { serial.async { benchSink(i) } }
            serial.async { done.signal() }
            done.wait()
        default: throw BenchError("unknown block kind \(parts[0])")
        }
    }

    static func measure(context: ManagedObjectContext, calls m: Int, chunks: Int, repetitions: Int) -> Samples {
        let serial = DispatchQueue(label: "ctxdebug.bench.serial")
        func perCall(_ body: () -> Void) -> Double {
            let t0 = benchNow()
            body()
            return Double(benchNow() - t0) / Double(m)
        }
        func sync() -> Double { perCall { for i in 0..<m { serial.sync { benchSink(i) } } } }
        // The queue is held shut by a first block until every block is enqueued: the
        // figure is enqueueing plus running, not the two threads contending.
        func enqueued(_ submit: (@escaping @Sendable () -> Void) -> Void) -> Double {
            let gate = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
            submit { gate.wait() }
            return perCall {
                for i in 0..<m { submit { benchSink(i) } }
                submit { done.signal() }
                gate.signal()
                done.wait()
            }
        }
        func async() -> Double { enqueued { serial.async(execute: $0) } }
        func performAndWait() -> Double { perCall { for i in 0..<m { context.performAndWait { benchSink(i) } } } }
        func perform() -> Double { enqueued { context.perform($0) } }
        func configure(_ level: Int) {
            BenchSupport.quietly { ConcurrencyDebug.configure(.init(level: .init(rawValue: level) ?? .off)) }
        }
        var samples = Samples()
        for level in levels {  // warm every path up
            configure(level)
            _ = performAndWait(); _ = perform()
        }
        _ = sync(); _ = async()
        // Every variant in turn within each of the `chunks` passes, the fastest pass
        // kept: a burst of load from another process lands on all of them alike.
        for _ in 0..<repetitions {
            var fastest: [String: Double] = [:]
            func keep(_ key: String, _ ns: Double) { fastest[key] = min(fastest[key] ?? .infinity, ns) }
            for _ in 0..<chunks {
                configure(0)
                keep("sync", sync())
                keep("async", async())
                for level in levels {
                    configure(level)
                    keep("performAndWait\(level)", performAndWait())
                    keep("perform\(level)", perform())
                }
            }
            configure(0)
            samples.sync.append(fastest["sync"]!)
            samples.async.append(fastest["async"]!)
            for level in levels {
                samples.performAndWait[level, default: []].append(fastest["performAndWait\(level)"]!)
                samples.perform[level, default: []].append(fastest["perform\(level)"]!)
            }
        }
        return samples
    }

    static func figures(_ s: Samples) -> [BenchFigure] {
        func minus(_ a: [Double], _ b: [Double]) -> [Double] { zip(a, b).map { $0 - $1 } }
        func ratio(_ a: [Double], _ b: [Double]) -> [Double] { zip(a, b).map { $0 / $1 } }
        let paw = s.performAndWait, perform = s.perform
        return [
            BenchFigure(syncName, unit: "ns/call", samples: s.sync),
            BenchFigure("empty `performAndWait`, level 0", unit: "ns/call", samples: paw[0]!),
            BenchFigure("empty `performAndWait`, level 1", unit: "ns/call", samples: paw[1]!),
            BenchFigure("empty `performAndWait`, level 2", unit: "ns/call", samples: paw[2]!),
            BenchFigure(pawLevel1Name, unit: "ns/call", samples: minus(paw[1]!, paw[0]!), signed: true),
            BenchFigure(pawLevel2Name, unit: "ns/call", samples: minus(paw[2]!, paw[0]!), signed: true),
            BenchFigure(pawRatioName, unit: "×", samples: ratio(paw[0]!, s.sync)),
            BenchFigure("plain `DispatchQueue.async` onto a serial queue (anchor)", unit: "ns/block", samples: s.async),
            BenchFigure("empty `perform` block, level 0", unit: "ns/block", samples: perform[0]!),
            BenchFigure("empty `perform` block, level 1", unit: "ns/block", samples: perform[1]!),
            BenchFigure("empty `perform` block, level 2", unit: "ns/block", samples: perform[2]!),
            BenchFigure(performLevel1Name, unit: "ns/block", samples: minus(perform[1]!, perform[0]!), signed: true),
            BenchFigure(performLevel2Name, unit: "ns/block", samples: minus(perform[2]!, perform[0]!), signed: true),
            BenchFigure("`perform` level 0 ÷ `DispatchQueue.async`", unit: "×", samples: ratio(perform[0]!, s.async)),
        ]
    }

    static let syncName = "plain `DispatchQueue.sync` onto a serial queue (anchor)"
    static let pawLevel1Name = "level 1 added to a `performAndWait` (level 1 − level 0)"
    static let pawLevel2Name = "level 2 added to a `performAndWait` (level 2 − level 0)"
    static let pawRatioName = "`performAndWait` level 0 ÷ `DispatchQueue.sync`"
    static let performLevel1Name = "level 1 added to a `perform` block (level 1 − level 0)"
    static let performLevel2Name = "level 2 added to a `perform` block (level 2 − level 0)"

    static func targets(_ figures: [BenchFigure]) -> [BenchTarget] {
        func median(_ name: String) -> Double { figures.first { $0.name == name }!.median }
        let paw1 = median(pawLevel1Name), paw2 = median(pawLevel2Name), ratio = median(pawRatioName)
        let perform1 = median(performLevel1Name), perform2 = median(performLevel2Name)
        return [
            BenchTarget(what: "level 1 over level 0, per `performAndWait`", target: "≤ 30 ns", measured: "\(paw1.benchFormatted) ns", met: paw1 <= 30),
            BenchTarget(what: "level 1 over level 0, per `perform` block", target: "≤ 30 ns", measured: "\(perform1.benchFormatted) ns", met: perform1 <= 30),
            BenchTarget(what: "level 2 over level 0, per `performAndWait`", target: "≤ 100 ns", measured: "\(paw2.benchFormatted) ns", met: paw2 <= 100),
            BenchTarget(what: "level 2 over level 0, per `perform` block", target: "≤ 100 ns", measured: "\(perform2.benchFormatted) ns", met: perform2 <= 100),
            BenchTarget(
                what: "a level-0 `performAndWait` against a plain `DispatchQueue.sync`", target: "≤ 2×", measured: "\(ratio.benchFormatted)×", met: ratio <= 2),
        ]
    }
}
