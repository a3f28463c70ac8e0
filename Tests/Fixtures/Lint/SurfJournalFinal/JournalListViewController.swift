import CoreData
import UIKit

/// The final app: the export runs on a private context, and only the UI update comes
/// back to the main queue. The same batched request, used off the main queue.
class JournalListViewController: UITableViewController {
    var coreDataStack: CoreDataStack!
    var fetchedResultsController: NSFetchedResultsController<JournalEntry> = NSFetchedResultsController()

    override func viewDidLoad() {
        super.viewDidLoad()
        fetchedResultsController = NSFetchedResultsController(
            fetchRequest: surfJournalFetchRequest(), managedObjectContext: coreDataStack.mainContext, sectionNameKeyPath: nil, cacheName: nil)
        try? fetchedResultsController.performFetch()
    }

    @IBAction func exportButtonTapped(_ sender: UIBarButtonItem) {
        exportCSVFile()
    }

    func exportCSVFile() {
        navigationItem.leftBarButtonItem = activityIndicatorBarButtonItem()
        coreDataStack.storeContainer.performBackgroundTask { context in
            var results: [JournalEntry] = []
            do {
                results = try context.fetch(self.surfJournalFetchRequest())
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
                DispatchQueue.main.async {
                    self.navigationItem.leftBarButtonItem = self.exportBarButtonItem()
                }
            }
        }
    }

    func surfJournalFetchRequest() -> NSFetchRequest<JournalEntry> {
        let fetchRequest: NSFetchRequest<JournalEntry> = JournalEntry.fetchRequest()
        fetchRequest.fetchBatchSize = 20
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

    override func prepare(for segue: UIStoryboardSegue, sender: Any?) {
        guard segue.identifier == "SegueListToDetail", let navigationController = segue.destination as? UINavigationController,
            let detail = navigationController.topViewController as? JournalEntryViewController,
            let indexPath = tableView.indexPathForSelectedRow
        else { return }
        // Edits happen in a main-queue child of the main context.
        let childContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        childContext.parent = coreDataStack.mainContext
        let childEntry = childContext.object(with: fetchedResultsController.object(at: indexPath).objectID) as? JournalEntry
        detail.journalEntry = childEntry
        detail.context = childContext
        detail.delegate = self
    }
}

extension JournalListViewController: JournalEntryDelegate {
    func didFinish(viewController: JournalEntryViewController, didSave: Bool) {
        guard didSave, let context = viewController.context, context.hasChanges else {
            dismiss(animated: true)
            return
        }
        context.perform {
            do {
                try context.save()
            } catch let error as NSError {
                fatalError("Error: \(error.localizedDescription)")
            }
            self.coreDataStack.saveContext()
        }
        dismiss(animated: true)
    }
}
