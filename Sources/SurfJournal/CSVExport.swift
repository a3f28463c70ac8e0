import CtxdebugHelpers
public import Foundation
public import ManagedContext
#if canImport(Glibc)
import Glibc
#endif

/// What one export did.
public struct ExportResult: Sendable, Hashable, Codable {
    /// Entries written (the header not counted).
    public var rows: Int
    /// Bytes written, header included.
    public var bytes: Int
    /// Wall time of the export, in seconds.
    public var seconds: Double
    public var rowsPerSecond: Double { seconds > 0 ? Double(rows) / seconds : 0 }

    public init(rows: Int, bytes: Int, seconds: Double) {
        self.rows = rows
        self.bytes = bytes
        self.seconds = seconds
    }
}

/// The journal as CSV, as the app's export button writes it, but done right:
///
/// - RFC 4180: fields with a comma, a double quote, CR or LF are quoted, quotes
///   doubled; records end with CRLF.
/// - A header line: `date,height,period,wind,location,rating`.
/// - Dates in ISO 8601, UTC, whole seconds: `2014-08-29T06:21:40Z`.
/// - nil as an empty field.
/// - Newest first, streamed: the fetch loads entries batch by batch and the file
///   is written in chunks, so memory stays flat however big the journal is.
///
/// (The chapter's own `JournalEntry.csv()` writes no header and quotes nothing,
/// so a location with a comma breaks its file.)
public enum CSVExport {
    public static let header = "date,height,period,wind,location,rating"
    public static let defaultBatchSize = 1_000

    /// Exports every entry of `context`'s store, newest first, to `url`. Call it on
    /// the context's queue: inside `perform` for a private context, on the main
    /// queue for the view context (which is what blocks the UI in the starter app).
    ///
    /// The file is written under a temporary name and renamed at the end, so a
    /// failed export leaves any existing file at `url` untouched.
    /// `progress` gets (rows written, total rows) after each batch.
    @inline(never)
    public static func exportJournal(
        from context: ManagedObjectContext, to url: URL, batchSize: Int = defaultBatchSize,
        progress: ((Int, Int) -> Void)? = nil
    ) throws -> ExportResult {
        let start = MonotonicClock.now()
        let request = exportRequest
        let total = progress == nil ? 0 : try context.count(for: request)

        var written = (rows: 0, bytes: 0)
        do {
            try WholeFile.write(to: url.path) { temporary in
                var writer = try CSVFileWriter(path: temporary, finalPath: url.path)
                var ok = false
                defer { if !ok { writer.abandon() } }
                writer.append(header)
                writer.endRecord()
                let rows = try writeRows(from: context, request, into: &writer, every: max(1, batchSize)) { progress?($0, total) }
                try writer.finish()
                ok = true
                written = (rows, writer.bytesWritten)
            }
        } catch let error as WholeFile.MoveError {
            throw SurfJournalError(.outputUnwritable, "Could not move the export into place at \(url.path): \(error.reason).")
        }
        let seconds = Double(MonotonicClock.now() - start) / 1e9
        return ExportResult(rows: written.rows, bytes: written.bytes, seconds: seconds)
    }

    /// The export's fetch: newest first, as dictionaries of the exported fields, in
    /// the CSV's column order (`propertiesToFetch` fixes the rows' key positions).
    /// Through public API only, as an app would write it: no managed object per row,
    /// and, as every dictionary fetch, what the store holds (unsaved changes are not
    /// exported; the export runs on a context of its own).
    public static var exportRequest: FetchRequest<JournalEntry> {
        var request = FetchRequest<JournalEntry>(sortDescriptors: SurfJournal.newestFirst)
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["date", "height", "period", "wind", "location", "rating"]
        // What a dictionary fetch reads anyway; said here so that the progress total
        // (`count(for:)`, which would count unsaved changes) counts the same rows.
        request.includesPendingChanges = false
        return request
    }

