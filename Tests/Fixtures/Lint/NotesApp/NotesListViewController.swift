import CoreData
import UIKit

/// The list of notes, on the view context. It hands each new note's controller a
/// context of its own.
final class NotesListViewController: UITableViewController {
    var stack: CoreDataStack!
    var notes: [Note] = []

    override func viewDidLoad() {
        super.viewDidLoad()
        // Main queue, main-queue context: correct.
        notes = (try? stack.mainContext.fetch(NSFetchRequest<Note>(entityName: "Note"))) ?? []
    }

    override func prepare(for segue: UIStoryboardSegue, sender: Any?) {
        if let create = segue.destination as? CreateNoteViewController {
            create.managedObjectContext = stack.savingContext
        } else if let create = segue.destination as? SafeCreateNoteViewController {
            create.workContext = stack.savingContext
        } else if let edit = segue.destination as? EditNoteViewController {
            edit.editingContext = stack.mainContext
        }
    }

    override func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int {
        notes.count
    }
}
