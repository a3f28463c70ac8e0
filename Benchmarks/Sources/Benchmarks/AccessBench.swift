@_spi(Runtime) import ConcurrencyDebug
import Foundation
import ManagedContext

/// A plain Swift object with the same property as `JournalEntry.rating`: the read
/// every managed read is compared with. Not final, and reached through a global the
/// opaque sink could change, so its property is loaded on every iteration.
class PlainEntry {
    var rating: Int16? = 3
    init() {}
}

nonisolated(unsafe) var plainEntries: [PlainEntry] = []

@inline(never)
func makePlainEntry() -> PlainEntry {
    let entry = PlainEntry()
    plainEntries.append(entry)
    return entry
}

/// Something the checker can check, for the check measured on its own.
final class BenchSubject: AccessDescribing {
    func describe(_ event: AccessEvent) -> AccessDescription {
        AccessDescription(operation: "\(event.operation)", ownerQueueLabel: event.owner.label, fixHint: "(bench)")
    }
}

/// Item 1: what an access costs. Runs in this process: the level is switched with
/// `ConcurrencyDebug.configure(_:)` between loops (never while one runs), and every
/// loop runs in a fresh `performAndWait`.
enum AccessBench {
    static func run(storeURL: URL, iterations: Int, repetitions: Int, work: URL, journalEvents: Int) throws -> (BenchItem, journal: URL?) {
        armBenchSink()
        let journalURL = work.appendingPathComponent("access.journal")
        try? FileManager.default.removeItem(at: journalURL)
        let container = try RuntimeJournal.openContainer(at: storeURL, readOnly: true)
        defer { container.persistentStoreCoordinator.removePersistentStore() }
        let context = container.newBackgroundContext()
        context.name = "bench.access"
        let entry: RuntimeJournalEntry = try context.performAndWait {
            var request = FetchRequest<RuntimeJournalEntry>(sortDescriptors: RuntimeJournal.newestFirst)
            request.fetchLimit = 1
            guard let first = try context.fetch(request).first else {
                throw BenchError("The store \(storeURL.path) has no entries.")
            }
            _ = first.rating  // fires the fault
            return first
        }
        let subject = BenchSubject()
        let owner = QueueIdentity.makePrivate(label: "ctxdebug.bench.check")
        // Each sample is the fastest of `chunks` runs of n iterations: a preemption
        // by another process on this shared machine lands in one run, not in the figure.
        let chunks = 7
        let n = max(1, iterations / chunks)
        func configure(_ level: Int) {
            BenchSupport.quietly {
                ConcurrencyDebug.configure(.init(level: .init(rawValue: level) ?? .off, accessJournalPath: level == 3 ? journalURL.path : nil))
            }
        }
        let samples = measureLoops(
            context: context, entry: entry, subject: subject, owner: owner, n: n, chunks: chunks, repetitions: repetitions, configure: configure)
        // Bytes per journaled event: the journal of the level-3 loops above.
        configure(0)  // closes and flushes the journal
        let reader = try AccessJournalReader(path: journalURL.path)
        let stats = reader.stats

        // A large journal for item 7, written the same way (checked accesses at level 3).
        let bigJournal = journalEvents > 0 ? writeLargeJournal(events: journalEvents, work: work, subject: subject, owner: owner) : nil
        try? FileManager.default.removeItem(at: journalURL)

        // The view-context read from plain main-queue code, in a child under dispatchMain().
        let mainQueue = try MainQueueReadBench.measure(storeURL: storeURL, iterations: iterations, repetitions: repetitions, work: work)

        let figures = figures(
            loop: samples.loop, plain: samples.plain, managed: samples.managed, check: samples.check, missingMergeOn: samples.missingMergeOn,
            stats: stats, mainQueue: mainQueue)
        let targets = targets(figures, bytesPerEvent: stats.fileBytesPerEvent)
        let item = BenchItem(
            id: "1", title: "Per-access cost",
            setup: setup(n: n, chunks: chunks, repetitions: repetitions, stats: stats, journaledReads: samples.journaledReads),
            figures: figures, targets: targets, detections: nil, skipped: nil,
            notes: [
                "\"Checking off\" still calls through the runtime's getter (the attribute's index from its name's bits, the fault and missing-merge tests, the stored-value enum, the optional conversion): the gap between the plain read and the managed read at level 0 is that getter, not the checker. The checker's own cost at level 0 is the \"check alone, level 0\" figure.",
                "The main-queue read at level 1 adds one call into libdispatch (`dispatch_get_current_queue`, compared with the main queue) to the inside-`perform` check: the thread-local owner is not set outside `perform`, and a main-queue work item may run on any thread under `dispatchMain()`.",
            ])
        return (item, bigJournal)
    }

