import CoreData
import UIKit

// context-without-perform, the correct twin: a private child context of the main
// context (handed over through a local in ContactsViewController's prepare), every use
// of it inside performAndWait, the save pushed up on the main queue.
/// Edits a contact on a private child context of the main context: every use of it goes
/// through performAndWait, and the save is pushed up to the main context on the main queue.
class ContactEditorViewController: UIViewController {
    var context: NSManagedObjectContext!
    var coreDataStack: CoreDataStack!
    var contactID: NSManagedObjectID?
    private var contact: Contact?
    @IBOutlet var nameField: UITextField!

    override func viewDidLoad() {
        super.viewDidLoad()
        var name = ""
        context.performAndWait {
            if let contactID {
                contact = context.object(with: contactID) as? Contact
            } else {
                contact = Contact(context: context)
            }
            name = contact?.name ?? ""
        }
        nameField.text = name
    }

    @IBAction func save(_ sender: Any) {
        let newName = nameField.text ?? ""
        context.performAndWait {
            contact?.name = newName
            do {
                try context.save()
            } catch {
                print("child save failed: \(error)")
            }
        }
        coreDataStack.saveContext()
        dismiss(animated: true)
    }

    @IBAction func cancel(_ sender: Any) {
        context.performAndWait {
            context.rollback()
        }
        dismiss(animated: true)
    }
}

// context-without-perform, the bug: the same private child context (made by the
// stack's factory, kept in a local and handed over in ContactsViewController's
// prepare(for:sender:)), used straight from the main queue.
class QuickEditViewController: UIViewController {
    var scratchpad: NSManagedObjectContext!
    var contactID: NSManagedObjectID?
    @IBOutlet var nameField: UITextField!

    override func viewDidLoad() {
        super.viewDidLoad()
        guard let contactID else { return }
        let contact = scratchpad.object(with: contactID) as? Contact // expect: context-without-perform
        nameField.text = contact?.name // expect: context-without-perform
    }
}
