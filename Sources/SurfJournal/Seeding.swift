import CtxdebugHelpers
public import Foundation
public import CoreData
public import ManagedContext

/// The values of one seeded entry.
public struct SeedEntry: Sendable, Hashable {
    public var date: Date?
    public var height: String?
    public var period: String?
    public var wind: String?
    public var location: String?
    public var rating: Int16?
}

/// Deterministic seeding of the SurfJournal store.
public enum Seeder {
    /// The ten surf spots. Two need quoting in CSV (a comma, double quotes), so an
    /// export exercises RFC 4180.
    public static let spots = [
        "Rincon", "Malibu", "Mavericks", "Trestles", "Huntington Beach", "Pipeline",
        "Ocean Beach", "Steamer Lane, Santa Cruz", "The \"Wedge\"", "El Porto",
    ]

    /// The newest entry's date: 2014-08-29T06:21:40Z, the chapter's era.
    public static let newestDate = Date(timeIntervalSince1970: 1_409_293_300)

    public static let defaultSeed: UInt64 = 0x5EED_5EED

    /// Entry `index` (0 is the newest) of the sequence made by `seed`. Dates are
    /// distinct whole seconds, one to a bit under two hours apart, going back in time.
    public static func entries(count: Int, seed: UInt64 = defaultSeed) -> [SeedEntry] {
        var g = SplitMix(seed: seed)
        var result: [SeedEntry] = []
        result.reserveCapacity(count)
        var date = newestDate.timeIntervalSince1970
        for i in 0..<count {
            let height = Double(Int.random(in: 2...40, using: &g)) / 2  // 1.0 ... 20.0
            let period = Int.random(in: 6...20, using: &g)
            let wind = Double(Int.random(in: 0...60, using: &g)) / 2
            let spot = spots[Int.random(in: 0..<spots.count, using: &g)]
            let rating = Int16.random(in: 1...5, using: &g)
            var e = SeedEntry(
                date: Date(timeIntervalSince1970: date), height: String(height), period: String(period),
                wind: String(wind), location: spot, rating: rating)
            // Every attribute is optional: a few entries leave one out.
            if i % 97 == 13 { e.wind = nil }
            if i % 211 == 7 { e.period = nil }
            result.append(e)
            date -= Double(Int.random(in: 60...6_600, using: &g))
        }
        return result
    }

    /// Inserts `count` seeded entries into the store at `storeURL` (created if
    /// missing), in saves of `batchSize`, on a background context. Calls `progress`
    /// with the rows written so far. Returns the number of entries written.
    @discardableResult
    public static func seed(
        storeURL: URL, count: Int, seed: UInt64 = defaultSeed, batchSize: Int = 10_000,
        progress: (@Sendable (Int) -> Void)? = nil
    ) throws -> Int {
        guard count >= 0 else { throw SurfJournalError(.invalidArgument, "The entry count must be 0 or more.") }
        let container = try SurfJournal.openContainer(at: storeURL)
        defer { container.persistentStoreCoordinator.removePersistentStore() }
        try Seeder.seed(container: container, count: count, seed: seed, batchSize: batchSize, progress: progress)
        return count
    }

    /// The same, into an open container.
    public static func seed(
        container: NSPersistentContainer, count: Int, seed: UInt64 = defaultSeed, batchSize: Int = 10_000,
        progress: (@Sendable (Int) -> Void)? = nil
    ) throws {
        let all = entries(count: count, seed: seed)
        let context = container.newBackgroundContext()
        context.name = "seed"
        try context.performAndWait {
            var written = 0
            for start in stride(from: 0, to: all.count, by: max(1, batchSize)) {
                for e in all[start..<min(start + batchSize, all.count)] {
                    let entry = JournalEntry(context: context)
                    entry.date = e.date
                    entry.height = e.height
                    entry.period = e.period
                    entry.wind = e.wind
                    entry.location = e.location
                    entry.rating = e.rating.map { NSNumber(value: $0) }
                }
                try context.save()
                context.reset()
                written = min(start + batchSize, all.count)
                progress?(written)
            }
        }
    }

    /// Seeds a store at `seedURL` if none is there, then copies it (with its `-wal`
    /// and `-shm`) to `destination` if no store is there, as the chapter's
    /// `seedCoreDataContainerIfFirstLaunch` does. Returns whether it seeded.
    @discardableResult
    public static func seedIfFirstLaunch(
        seedURL: URL, destination: URL, count: Int, progress: (@Sendable (Int) -> Void)? = nil
    ) throws -> Bool {
        var seeded = false
        if !FileManager.default.fileExists(atPath: seedURL.path) {
            // Seed under a temporary name, then rename: an interrupted seeding never
            // leaves a half-filled store behind under the real name.
            let staging = seedURL.deletingLastPathComponent().appendingPathComponent(".seeding-\(getpid())-" + seedURL.lastPathComponent)
            for f in PersistentContainer.storeFiles(staging) { try? FileManager.default.removeItem(at: f) }
            try Seeder.seed(storeURL: staging, count: count, progress: progress)
            for (from, to) in zip(PersistentContainer.storeFiles(staging), PersistentContainer.storeFiles(seedURL)).reversed()
            where FileManager.default.fileExists(atPath: from.path) {
                try? FileManager.default.removeItem(at: to)
                try FileManager.default.moveItem(at: from, to: to)
            }
            seeded = true
        }
        if seedURL.standardizedFileURL != destination.standardizedFileURL {
            try PersistentContainer.seedStoreIfNeeded(from: seedURL, to: destination)
        }
        return seeded
    }
}