    /// How item 1 is measured, as its report says it.
    private static func setup(n: Int, chunks: Int, repetitions: Int, stats: AccessJournalStats, journaledReads: Int) -> [String] {
        [
            "One SurfJournal entry (`RuntimeJournalEntry`, the runtime's typed `@Attribute` access) fetched on a private context; `entry.rating` read in loops of \(n.formattedCount) inside `context.performAndWait`, against the same read of a plain Swift class (`PlainEntry`, not final). Each read goes to an opaque sink (a closure in a mutable global), so no read can be hoisted or deleted; the same loop with only the sink call is the loop overhead, subtracted from each figure.",
            "Levels switched in this process with `ConcurrencyDebug.configure(_:)` between loops; level 3 journals to a temporary file. \(repetitions) rounds, each round measuring every variant in turn; each sample is the fastest of \(chunks) loops (so that a preemption by another process lands in one loop, not in the figure).",
            "\"The check alone\" calls `ConcurrencyDebug.check` (inlined, as in the runtime's getters) on a bare subject: the cost a build without checks would not pay.",
            "missing-merge (opt-in): level 1 with `missing-merge` added to the default diagnostics, same loop. No save happens while it runs, so each read takes the fast path: the process's save count compared with the one the object last checked. The compare is in the getter at every level; the lookup of the row's last save runs only on the first read of an object after a save.",
            "Main-queue reads: the same `entry.rating` read on a view-context object from plain main-queue code, as UI code reads it: in a child process of the bench binary (`ctxdebug bench --child main-queue-reads`, hidden) whose main thread is in `dispatchMain()`, so the main queue runs on a worker thread; the loops run in one main-queue work item, outside any `perform`, at levels 0, 1 and 3 switched between loops, measured like the loops above (fastest of \(chunks), \(repetitions) rounds) with the child's own loop overhead subtracted.",
            "Journal: \(stats.events.formattedCount) events from the level-3 loops (\(journaledReads.formattedCount) accesses), \(stats.fileBytes.formattedCount) bytes.",
        ]
    }

    /// Item 1's loop samples, nanoseconds per iteration with the loop included.
    struct LoopSamples {
        var loop: [Double] = [], plain: [Double] = []
        var managed: [Int: [Double]] = [:], check: [Int: [Double]] = [:]
        /// Level 1 with missing-merge on: a read compares the process's save count with
        /// the count its object last checked (no save happens in the loop).
        var missingMergeOn: [Double] = []
        var journaledReads = 0
    }

    /// Every loop in turn, `repetitions` rounds, the level switched between loops.
    /// Nanoseconds per iteration of `ConcurrencyDebug.check` alone, on a bare subject.
    private static func checkLoop(subject: BenchSubject, owner: QueueIdentity, n: Int) -> Double {
        ConcurrencyDebug.entering(owner, dispatched: false, describedBy: { subject.describe(.init(operation: .other, owner: owner, context: 1, subject: 1, member: 0, instance: 0)) }) {
            let t0 = benchNow()
            for i in 0..<n {
                ConcurrencyDebug.check(subject, owner: owner, AccessEvent(operation: .get, owner: owner, context: 1, subject: 1, member: 5, instance: 42))
                benchSink(i)
            }
            return Double(benchNow() - t0) / Double(n)
        }
    }

