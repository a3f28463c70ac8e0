import ArgumentParser
import CoreData
import Foundation
import ManagedContext
import Replay
import SurfJournal

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export every journal entry of a store to CSV: the app's export button, done fast and right.",
        discussion: """
            Works on any store in Core Data's SQLite layout with a JournalEntry entity, \
            including one written by Core Data; the store is opened read-only. The CSV is \
            RFC 4180 with a header line (date,height,period,wind,location,rating), dates \
            in ISO 8601 UTC, newest first. The file is written under a temporary name \
            and renamed at the end, so a failed export leaves FILE as it was. (The \
            chapter's own export, which `ctxdebug replay` runs, writes csv() lines with \
            no header and no quoting, a managed object per entry.)

            Exit status: 0 done; 64 bad flag value; 65 the store is missing, not a store, \
            corrupt or of another model; 73 FILE cannot be written; 74 I/O error.
            """)

    enum Queue: String, ExpressibleByArgument, CaseIterable {
        case main, background
    }

    @Option(name: .long, help: ArgumentHelp("The store to export.", valueName: "PATH"))
    var store: String

    @Option(name: .long, help: ArgumentHelp("The CSV file to write.", valueName: "FILE"))
    var output: String

    @Option(name: .long, help: "Run the export on the view context (main) or a background context (background).")
    var queue: Queue = .background

    func run() throws {
        let storeURL = URL(fileURLWithPath: store)
        guard FileManager.default.fileExists(atPath: storeURL.path) else {
            throw CommandSupport.fail("There is no store at \(storeURL.path). Check the path, or create one with `ctxdebug seed --store \(store) --entries N`.", status: .dataError)
        }
        let outputURL = URL(fileURLWithPath: output)
        let container: NSPersistentContainer
        do {
            container = try SurfJournal.openContainer(at: storeURL, readOnly: true)
        } catch {
            throw CommandSupport.fail(error, doing: "open \(storeURL.path)")
        }
        let context = queue == .main ? container.viewContext : container.newBackgroundContext()
        if queue == .background { context.name = "export" }
        let bar = ProgressBar(label: "exporting", total: 1)
        let result: Result<ExportResult, any Error> = context.performAndWait {
            Result {
                try CSVExport.exportJournal(from: context, to: outputURL) { done, total in
                    bar.update(done, of: total)
                }
            }
        }
        bar.finish()
        switch result {
        case .success(let r):
            say("Exported \(r.rows) entries (\(r.bytes) bytes) to \(outputURL.path) in \(String(format: "%.3f", r.seconds)) s (\(Int(r.rowsPerSecond)) rows/s).")
        case .failure(let error):
            throw CommandSupport.fail(error, doing: "export to \(outputURL.path)")
        }
    }
}
