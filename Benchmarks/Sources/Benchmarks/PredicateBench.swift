@_spi(CoreData) import CoreData
import Foundation
@_spi(CoreData) import ManagedContext
import SurfJournal

/// Item 11: a fetch with `NSPredicate(format:)` against the same fetch with the typed
/// predicate. Each format fetch builds its predicate from the format (as app code
/// does: parsed once per format string, its arguments bound each time), translates it
/// for the entity and fetches; each typed fetch builds its key-path predicate and
/// fetches. Both return the same objects from the same store, alternated.
enum PredicateBench {
    static func run(entries: Int, fetchesPerSample: Int, repetitions: Int, work: URL) throws -> BenchItem {
        let url = work.appendingPathComponent("predicate-\(entries).sqlite")
        if !FileManager.default.fileExists(atPath: url.path) {
            try Seeder.seedIfFirstLaunch(seedURL: url, destination: url, count: entries)
        }
        // The runtime's typed entity (`@Attribute`), so the typed predicate has key paths.
        let container = try RuntimeJournal.openContainer(at: url, readOnly: true)
        let context = container.newBackgroundContext()
        let entity = RuntimeJournal.model.entity(for: RuntimeJournalEntry.self)
        let location = "Rincon"

        func typed() throws -> Int {
            let request = FetchRequest<RuntimeJournalEntry>(predicate: \RuntimeJournalEntry.rating >= 3 && \RuntimeJournalEntry.location == location)
            return try context.fetch(request).count
        }
        func format() throws -> Int {
            let predicate = NSPredicate(format: "rating >= %d AND location == %@", 3, location)
            let request = try FetchRequest<ManagedObject>(entity: entity, predicate: predicate, sortDescriptors: [])
            return try context.fetch(request).count
        }

        var typedTimes: [Double] = [], formatTimes: [Double] = [], ratios: [Double] = [], makeTimes: [Double] = []
        var matched = (0, 0)
        try context.performAndWait {
            matched = (try typed(), try format())  // warm up: caches, pages
            func time(_ fetch: () throws -> Int) rethrows -> Double {
                let t0 = benchNow()
                for _ in 0..<fetchesPerSample { benchSink(try fetch()) }
                return Double(benchNow() - t0) / Double(fetchesPerSample) / 1_000
            }
            for rep in 0..<repetitions {
                // Alternate which goes first, so drift in the machine's load favours neither.
                let typedTime: Double, formatTime: Double
                if rep % 2 == 0 { (typedTime, formatTime) = (try time(typed), try time(format)) }
                else { (formatTime, typedTime) = (try time(format), try time(typed)) }
                typedTimes.append(typedTime)
                formatTimes.append(formatTime)
                ratios.append(formatTime / typedTime)
                makeTimes.append(try makingTime(entity: entity, location: location))
            }
        }
        guard matched.0 == matched.1 else {
            throw BenchError("The typed and the format predicate matched \(matched.0) and \(matched.1) entries; they must match the same.")
        }
        let ratio = BenchFigure("format ÷ typed", unit: "×", samples: ratios)
        return BenchItem(
            id: "11", title: "A fetch with NSPredicate(format:) against the typed predicate",
            setup: [
                "`rating >= %d AND location == %@` (3, \"Rincon\") against `\\.rating >= 3 && \\.location == \"Rincon\"` on a SurfJournal store of \(entries) entries (\(matched.0) match), a background context, objects fetched.",
                "\(fetchesPerSample) fetches per sample of each, \(repetitions) samples, which goes first alternating. A format fetch includes making the NSPredicate from its format and arguments (the format parsed once, its arguments bound each time) and translating it for the entity; the last figure is that alone, over 1,000 predicates.",
            ],
            figures: [
                BenchFigure("typed predicate", unit: "µs/fetch", samples: typedTimes),
                BenchFigure("NSPredicate(format:)", unit: "µs/fetch", samples: formatTimes),
                ratio,
                BenchFigure("making and translating the NSPredicate alone", unit: "µs", samples: makeTimes),
            ],
            targets: [BenchTarget(what: "a fetch with `NSPredicate(format:)`", target: "≤ 1.1× the typed predicate", measured: "\(ratio.median.benchFormatted)×", met: ratio.median <= 1.1)],
            detections: nil, skipped: nil, notes: [])
    }
    /// The format predicate's own cost, µs: made from its format and arguments and
    /// translated for the entity, without the fetch (over 1,000 predicates).
    private static func makingTime(entity: EntityDescription, location: String) throws -> Double {
        let t0 = benchNow()
        for _ in 0..<1_000 {
            let p = NSPredicate(format: "rating >= %d AND location == %@", 3, location)
            benchSink(try FetchRequest<ManagedObject>(entity: entity, predicate: p, sortDescriptors: []).fetchLimit)
        }
        return Double(benchNow() - t0) / 1_000 / 1_000
    }
}
