import CoreData
import UIKit

class JournalListViewController: UITableViewController {
    var coreDataStack: CoreDataStack!
    var fetchedResultsController: NSFetchedResultsController<JournalEntry> = NSFetchedResultsController()
    @IBOutlet weak var exportButton: UIBarButtonItem!

    @IBAction func exportButtonTapped(_ sender: UIBarButtonItem) {
        exportCSVFile()
    }

    // main-queue-fetch-all, the bug: the starter app's export fetches every entry on the
    // main context, on the main queue, while the spinner cannot even spin.
    func exportCSVFile() {
        navigationItem.leftBarButtonItem = activityIndicatorBarButtonItem()
        let context = coreDataStack.mainContext
        var results: [JournalEntry] = []
        do {
            results = try context.fetch(self.surfJournalFetchRequest()) // expect: main-queue-fetch-all
        } catch let error as NSError {
            print("ERROR: \(error.localizedDescription)")
        }
        let exportFilePath = NSTemporaryDirectory() + "export.csv"
        let exportFileURL = URL(fileURLWithPath: exportFilePath)
        FileManager.default.createFile(atPath: exportFilePath, contents: Data(), attributes: nil)
        let fileHandle: FileHandle?
        do {
            fileHandle = try FileHandle(forWritingTo: exportFileURL)
        } catch {
            fileHandle = nil
        }
        if let fileHandle = fileHandle {
            for journalEntry in results {
                fileHandle.seekToEndOfFile()
                guard let csvData = journalEntry.csv().data(using: .utf8, allowLossyConversion: false) else { continue }
                fileHandle.write(csvData)
            }
            fileHandle.closeFile()
            navigationItem.leftBarButtonItem = exportBarButtonItem()
            showExportFinishedAlertView(exportFilePath)
        }
    }

    // main-queue-fetch-all, the correct twin: the fixed app exports on a background
    // context and comes back to the main queue only for the UI.
    func exportCSVFileInBackground() {
        navigationItem.leftBarButtonItem = activityIndicatorBarButtonItem()
        coreDataStack.storeContainer.performBackgroundTask { context in
            var results: [JournalEntry] = []
            do {
                results = try context.fetch(self.surfJournalFetchRequest())
            } catch let error as NSError {
                print("ERROR: \(error.localizedDescription)")
            }
            let exportFilePath = NSTemporaryDirectory() + "export.csv"
            let lines = results.map { $0.csv() }.joined()
            FileManager.default.createFile(atPath: exportFilePath, contents: Data(lines.utf8), attributes: nil)
            DispatchQueue.main.async {
                self.navigationItem.leftBarButtonItem = self.exportBarButtonItem()
                self.showExportFinishedAlertView(exportFilePath)
            }
        }
    }

    // main-queue-fetch-all, another correct twin: a batched fetch on the main context.
    func exportVisibleSummary() {
        let request: NSFetchRequest<JournalEntry> = JournalEntry.fetchRequest()
        request.fetchBatchSize = 20
        let entries = (try? coreDataStack.mainContext.fetch(request)) ?? []
        title = "\(entries.count) entries"
    }

    // object-across-queues, the bug: the search runs on a background context and hands
    // its managed objects to the main queue.
    func search(for text: String) {
        coreDataStack.storeContainer.performBackgroundTask { context in
            let request = JournalEntry.fetchRequest()
            request.predicate = NSPredicate(format: "location CONTAINS[cd] %@", text)
            let matches = (try? context.fetch(request)) ?? []
            DispatchQueue.main.async {
                self.show(matches) // expect: object-across-queues
            }
        }
    }

    // object-across-queues, the correct twin: only objectIDs cross, and the main context
    // turns them back into objects.
    func searchByID(for text: String) {
        coreDataStack.storeContainer.performBackgroundTask { context in
            let request = JournalEntry.fetchRequest()
            request.predicate = NSPredicate(format: "location CONTAINS[cd] %@", text)
            let matches = (try? context.fetch(request)) ?? []
            let ids = matches.map(\.objectID)
            DispatchQueue.main.async {
                let context = self.coreDataStack.mainContext
                self.show(ids.compactMap { context.object(with: $0) as? JournalEntry })
            }
        }
    }

    func show(_ entries: [JournalEntry]) {
        tableView.reloadData()
    }

    func surfJournalFetchRequest() -> NSFetchRequest<JournalEntry> {
        let fetchRequest: NSFetchRequest<JournalEntry> = JournalEntry.fetchRequest()
        let sortDescriptor = NSSortDescriptor(key: #keyPath(JournalEntry.date), ascending: false)
        fetchRequest.sortDescriptors = [sortDescriptor]
        return fetchRequest
    }

    func exportBarButtonItem() -> UIBarButtonItem {
        UIBarButtonItem(title: "Export", style: .plain, target: self, action: #selector(exportButtonTapped(_:)))
    }

    func activityIndicatorBarButtonItem() -> UIBarButtonItem {
        let activityIndicator = UIActivityIndicatorView(style: .medium)
        activityIndicator.startAnimating()
        return UIBarButtonItem(customView: activityIndicator)
    }

    func showExportFinishedAlertView(_ exportPath: String) {
        let alert = UIAlertController(title: "Export Finished", message: exportPath, preferredStyle: .alert)
        alert.addAction(UIAlertAction(title: "OK", style: .default))
        present(alert, animated: true)
    }
}
