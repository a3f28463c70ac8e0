public import CoreData
import CtxdebugHelpers
public import Dispatch

/// The export the chapter's app runs from its Export button, written with Core Data's
/// API: a fetch of every `JournalEntry` newest first, each entry's `csv()` line, written
/// through a `FileHandle`. The starter app runs it on the main context, so the UI waits
/// for all of it; the final app runs it in `performBackgroundTask` and hops back to the
/// main queue with `DispatchQueue.main.async` to tell the user. `ctxdebug replay`'s
/// export-main and export-background scenarios run these two functions.
///
/// `ctxdebug export` uses `CSVExport` instead: dictionary fetches, RFC 4180, a header,
/// ISO 8601 dates, many times faster.
public enum JournalExport {
    /// The app's request: every entry, newest first, fetched in batches of 20.
    public static func surfJournalFetchRequest() -> NSFetchRequest<JournalEntry> {
        let request: NSFetchRequest<JournalEntry> = JournalEntry.fetchRequest()
        request.fetchBatchSize = 20
        request.sortDescriptors = [NSSortDescriptor(key: "date", ascending: false)]
        return request
    }

    /// Writes every entry `context` sees (its unsaved changes too, as any object fetch),
    /// newest first, one `csv()` line each, to `url`, replacing what is there. Call it on
    /// the context's queue. Kept out of line so that a sampled stack of a blocked main
    /// queue names it.
    @inline(never)
    public static func exportCSVFile(from context: NSManagedObjectContext, to url: URL) throws -> ExportResult {
        let start = MonotonicClock.now()
        let results = try context.fetch(surfJournalFetchRequest())
        guard FileManager.default.createFile(atPath: url.path, contents: Data()) else {
            let dir = url.deletingLastPathComponent().path
            throw SurfJournalError(
                .outputUnwritable, "Cannot create the export at \(url.path). Check that \(dir) exists and is writable, or choose another output path.")
        }
        let fileHandle: FileHandle
        do {
            fileHandle = try FileHandle(forWritingTo: url)
        } catch {
            throw SurfJournalError(.outputUnwritable, "Cannot open the export at \(url.path) for writing: \(error.localizedDescription).")
        }
        var bytes = 0
        do {
            defer { try? fileHandle.close() }
            for journalEntry in results {
                try fileHandle.seekToEnd()
                guard let csvData = journalEntry.csv().data(using: .utf8, allowLossyConversion: false) else { continue }
                try fileHandle.write(contentsOf: csvData)
                bytes += csvData.count
            }
        } catch {
            throw SurfJournalError(.outputUnwritable, "Writing the export to \(url.path) failed: \(error.localizedDescription). Free some disk space or choose another output path.")
        }
        return ExportResult(rows: results.count, bytes: bytes, seconds: Double(MonotonicClock.now() - start) / 1e9)
    }

    /// The starter app's export: on the view context, on the main queue. Call it on the
    /// main queue; it returns when the file is written, and the UI waits until then.
    public static func exportOnMainContext(container: NSPersistentContainer, to url: URL) throws -> ExportResult {
        try exportCSVFile(from: container.viewContext, to: url)
    }

    /// The final app's export: in `performBackgroundTask`, on a new private-queue
    /// context; then `completion` on the main queue, through `DispatchQueue.main.async`.
    /// `willExport` runs first on the export's queue, with its context (the replay uses
    /// it to name the context and time the export).
    public static func exportInBackground(
        container: NSPersistentContainer, to url: URL,
        willExport: (@Sendable (NSManagedObjectContext) -> Void)? = nil,
        completion: @escaping @Sendable (Result<ExportResult, any Error>) -> Void
    ) {
        container.performBackgroundTask { context in
            willExport?(context)
            let result = Result { try exportCSVFile(from: context, to: url) }
            DispatchQueue.main.async {
                completion(result)
            }
        }
    }
}
