import CoreData
import UIKit

class JournalEntryViewController: UITableViewController {
    var journalEntry: JournalEntry?
    var context: NSManagedObjectContext!
    @IBOutlet weak var locationTextField: UITextField!

    // object-across-queues, the bug: the entry is formatted on a global queue.
    @IBAction func shareTapped(_ sender: Any) {
        guard let entry = journalEntry else { return }
        DispatchQueue.global(qos: .userInitiated).async {
            let text = entry.csv() // expect: object-across-queues
            DispatchQueue.main.async {
                self.present(UIActivityViewController(activityItems: [text], applicationActivities: nil), animated: true)
            }
        }
    }

    // object-across-queues, the correct twin: the text is made on the main queue, and
    // only the string crosses.
    @IBAction func shareTappedFixed(_ sender: Any) {
        guard let entry = journalEntry else { return }
        let text = entry.csv()
        let entryID = entry.objectID
        DispatchQueue.global(qos: .userInitiated).async {
            let data = Data(text.utf8)
            print("sharing \(data.count) bytes of \(entryID)")
        }
    }

    func updateJournalEntry() {
        guard let entry = journalEntry else { return }
        entry.date = Date()
        entry.location = locationTextField.text
    }
}
