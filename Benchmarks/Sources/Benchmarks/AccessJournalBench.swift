import Foundation

/// Item 7: how fast `ctxdebug journal stats` reads a large journal, written at
/// level 3 by item 1 (checked accesses, one thread).
enum AccessJournalBench {
    struct StatsOutput: Decodable {
        var events: Int
        var fileBytes: Int
    }

    static func run(journal: URL, repetitions: Int, work: URL) throws -> BenchItem {
        var rates: [Double] = [], seconds: [Double] = []
        var events = 0, bytes = 0
        for _ in 0..<repetitions {
            let run = try BenchSupport.run(BenchSupport.selfExecutable, ["journal", "stats", "--format", "json", journal.path], work: work)
            guard run.status == 0, let stats = try? JSONDecoder().decode(StatsOutput.self, from: run.standardOutput), stats.events > 0 else {
                throw BenchError("`ctxdebug journal stats` failed with status \(run.status): \(run.standardError.suffix(1_500))")
            }
            events = stats.events
            bytes = stats.fileBytes
            seconds.append(run.seconds)
            rates.append(Double(stats.events) / run.seconds)
        }
        let rate = BenchFigure("`ctxdebug journal stats` (whole process)", unit: "events/s", samples: rates)
        return BenchItem(
            id: "7", title: "Journal reading",
            setup: [
                "A journal of \(events.formattedCount) events (\(bytes.formattedCount) bytes), written at level 3 by checked accesses in one thread; `ctxdebug journal stats --format json` run \(repetitions) times as a child process (the file in the page cache after the first), timed start to exit."
            ],
            figures: [BenchFigure("wall time", unit: "s", samples: seconds), rate],
            targets: [
                BenchTarget(what: "reading a journal", target: "≥ 20M events/s", measured: "\((rate.median / 1e6).benchFormatted)M events/s", met: rate.median >= 20e6)
            ],
            detections: nil, skipped: nil, notes: [])
    }
}
