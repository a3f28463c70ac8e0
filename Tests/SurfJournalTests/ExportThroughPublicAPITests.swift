import Foundation
import ManagedContext
@testable import SurfJournal
import TestSupport
import Testing

/// Issue 25, part 4: the export reads the store through public API only (a dictionary
/// fetch) and writes the same file, byte for byte, as the export it replaced, which
/// read the package's stored values of one managed object per row. That writer is
/// kept here, as it was (`OldExport`), and both run on the same seeded store.
@Suite struct ExportThroughPublicAPITests {
    @Test func theDictionaryExportWritesTheOldExportsBytes() throws {
        let dir = try temporaryDirectory("export-identical")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("journal.sqlite")
        try Seeder.seed(storeURL: store, count: 3_000)
        try addAwkwardEntries(to: store)

        let container = try SurfJournal.openContainer(at: store, readOnly: true)
        let context = container.newBackgroundContext()
        let new = dir.appendingPathComponent("new.csv")
        let result = try context.performAndWait { try CSVExport.exportJournal(from: context, to: new, batchSize: 256) }
        let old = try context.performAndWait { try OldExport.export(from: context) }

        let newBytes = try Data(contentsOf: new)
        #expect(result.rows == 3_000 + Self.awkward.count)
        #expect(result.bytes == newBytes.count)
        #expect(newBytes.count == old.count)
        let a = [UInt8](newBytes), b = [UInt8](old)
        if let i = zip(a, b).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset ?? (a.count == b.count ? nil : min(a.count, b.count)) {
            let around = { (d: Data) in String(decoding: d[max(0, i - 80)..<min(d.count, i + 80)], as: UTF8.self) }
            Issue.record("the exports differ at byte \(i):\nnew: \(around(newBytes))\nold: \(around(old))")
        }
        // The awkward values are in it: quoted, doubled quotes, a CRLF inside a field.
        let text = String(decoding: newBytes, as: UTF8.self)
        #expect(text.contains("\"Line\r\nBreak\""))
        #expect(text.contains("\"Say \"\"hi\"\", then go\""))
        #expect(text.contains("1969-07-20T20:17:40Z,,,,,\r\n"))
    }

    /// The export is a dictionary fetch, so it writes what the store holds: an unsaved
    /// entry of the exporting context is not in it (Apple: NSFetchRequest
    /// includesPendingChanges, "not supported in conjunction with
    /// NSDictionaryResultType"), and the progress total counts the same rows.
    @Test func anExportWritesTheSavedEntriesAndItsTotalCountsThem() throws {
        let dir = try temporaryDirectory("export-unsaved")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("journal.sqlite")
        try Seeder.seed(storeURL: store, count: 50)
        let container = try SurfJournal.openContainer(at: store)
        defer { container.persistentStoreCoordinator.removePersistentStore() }
        let context = container.newBackgroundContext()
        let output = dir.appendingPathComponent("out.csv")
        let (result, totals) = try context.performAndWait {
            JournalEntry(context: context).location = "Unsaved Point"
            var totals: [Int] = []
            let result = try CSVExport.exportJournal(from: context, to: output, batchSize: 10) { _, total in totals.append(total) }
            return (result, totals)
        }
        #expect(result.rows == 50)
        #expect(!totals.isEmpty && totals.allSatisfy { $0 == 50 })
        #expect(!(try String(contentsOf: output, encoding: .utf8)).contains("Unsaved Point"))
    }

    /// Entries the seeder does not make: every field nil but the date, a date before
    /// 1970, a field with CR LF, quotes and a comma, non-ASCII text, a negative rating.
    static let awkward: [(Date?, String?, String?, Int16?)] = [
        (Date(timeIntervalSince1970: -14_182_940), nil, nil, nil),
        (nil, "Say \"hi\", then go", "Line\r\nBreak", -3),
        (Date(timeIntervalSince1970: 1_700_000_000.75), "Pe\u{301}ahi ☀︎", "", 5),
        (Date(timeIntervalSince1970: 1_500_000_000), nil, "Ocean Beach", nil),
    ]

    func addAwkwardEntries(to store: URL) throws {
        let container = try SurfJournal.openContainer(at: store)
        defer { container.persistentStoreCoordinator.removePersistentStore() }
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for (date, height, location, rating) in Self.awkward {
                let e = JournalEntry(context: context)
                e.date = date
                e.height = height
                e.location = location
                e.rating = rating.map { NSNumber(value: $0) }
            }
            try context.save()
        }
    }
}

/// The export as it was before issue 25 (CSVExport.swift at 7a6af00): one managed object
/// per row (`enumerateObjects`), its fields read through the package's stored values.
/// Kept as the reference the public-API export must match byte for byte.
enum OldExport {
    static func export(from context: ManagedObjectContext) throws -> Data {
        var buffer = CSVBuffer()
        buffer.append(CSVExport.header)
        buffer.endRecord()
        let fields = Fields(JournalEntry.entity(in: context))
        try context.enumerateObjects(for: FetchRequest<JournalEntry>(sortDescriptors: SurfJournal.newestFirst)) { entry in
            writeRecord(entry, fields, into: &buffer)
        }
        return Data(buffer.bytes)
    }

    struct Fields {
        let date, height, period, wind, location, rating: Int
        init(_ entity: EntityDescription) {
            func index(_ name: String) -> Int { entity.attribute(named: name)!.index }
            (date, height, period, wind, location, rating) =
                (index("date"), index("height"), index("period"), index("wind"), index("location"), index("rating"))
        }
    }

    static func appendStored(_ value: StoredValue, into buffer: inout CSVBuffer) {
        switch value {
        case .null: break
        case .text(let s): buffer.appendField(s)
        default: buffer.appendField(String.fromStored(value))
        }
    }

    static func writeRecord(_ entry: JournalEntry, _ fields: Fields, into buffer: inout CSVBuffer) {
        let date = entry.storedValue(atAttributeIndex: fields.date)
        if !date.isNull { buffer.appendDate(Date.fromStored(date)) }
        buffer.separator()
        appendStored(entry.storedValue(atAttributeIndex: fields.height), into: &buffer)
        buffer.separator()
        appendStored(entry.storedValue(atAttributeIndex: fields.period), into: &buffer)
        buffer.separator()
        appendStored(entry.storedValue(atAttributeIndex: fields.wind), into: &buffer)
        buffer.separator()
        appendStored(entry.storedValue(atAttributeIndex: fields.location), into: &buffer)
        buffer.separator()
        let rating = entry.storedValue(atAttributeIndex: fields.rating)
        if !rating.isNull { buffer.appendInteger(Int64(Int16.fromStored(rating))) }
        buffer.endRecord()
    }
}
