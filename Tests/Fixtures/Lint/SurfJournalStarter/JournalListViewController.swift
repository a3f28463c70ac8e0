import CoreData
import UIKit

/// The starter app: its export is the chapter's central bug.
class JournalListViewController: UITableViewController {
    var coreDataStack: CoreDataStack!
    var fetchedResultsController: NSFetchedResultsController<JournalEntry> = NSFetchedResultsController()

    override func viewDidLoad() {
        super.viewDidLoad()
        configureView()
    }

    @IBAction func exportButtonTapped(_ sender: UIBarButtonItem) {
        exportCSVFile()
    }

    // main-queue-fetch-all, the bug: every entry is fetched on the main context and
    // written out, all on the main queue. The request's batch size does not help: the
    // loop below walks every result, so every batch is loaded, on the main queue.
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
        } catch let error as NSError {
            print("ERROR: \(error.localizedDescription)")
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
        }
    }

    func configureView() {
        fetchedResultsController = journalListFetchedResultsController()
    }

    func surfJournalFetchRequest() -> NSFetchRequest<JournalEntry> {
        let fetchRequest: NSFetchRequest<JournalEntry> = JournalEntry.fetchRequest()
        fetchRequest.fetchBatchSize = 20
        let sortDescriptor = NSSortDescriptor(key: #keyPath(JournalEntry.date), ascending: false)
        fetchRequest.sortDescriptors = [sortDescriptor]
        return fetchRequest
    }

    func journalListFetchedResultsController() -> NSFetchedResultsController<JournalEntry> {
        let controller = NSFetchedResultsController(
            fetchRequest: surfJournalFetchRequest(), managedObjectContext: coreDataStack.mainContext, sectionNameKeyPath: nil, cacheName: nil)
        try? controller.performFetch()
        return controller
    }

    func exportBarButtonItem() -> UIBarButtonItem {
        UIBarButtonItem(title: "Export", style: .plain, target: self, action: #selector(exportButtonTapped(_:)))
    }

    func activityIndicatorBarButtonItem() -> UIBarButtonItem {
        let activityIndicator = UIActivityIndicatorView(style: .medium)
        activityIndicator.startAnimating()
        return UIBarButtonItem(customView: activityIndicator)
    }
}
