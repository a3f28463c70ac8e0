import CoreData
import Foundation
import SurfJournal
import Synchronization
import TestSupport
import Testing

/// Set on the main queue by the test that needs it: `DispatchQueue.getSpecific(key:)` is
/// true only in a block the main queue runs (under `dispatchMain()` on Linux the main
/// queue runs on a worker thread, so `Thread.isMainThread` would not tell).
nonisolated(unsafe) private let mainQueueKey = DispatchSpecificKey<Bool>()

/// SurfJournal's data layer as the chapter writes it: the `JournalEntry` entity class,
/// `NSPersistentContainer(name: "SurfJournalModel")` with the model from this module's
/// resources, and the app's export, on the main context (the starter app) and in
/// `performBackgroundTask` with a hop to the main queue (the final app).
@Suite("SurfJournal as the chapter writes it")
struct ChapterExportTests {
    /// The line the chapter's `JournalEntry.csv()` makes for an entry: the date in the
    /// short date style, each field nil as "", commas between, and the line end as one
    /// more field ("…,rating,\n"). Built here from the seed's values, not from an entry.
    static func chapterLine(_ e: SeedEntry) -> String {
        let formatter = DateFormatter()
        formatter.dateStyle = .short
        let date = e.date.map { formatter.string(from: $0) } ?? ""
        return "\(date),\(e.height ?? ""),\(e.period ?? ""),\(e.wind ?? ""),\(e.location ?? ""),\(e.rating.map { String($0) } ?? ""),\n"
    }

    static func seededContainer(_ dir: URL, count: Int) throws -> NSPersistentContainer {
        let store = dir.appendingPathComponent("SurfJournalModel.sqlite")
        try Seeder.seed(storeURL: store, count: count)
        return try SurfJournal.openContainer(at: store)
    }

