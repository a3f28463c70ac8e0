import ConcurrencyDebug
import Dispatch
import Foundation
import ManagedContext
import SurfJournal

/// Item 1, the read UI code makes: a view-context attribute read from plain main-queue
/// code (a main-queue work item, not inside `perform`), with the process in
/// `dispatchMain()`, so the main queue runs on a worker thread as it does on Linux.
/// Measured in a child process of the bench binary (`ctxdebug bench --child
/// main-queue-reads`, hidden): the parent's main thread is not in `dispatchMain()`.
enum MainQueueReadBench {
    /// Nanoseconds per iteration, one sample per round, as the child measured them.
    struct Samples: Codable {
        var loop: [Double] = []
        var levels: [String: [Double]] = [:]

        func level(_ level: Int) -> [Double] { levels[String(level)] ?? [] }
    }

    /// Runs the child and reads its samples.
    static func measure(storeURL: URL, iterations: Int, repetitions: Int, work: URL) throws -> Samples {
        let output = work.appendingPathComponent("main-queue-reads.json")
        try? FileManager.default.removeItem(at: output)
        let run = try BenchSupport.run(
            BenchSupport.selfExecutable,
            [
                "bench", "--child", "main-queue-reads", "--store", storeURL.path, "--child-output", output.path,
                "--iterations", String(iterations), "--repetitions", String(repetitions),
            ],
            work: work)
        guard run.status == 0, !run.signaled, let data = try? Data(contentsOf: output) else {
            throw BenchError("The main-queue read child failed (status \(run.status)): \(run.standardError)")
        }
        try? FileManager.default.removeItem(at: output)
        return try JSONDecoder().decode(Samples.self, from: data)
    }

    /// The child: fetches one entry through the view context, then measures its reads
    /// in one main-queue work item at levels 0, 1 and 3, writes the samples as JSON to
    /// `output` and exits.
    static func runChild(store: String, output: String, iterations: Int, repetitions: Int) -> Never {
        armBenchSink()
        let container: PersistentContainer
        do {
            container = try RuntimeJournal.openContainer(at: URL(fileURLWithPath: store), readOnly: true)
        } catch {
            fail("cannot open \(store): \(error)")
        }
        let box = Smuggled(value: container)
        DispatchQueue.main.async {
            // Under dispatchMain() on Linux a worker thread drains the main queue: the
            // case this measures. On the main thread it would measure another one.
            if Thread.isMainThread { fail("the main queue ran on the main thread, not under dispatchMain()") }
            do {
                let samples = try measureOnMainQueue(box.value.viewContext, iterations: iterations, repetitions: repetitions, output: output)
                try JSONEncoder().encode(samples).write(to: URL(fileURLWithPath: output))
            } catch {
                fail("\(error)")
            }
            exit(0)
        }
        dispatchMain()
    }

    /// Runs on the main queue, outside any perform block.
    private static func measureOnMainQueue(_ view: ManagedObjectContext, iterations: Int, repetitions: Int, output: String) throws -> Samples {
        let journal = output + ".journal"
        defer { try? FileManager.default.removeItem(atPath: journal) }
        func configure(_ level: Int) {
            BenchSupport.quietly {
                ConcurrencyDebug.configure(.init(level: .init(rawValue: level) ?? .off, accessJournalPath: level == 3 ? journal : nil))
            }
        }
        configure(0)
        var request = FetchRequest<RuntimeJournalEntry>(sortDescriptors: RuntimeJournal.newestFirst)
        request.fetchLimit = 1
        guard let entry = try view.fetch(request).first else { throw BenchError("The store has no entries.") }
        _ = entry.rating  // fires the fault

        let chunks = 7
        let n = max(1, iterations / chunks)
        func best(_ body: () -> Double) -> Double { BenchSupport.fastest(of: chunks, body) }
        func overhead() -> Double {
            let t0 = benchNow()
            for i in 0..<n { benchSink(i) }
            return Double(benchNow() - t0) / Double(n)
        }
        func read() -> Double {
            let t0 = benchNow()
            for _ in 0..<n { benchSink(Int(entry.rating ?? 0)) }
            return Double(benchNow() - t0) / Double(n)
        }
        _ = overhead()
        _ = read()
        var samples = Samples()
        for _ in 0..<repetitions {
            samples.loop.append(best(overhead))
            for level in [0, 1, 3] {
                configure(level)
                samples.levels[String(level), default: []].append(best(read))
            }
            configure(0)
        }
        return samples
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("ctxdebug bench: main-queue reads: \(message)\n".utf8))
        exit(1)
    }
}
