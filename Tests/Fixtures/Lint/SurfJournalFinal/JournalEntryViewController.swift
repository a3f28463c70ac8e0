import CoreData
import UIKit

protocol JournalEntryDelegate: AnyObject {
    func didFinish(viewController: JournalEntryViewController, didSave: Bool)
}

class JournalEntryViewController: UITableViewController {
    var journalEntry: JournalEntry?
    var context: NSManagedObjectContext!
    weak var delegate: JournalEntryDelegate?
    @IBOutlet weak var locationTextField: UITextField!

    override func viewDidLoad() {
        super.viewDidLoad()
        locationTextField.text = journalEntry?.location
    }

    @IBAction func saveButtonWasTapped(_ sender: UIBarButtonItem) {
        journalEntry?.location = locationTextField.text
        delegate?.didFinish(viewController: self, didSave: true)
    }
}
