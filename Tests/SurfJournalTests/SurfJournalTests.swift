import Foundation
import ManagedContext
import SurfJournal
import TestSupport
import Testing

@Suite("SurfJournal")
struct SurfJournalTests {
    @Test func seedingIsDeterministicWithDistinctDates() {
        let a = Seeder.entries(count: 3_000)
        let b = Seeder.entries(count: 3_000)
        #expect(a == b)
        #expect(Set(a.compactMap(\.date)).count == 3_000)
        #expect(Set(a.compactMap(\.location)) == Set(Seeder.spots))
        #expect(a.allSatisfy { ($0.rating ?? 0) >= 1 && ($0.rating ?? 0) <= 5 })
        #expect(a.contains { $0.wind == nil })
        #expect(a.first?.date == Seeder.newestDate)
    }

    @Test func iso8601IsUTCWholeSeconds() {
        #expect(CSVExport.iso8601(Seeder.newestDate) == "2014-08-29T06:21:40Z")
        #expect(CSVExport.iso8601(Date(timeIntervalSince1970: 951_782_400.9)) == "2000-02-29T00:00:00Z")
        #expect(CSVExport.iso8601(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
    }

    @Test func exportOfASeededStoreRoundTripsThroughACSVParser() throws {
        let dir = try temporaryDirectory("export")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("journal.sqlite")
        let n = 2_500
        try Seeder.seed(storeURL: store, count: n)

        let container = try SurfJournal.openContainer(at: store, readOnly: true)
        let context = container.newBackgroundContext()
        let output = dir.appendingPathComponent("out.csv")
        let result = try context.performAndWait { try CSVExport.exportJournal(from: context, to: output, batchSize: 300) }
        #expect(result.rows == n)

        let text = try String(contentsOf: output, encoding: .utf8)
        let records = try CSVParser.parse(text)
        #expect(records.count == n + 1)
        #expect(records[0] == ["date", "height", "period", "wind", "location", "rating"])
        let expected = Seeder.entries(count: n)  // newest first, as exported
        for (record, e) in zip(records.dropFirst(), expected) {
            #expect(record.count == 6)
            #expect(record == [
                e.date.map(CSVExport.iso8601) ?? "", e.height ?? "", e.period ?? "", e.wind ?? "", e.location ?? "",
                e.rating.map { String($0) } ?? "",
            ])
        }
        // The spots with a comma and with quotes came back whole.
        #expect(records.contains { $0[4] == "Steamer Lane, Santa Cruz" })
        #expect(records.contains { $0[4] == "The \"Wedge\"" })
        #expect(text.hasSuffix("\r\n"))
    }

    @Test func aFailedExportLeavesTheOldFileAlone() throws {
        let dir = try temporaryDirectory("fail")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("journal.sqlite")
        try Seeder.seed(storeURL: store, count: 10)
        let container = try SurfJournal.openContainer(at: store, readOnly: true)
        let context = container.newBackgroundContext()
        let missing = dir.appendingPathComponent("no/such/dir/out.csv")
        #expect(throws: SurfJournalError.self) {
            try context.performAndWait { try CSVExport.exportJournal(from: context, to: missing) }
        }
        #expect(!FileManager.default.fileExists(atPath: missing.path))
    }

    @Test func childEditorSavesIntoTheStoreAndCancelDiscards() throws {
        let dir = try temporaryDirectory("edit")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("journal.sqlite")
        try Seeder.seed(storeURL: store, count: 50)
        let container = try SurfJournal.openContainer(at: store)
        let parent = container.newBackgroundContext()
        try parent.performAndWait { () throws in
            let list = try JournalList(context: parent)
            #expect(list.count == 50)
            #expect(list.cells(0..<3).count == 3)
            let editor = EntryEditor(parent: parent)
            let id = list.objectID(at: 0)
            // The editor's child is a private context of its own: its entry is
            // touched on the child's queue.
            let edited = try editor.open(id)
            editor.child.performAndWait { edited.location = "Edited" }
            try editor.save()
            let cancelled = try editor.open(list.objectID(at: 1))
            editor.child.performAndWait { cancelled.location = "Cancelled" }
            editor.cancel()
        }
        let check = container.newBackgroundContext()
        let locations: [String?] = try check.performAndWait {
            var request = FetchRequest<JournalEntry>(sortDescriptors: SurfJournal.newestFirst)
            request.fetchLimit = 2
            return try check.fetch(request).map(\.location)
        }
        #expect(locations[0] == "Edited")
        #expect(locations[1] != "Cancelled")
    }
}
