import CoreData
import UIKit

/// Shown by the list controller, which hands it a private context
/// (ListController.swift).
final class DetailController: UIViewController {
    var context: NSManagedObjectContext!

    // The bug: a UIKit lifecycle method inserts into the private context outside its
    // perform.
    override func viewDidAppear(_ animated: Bool) {
        super.viewDidAppear(animated)
        let note = Note(context: context) // expect: context-without-perform
        note.title = "New" // expect: context-without-perform
    }

    // The correct twin.
    override func viewDidLoad() {
        super.viewDidLoad()
        context.perform {
            let note = Note(context: self.context)
            note.title = "Draft"
        }
    }
}