    static func measureLoops(
        context: ManagedObjectContext, entry: RuntimeJournalEntry, subject: BenchSubject, owner: QueueIdentity, n: Int, chunks: Int,
        repetitions: Int, configure: (Int) -> Void
    ) -> LoopSamples {
        func best(_ body: () -> Double) -> Double { BenchSupport.fastest(of: chunks, body) }
        let plain = makePlainEntry()

        // Each returns nanoseconds per iteration.
        func overhead() -> Double {
            let t0 = benchNow()
            for i in 0..<n { benchSink(i) }
            return Double(benchNow() - t0) / Double(n)
        }
        func plainRead() -> Double {
            let object = plain
            let t0 = benchNow()
            for _ in 0..<n { benchSink(Int(object.rating ?? 0)) }
            return Double(benchNow() - t0) / Double(n)
        }
        func managedRead() -> Double {
            context.performAndWait {
                let t0 = benchNow()
                for _ in 0..<n { benchSink(Int(entry.rating ?? 0)) }
                return Double(benchNow() - t0) / Double(n)
            }
        }
        func checkOnly() -> Double { checkLoop(subject: subject, owner: owner, n: n) }

        var samples = LoopSamples()
        let diagnostics = Diagnostics.settings
        var withMissingMerge = diagnostics
        withMissingMerge.enabled.insert(.missingMerge)
        // Warm up every path once.
        configure(0)
        _ = overhead(); _ = plainRead(); _ = managedRead(); _ = checkOnly()
        for _ in 0..<repetitions {
            samples.loop.append(best(overhead))
            samples.plain.append(best(plainRead))
            for level in [0, 1, 2, 3] {
                configure(level)
                if level == 2 { continue }  // level 2 checks blocks, not reads
                samples.managed[level, default: []].append(best(managedRead))
                samples.check[level, default: []].append(best(checkOnly))
                if level == 3 { samples.journaledReads += 2 * n * chunks }
            }
            configure(1)
            Diagnostics.configure(withMissingMerge)
            samples.missingMergeOn.append(best(managedRead))
            Diagnostics.configure(diagnostics)
            configure(0)
        }
        return samples
    }

    /// Item 7's journal: `events` checked accesses at level 3, as the loops make them.
    static func writeLargeJournal(events: Int, work: URL, subject: BenchSubject, owner: QueueIdentity) -> URL {
        let url = work.appendingPathComponent("large.journal")
        try? FileManager.default.removeItem(at: url)
        BenchSupport.quietly { ConcurrencyDebug.configure(.init(level: 3, accessJournalPath: url.path)) }
        ConcurrencyDebug.entering(owner, dispatched: false, describedBy: { subject.describe(.init(operation: .other, owner: owner, context: 1, subject: 1, member: 0, instance: 0)) }) {
            for i in 0..<events {
                ConcurrencyDebug.check(
                    subject, owner: owner,
                    AccessEvent(operation: .get, owner: owner, context: 1, subject: 1, member: UInt16(i % 6), instance: Int64(i / 6 + 1)))
            }
        }
        BenchSupport.quietly { ConcurrencyDebug.configure(.init(level: 0)) }
        return url
    }

    static func minus(_ a: [Double], _ b: [Double]) -> [Double] { zip(a, b).map { $0 - $1 } }

    /// Item 1's figures from the loops' samples (nanoseconds per iteration, loop included).
    static func figures(
        loop: [Double], plain plainNs: [Double], managed: [Int: [Double]], check: [Int: [Double]], missingMergeOn: [Double],
        stats: AccessJournalStats, mainQueue: MainQueueReadBench.Samples
    ) -> [BenchFigure] {
        let plainCost = minus(plainNs, loop)
        let offCost = minus(managed[0]!, loop)
        let l1Cost = minus(managed[1]!, loop)
        let l3Cost = minus(managed[3]!, loop)
        return [
            BenchFigure("loop overhead (sink call, subtracted below)", unit: "ns/iteration", samples: loop),
            BenchFigure("plain Swift property read", unit: "ns/access", samples: plainCost, signed: true),
            BenchFigure("managed read, checking off (level 0)", unit: "ns/access", samples: offCost, signed: true),
            BenchFigure("managed read, level 1", unit: "ns/access", samples: l1Cost, signed: true),
            BenchFigure("managed read, level 3 (journaled)", unit: "ns/access", samples: l3Cost, signed: true),
            BenchFigure("level 1 added to a managed read (level 1 − off)", unit: "ns/access", samples: minus(managed[1]!, managed[0]!), signed: true),
            BenchFigure("level 3 added to a managed read (level 3 − off)", unit: "ns/access", samples: minus(managed[3]!, managed[0]!), signed: true),
            BenchFigure("the check alone, level 0 (check − loop)", unit: "ns/access", samples: minus(check[0]!, loop), signed: true),
            BenchFigure("the check alone, level 1", unit: "ns/access", samples: minus(check[1]!, loop), signed: true),
            BenchFigure("the check alone, level 3 (journaled)", unit: "ns/access", samples: minus(check[3]!, loop), signed: true),
            BenchFigure("managed read off ÷ plain read (whole loops)", unit: "×", samples: zip(managed[0]!, plainNs).map { $0 / $1 }),
            BenchFigure("journal bytes per event (file size ÷ events)", unit: "bytes", samples: [stats.fileBytesPerEvent]),
            BenchFigure("journal bytes per event (records only)", unit: "bytes", samples: [stats.recordBytesPerEvent]),
            BenchFigure("managed read, level 1 with missing-merge on", unit: "ns/access", samples: minus(missingMergeOn, loop), signed: true),
            BenchFigure("missing-merge added at level 1 (on − default set)", unit: "ns/access", samples: minus(missingMergeOn, managed[1]!), signed: true),
        ] + mainQueueFigures(mainQueue)
    }