    /// The export loop: one record per row, the rows streamed from the store
    /// (`enumerateDictionaries`), the file flushed and progress told every `every` rows.
    /// Kept out of line so that a sampled stack of a blocked main queue names it.
    @inline(never)
    static func writeRows(
        from context: ManagedObjectContext, _ request: FetchRequest<JournalEntry>, into writer: inout CSVFileWriter,
        every: Int, progress: (Int) -> Void
    ) throws -> Int {
        var rows = 0
        try context.enumerateDictionaries(for: request) { row in
            writeRecord(row, into: &writer)
            rows += 1
            if rows % every == 0 {
                try writer.flushIfNeeded()
                progress(rows)
            }
        }
        progress(rows)
        return rows
    }

    /// One row of `exportRequest`, read by position (the order of its
    /// `propertiesToFetch`): no key lookup per field.
    @inline(__always)
    static func writeRecord(_ row: FetchedDictionary, into writer: inout CSVFileWriter) {
        if let date = row.value(at: 0, as: Date.self) { writer.appendDate(date) }
        writer.separator()
        writer.appendField(row.value(at: 1, as: String.self))
        writer.separator()
        writer.appendField(row.value(at: 2, as: String.self))
        writer.separator()
        writer.appendField(row.value(at: 3, as: String.self))
        writer.separator()
        writer.appendField(row.value(at: 4, as: String.self))
        writer.separator()
        if let rating = row.value(at: 5, as: Int16.self) { writer.appendInteger(Int64(rating)) }
        writer.endRecord()
    }

    /// One entry as a CSV record (without the line end), for tests and tools.
    public static func record(_ entry: JournalEntry) -> String {
        var buffer = CSVBuffer()
        if let date = entry.date { buffer.appendDate(date) }
        for field in [entry.height, entry.period, entry.wind, entry.location] {
            buffer.separator()
            buffer.appendField(field)
        }
        buffer.separator()
        if let rating = entry.rating { buffer.appendInteger(rating.int64Value) }
        return String(decoding: buffer.bytes, as: UTF8.self)
    }

    /// `date` as `2014-08-29T06:21:40Z` (UTC, seconds rounded down).
    public static func iso8601(_ date: Date) -> String {
        var buffer = CSVBuffer()
        buffer.appendDate(date)
        return String(decoding: buffer.bytes, as: UTF8.self)
    }
}

/// Bytes of CSV being built.
struct CSVBuffer {
    var bytes: [UInt8] = []

    mutating func separator() { bytes.append(UInt8(ascii: ",")) }
    mutating func endRecord() { bytes.append(13); bytes.append(10) }

    mutating func append(_ text: String) { bytes.append(contentsOf: text.utf8) }

    /// A field, quoted when RFC 4180 says it must be.
    mutating func appendField(_ value: String?) {
        guard var value else { return }
        value.withUTF8 { utf8 in
            let needsQuotes = utf8.contains { (b: UInt8) -> Bool in
                b == 0x2C || b == 0x22 || b == 13 || b == 10  // , " CR LF
            }
            if !needsQuotes {
                bytes.append(contentsOf: utf8)
                return
            }
            bytes.append(UInt8(ascii: "\""))
            for b in utf8 {
                if b == UInt8(ascii: "\"") { bytes.append(b) }
                bytes.append(b)
            }
            bytes.append(UInt8(ascii: "\""))
        }
    }

