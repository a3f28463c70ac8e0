import CoreData
import UIKit

// Two types in this project name a property `context`, holding contexts of different
// queues: this controller's is the view context, the uploader's (Uploader.swift) a
// private one. Keyed by type, each is known in its own type's code.
final class ListController: UITableViewController {
    let context = AppStack.shared.container.viewContext
    private var notes: [Note] = []

    override func viewDidLoad() {
        super.viewDidLoad()
        let request = NSFetchRequest<Note>(entityName: "Note")
        request.fetchLimit = 50
        notes = (try? context.fetch(request)) ?? []
    }

    // The bug: the view context counted on a global queue.
    func refreshBadge() {
        DispatchQueue.global().async {
            let request = NSFetchRequest<Note>(entityName: "Note")
            _ = try? self.context.count(for: request) // expect: main-context-off-main-queue
        }
    }

    // The correct twin: the count goes through the view context's perform.
    func refreshBadgeFixed() {
        DispatchQueue.global().async {
            self.context.perform {
                let request = NSFetchRequest<Note>(entityName: "Note")
                _ = try? self.context.count(for: request)
            }
        }
    }

    // The detail controller's `context` (a third type's) is set here, through a value
    // whose type the code tells.
    func showDetail() {
        let detail = DetailController()
        detail.context = AppStack.shared.container.newBackgroundContext()
        navigationController?.pushViewController(detail, animated: true)
    }

    // Silent: whose `context` this is, the linter cannot tell.
    func peek(_ holder: ContextHolder) {
        DispatchQueue.main.async {
            let request = NSFetchRequest<Note>(entityName: "Note")
            _ = try? holder.context.count(for: request)
        }
    }
}