    /// The map's per-access targets, met or missed.
    static func targets(_ figures: [BenchFigure], bytesPerEvent bytes: Double) -> [BenchTarget] {
        let off = figures[7].median, l1 = figures[5].median, l3 = figures[6].median
        let readOff = figures[2].median
        let mainL1 = figures.first { $0.name == mainQueueLevel1Name }!.median
        return [
            BenchTarget(what: "an access with checking off", target: "≤ 1 ns over no check", measured: "\(off.benchFormatted) ns (the check alone, level 0)", met: off <= 1),
            BenchTarget(what: "a managed attribute read, checking off", target: "≤ 10 ns", measured: "\(readOff.benchFormatted) ns (managed read, level 0)", met: readOff <= 10),
            BenchTarget(what: "level 1 over level 0, inside `perform`", target: "≤ 2 ns", measured: "\(l1.benchFormatted) ns (level 1 − off, managed read)", met: l1 <= 2),
            BenchTarget(
                what: "level 1 over level 0, a view-context read from plain main-queue code under `dispatchMain()`", target: "≤ 5 ns",
                measured: "\(mainL1.benchFormatted) ns (level 1 − level 0, main-queue read)", met: mainL1 <= 5),
            BenchTarget(what: "an access journaled (level 3)", target: "≤ 30 ns", measured: "\(l3.benchFormatted) ns (level 3 − off, managed read)", met: l3 <= 30),
            BenchTarget(what: "journal size per event", target: "≤ 16 bytes", measured: "\(bytes.benchFormatted) bytes", met: bytes <= 16),
        ]
    }
}

let mainQueueLevel1Name = "main-queue read: level 1 added (level 1 − level 0)"

/// The rows of the view-context read from plain main-queue code (the child's samples).
func mainQueueFigures(_ samples: MainQueueReadBench.Samples) -> [BenchFigure] {
    func minus(_ a: [Double], _ b: [Double]) -> [Double] { zip(a, b).map { $0 - $1 } }
    return [
        BenchFigure("main-queue read (view context, outside perform), level 0", unit: "ns/access", samples: minus(samples.level(0), samples.loop), signed: true),
        BenchFigure("main-queue read, level 1", unit: "ns/access", samples: minus(samples.level(1), samples.loop), signed: true),
        BenchFigure("main-queue read, level 3 (journaled)", unit: "ns/access", samples: minus(samples.level(3), samples.loop), signed: true),
        BenchFigure(mainQueueLevel1Name, unit: "ns/access", samples: minus(samples.level(1), samples.level(0)), signed: true),
        BenchFigure("main-queue read: level 3 added (level 3 − level 0)", unit: "ns/access", samples: minus(samples.level(3), samples.level(0)), signed: true),
    ]
}

extension Int {
    /// 1234567 as "1,234,567".
    var formattedCount: String { Swift.abs(self) < 1_000 ? String(self) : Double(self).benchFormatted }
}