    mutating func appendInteger(_ value: Int64) {
        if value >= 0 && value < 10 {
            bytes.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        // Digits backwards into a small stack buffer: no String per field.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var magnitude = value.magnitude
            var i = 20
            repeat {
                i -= 1
                digits[i] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[i...]))
        }
    }

    /// The day of the last date written and its `YYYY-MM-DD`: entries come sorted
    /// by date, many to a day, so the calendar arithmetic runs once per day.
    private var cachedDay = Int64.min
    private var cachedDayText: (UInt64, UInt16) = (0, 0)

    /// ISO 8601 in UTC, from the civil-from-days algorithm (no formatter: this
    /// runs once per row), written as one 20-byte run.
    mutating func appendDate(_ date: Date) {
        let t = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = t >= 0 ? t / 86_400 : (t - 86_399) / 86_400
        let secs = Int(t - days * 86_400)
        if days != cachedDay {
            guard let text = Self.dayText(days) else {
                // Out of ISO 8601's four-digit range: fall back to Foundation.
                let f = ISO8601DateFormatter()
                f.timeZone = TimeZone(identifier: "UTC")
                append(f.string(from: date))
                return
            }
            cachedDay = days
            cachedDayText = text
        }
        var day = cachedDayText
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { out in
            withUnsafeBytes(of: &day) { raw in
                for i in 0..<10 { out[i] = raw[i] }
            }
            func two(_ value: Int, at i: Int) {
                out[i] = UInt8(ascii: "0") + UInt8(value / 10)
                out[i + 1] = UInt8(ascii: "0") + UInt8(value % 10)
            }
            out[10] = UInt8(ascii: "T")
            two(secs / 3600, at: 11)
            out[13] = UInt8(ascii: ":")
            two(secs / 60 % 60, at: 14)
            out[16] = UInt8(ascii: ":")
            two(secs % 60, at: 17)
            out[19] = UInt8(ascii: "Z")
            bytes.append(contentsOf: UnsafeBufferPointer(out))
        }
    }

    /// `YYYY-MM-DD` of day `days` since 1970-01-01 (civil-from-days), as 10 bytes
    /// packed in memory order; nil outside years 0...9999.
    private static func dayText(_ days1970: Int64) -> (UInt64, UInt16)? {
        let days = days1970 + 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let doe = days - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        var year = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        if month <= 2 { year += 1 }
        guard year >= 0 && year <= 9999 else { return nil }
        var text: (UInt64, UInt16) = (0, 0)
        withUnsafeMutableBytes(of: &text) { out in
            func put(_ value: Int64, at end: Int, width: Int) {
                var v = value
                for i in stride(from: end - 1, through: end - width, by: -1) {
                    out[i] = UInt8(ascii: "0") + UInt8(v % 10)
                    v /= 10
                }
            }
            put(year, at: 4, width: 4)
            out[4] = UInt8(ascii: "-")
            put(month, at: 7, width: 2)
            out[7] = UInt8(ascii: "-")
            put(day, at: 10, width: 2)
        }
        return text
    }
}

/// A CSV buffer that writes itself to a file descriptor in large chunks.
struct CSVFileWriter {
    private var buffer = CSVBuffer()
    private let fd: Int32
    private let path: String
    private(set) var bytesWritten = 0
    private static let chunk = 1 << 18

    init(path: String, finalPath: String) throws {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            let dir = (finalPath as NSString).deletingLastPathComponent
            throw SurfJournalError(
                .outputUnwritable,
                "Cannot write the export to \(finalPath): \(reason). Check that \(dir.isEmpty ? "." : dir) exists and is writable, or choose another output path.")
        }
        self.path = path
        buffer.bytes.reserveCapacity(Self.chunk + 4096)
    }

    mutating func separator() { buffer.separator() }
    mutating func endRecord() { buffer.endRecord() }
    mutating func append(_ text: String) { buffer.append(text) }
    mutating func appendField(_ value: String?) { buffer.appendField(value) }
    mutating func appendInteger(_ value: Int64) { buffer.appendInteger(value) }
    mutating func appendDate(_ date: Date) { buffer.appendDate(date) }

    mutating func flushIfNeeded() throws {
        if buffer.bytes.count >= Self.chunk { try flush() }
    }

    mutating func flush() throws {
        if buffer.bytes.isEmpty { return }
        let count = buffer.bytes.count
        var offset = 0
        try buffer.bytes.withUnsafeBytes { raw in
            while offset < count {
                let n = write(fd, raw.baseAddress! + offset, count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw SurfJournalError(.outputUnwritable, "Writing the export failed: \(String(cString: strerror(errno))). Free some disk space or choose another output path.")
                }
                offset += n
            }
        }
        bytesWritten += count
        buffer.bytes.removeAll(keepingCapacity: true)
    }

    mutating func finish() throws {
        try flush()
        if close(fd) != 0 {
            throw SurfJournalError(.outputUnwritable, "Closing the export failed: \(String(cString: strerror(errno))).")
        }
    }

    /// Drops the partial file after a failure.
    func abandon() {
        close(fd)
        unlink(path)
    }
}
