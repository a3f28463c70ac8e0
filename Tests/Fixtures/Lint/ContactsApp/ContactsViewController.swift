import CoreData
import UIKit

class ContactsViewController: UITableViewController, NSFetchedResultsControllerDelegate {
    var coreDataStack: CoreDataStack!

    lazy var fetchedResultsController: NSFetchedResultsController<Contact> = {
        let request = NSFetchRequest<Contact>(entityName: "Contact")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        request.fetchBatchSize = 20
        let controller = NSFetchedResultsController(
            fetchRequest: request, managedObjectContext: coreDataStack.mainContext, sectionNameKeyPath: nil, cacheName: "Contacts")
        controller.delegate = self
        return controller
    }()

    override func viewDidLoad() {
        super.viewDidLoad()
        do {
            try fetchedResultsController.performFetch()
        } catch {
            print("fetch failed: \(error)")
        }
    }

    override func numberOfSections(in tableView: UITableView) -> Int {
        fetchedResultsController.sections?.count ?? 0
    }

    override func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int {
        fetchedResultsController.sections?[section].numberOfObjects ?? 0
    }

    override func tableView(_ tableView: UITableView, cellForRowAt indexPath: IndexPath) -> UITableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "Contact", for: indexPath)
        let contact = fetchedResultsController.object(at: indexPath)
        cell.textLabel?.text = contact.name
        cell.detailTextLabel?.text = contact.email
        return cell
    }

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        tableView.beginUpdates()
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        switch type {
        case .insert:
            tableView.insertRows(at: [newIndexPath!], with: .automatic)
        case .delete:
            tableView.deleteRows(at: [indexPath!], with: .automatic)
        default:
            tableView.reloadRows(at: [indexPath!], with: .automatic)
        }
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        tableView.endUpdates()
    }

    override func prepare(for segue: UIStoryboardSegue, sender: Any?) {
        let contactID = tableView.indexPathForSelectedRow.map { fetchedResultsController.object(at: $0).objectID }
        if let editor = segue.destination as? ContactEditorViewController {
            let childContext = coreDataStack.makeEditingContext()
            editor.context = childContext
            editor.coreDataStack = coreDataStack
            editor.contactID = contactID
        } else if let quickEditor = segue.destination as? QuickEditViewController {
            let scratchpad = coreDataStack.makeEditingContext()
            quickEditor.scratchpad = scratchpad
            quickEditor.contactID = contactID
        }
    }

    @IBAction func markAllFavorite(_ sender: Any) {
        let context = coreDataStack.makeEditingContext()
        context.perform {
            let request = NSFetchRequest<Contact>(entityName: "Contact")
            let contacts = (try? context.fetch(request)) ?? []
            for contact in contacts {
                contact.favorite = true
            }
            try? context.save()
            self.coreDataStack.mainContext.perform {
                self.coreDataStack.saveContext()
            }
        }
    }
}