    @Test @MainActor func theStarterExportWritesTheChaptersLinesFromTheMainContext() async throws {
        let dir = try temporaryDirectory("chapter-export")
        defer { try? FileManager.default.removeItem(at: dir) }
        // 250 entries: the seed leaves out a wind (entry 13) and a period (entry 7).
        let n = 250
        let container = try Self.seededContainer(dir, count: n)
        let url = dir.appendingPathComponent("export.csv")
        let result = try JournalExport.exportOnMainContext(container: container, to: url)

        let text = try String(contentsOf: url, encoding: .utf8)
        let expected = Seeder.entries(count: n).map(Self.chapterLine)  // newest first, as exported
        #expect(result.rows == n)
        #expect(result.bytes == text.utf8.count)
        #expect(text == expected.joined())
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == n)
        #expect(lines.allSatisfy { $0.hasSuffix(",") })
        // The chapter quotes nothing: the spot with a comma adds a column.
        #expect(lines.contains { $0.contains("Steamer Lane, Santa Cruz") && $0.split(separator: ",", omittingEmptySubsequences: false).count == 8 })
        // nil is an empty field: entry 13 has no wind.
        #expect(lines[13].split(separator: ",", omittingEmptySubsequences: false)[3] == "")
    }

    @Test func theFinalExportRunsOnAPrivateQueueThenHopsToTheMainQueue() async throws {
        let dir = try temporaryDirectory("chapter-export")
        defer { try? FileManager.default.removeItem(at: dir) }
        let n = 120
        let container = try Self.seededContainer(dir, count: n)
        await MainActor.run { DispatchQueue.main.setSpecific(key: mainQueueKey, value: true) }

        struct Seen: Sendable {
            var concurrencyType: NSManagedObjectContextConcurrencyType
            var onMainQueue: Bool
            var name: String?
        }
        let seen = Mutex<Seen?>(nil)
        let url = dir.appendingPathComponent("export.csv")
        let (result, completionOnMain): (Result<ExportResult, any Error>, Bool) = await withCheckedContinuation { done in
            JournalExport.exportInBackground(
                container: container, to: url,
                willExport: { context in
                    seen.withLock { $0 = Seen(concurrencyType: context.concurrencyType, onMainQueue: DispatchQueue.getSpecific(key: mainQueueKey) == true, name: context.name) }
                },
                completion: { result in
                    done.resume(returning: (result, DispatchQueue.getSpecific(key: mainQueueKey) == true))
                })
        }
        let context = try #require(seen.withLock { $0 })
        #expect(context.concurrencyType == .privateQueueConcurrencyType)
        #expect(!context.onMainQueue, "the export ran on the main queue")
        #expect(context.name == "performBackgroundTask")
        #expect(completionOnMain, "the completion did not run on the main queue")
        #expect(try result.get().rows == n)
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text == Seeder.entries(count: n).map(Self.chapterLine).joined())
    }

    @Test func theExportSaysWhenItCannotWrite() throws {
        let dir = try temporaryDirectory("chapter-export")
        defer { try? FileManager.default.removeItem(at: dir) }
        let container = try Self.seededContainer(dir, count: 3)
        let context = container.newBackgroundContext()
        let missing = dir.appendingPathComponent("no/such/dir/export.csv")
        do {
            _ = try context.performAndWait { try JournalExport.exportCSVFile(from: context, to: missing) }
            Issue.record("the export to \(missing.path) should fail")
        } catch let error as SurfJournalError {
            #expect(error.code == .outputUnwritable)
            #expect(error.message.contains(missing.path) && error.message.contains("writable"), "\(error.message)")
        }
    }

    /// The entity class the model names (`SurfJournal.JournalEntry`) is what fetches
    /// return, its properties read and write through key-value access, and the store
    /// keeps Core Data's layout.
    @Test func theContainerFindsTheModelAndFetchesJournalEntries() throws {
        let dir = try temporaryDirectory("chapter-export")
        defer { try? FileManager.default.removeItem(at: dir) }
        let container = try Self.seededContainer(dir, count: 5)
        #expect(container.name == "SurfJournalModel")
        let entity = try #require(container.managedObjectModel.entitiesByName["JournalEntry"])
        #expect(entity.managedObjectClassName == "SurfJournal.JournalEntry")
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let entries = try context.fetch(JournalExport.surfJournalFetchRequest())
            #expect(entries.count == 5)
            #expect(entries.first?.date == Seeder.newestDate)
            let added = JournalEntry(context: context)
            #expect(added.rating == NSNumber(value: 0), "the model's default rating")
            added.rating = NSNumber(value: 4)
            added.location = "Scratch"
            #expect(added.value(forKey: "rating") as? Int16 == 4)
            #expect(added.value(forKey: "location") as? String == "Scratch")
            try context.save()
        }
        let columns = try sqlite(dir.appendingPathComponent("SurfJournalModel.sqlite").path, "SELECT name FROM pragma_table_info('ZJOURNALENTRY') ORDER BY name")
        #expect(columns == ["ZDATE", "ZHEIGHT", "ZLOCATION", "ZPERIOD", "ZRATING", "ZWIND", "Z_ENT", "Z_OPT", "Z_PK"])
        let max = try sqlite(dir.appendingPathComponent("SurfJournalModel.sqlite").path, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'JournalEntry'")
        #expect(max == ["6"])
    }

    /// The chapter's own seeded store (a copy: opening the seed in place would
    /// checkpoint its -wal away) opens through the same container, and the app's export
    /// writes a line for each of its entries.
    @Test func theChaptersSeedStoreExports() throws {
        let seed = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("../shared/real-apps/surfjournal/CoreDataSeed/SurfJournalModel.sqlite").standardizedFileURL
        try #require(FileManager.default.fileExists(atPath: seed.path), "the chapter's seed is at ../shared/real-apps (see its README)")
        let dir = try temporaryDirectory("chapter-seed")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("SurfJournalModel.sqlite")
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: seed.path + suffix, toPath: store.path + suffix)
        }
        let expected = Int(try sqlite(store.path, "SELECT COUNT(*) FROM ZJOURNALENTRY").first ?? "") ?? -1
        let container = try SurfJournal.openContainer(at: store, readOnly: true)
        let context = container.newBackgroundContext()
        let url = dir.appendingPathComponent("export.csv")
        let result = try context.performAndWait { try JournalExport.exportCSVFile(from: context, to: url) }
        #expect(expected > 0)
        #expect(result.rows == expected)
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.split(separator: "\n").count == expected)
    }

    private func sqlite(_ path: String, _ sql: String) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", "-readonly", path, sql]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}
