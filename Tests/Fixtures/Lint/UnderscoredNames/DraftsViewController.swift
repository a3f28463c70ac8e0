import CoreData
import UIKit

/// Methods whose names start with an underscore (a common spelling for a private
/// helper, `_reload()`) are methods like any other: their call sites place them.
final class Draft: NSManagedObject {
    @NSManaged var text: String?
}

final class DraftsViewController: UIViewController {
    var container: NSPersistentContainer!
    lazy var draftsContext: NSManagedObjectContext = container.newBackgroundContext()

    override func viewDidLoad() {
        super.viewDidLoad()
        _saveDrafts()
        self._saveDraftsOnItsQueue()
    }

    // context-without-perform, the bug: called only from viewDidLoad, on the main
    // queue, it saves the private context straight.
    private func _saveDrafts() {
        try? draftsContext.save() // expect: context-without-perform
    }

    // The correct twin: the same save, inside the context's perform.
    private func _saveDraftsOnItsQueue() {
        draftsContext.perform {
            try? self.draftsContext.save()
        }
    }

    func importDraft(_ text: String) {
        draftsContext.perform {
            let draft = Draft(context: self.draftsContext)
            draft.text = text
        }
    }
}
