import CoreData
import UIKit

// context-without-perform, a false alarm found on a hand-written app: the sync engine's
// `context` is a private context, and the preview controller's `context` is a
// RenderContext with a fetch method of its own. Its fetch in viewDidLoad is silent.

final class SyncEngine {
    let context: NSManagedObjectContext
    init(container: NSPersistentContainer) {
        context = container.newBackgroundContext()
    }
    func sync() {
        context.perform {
            try? self.context.save()
        }
    }
}

struct RenderContext {
    func fetch(_ request: String) -> [String] { [] }
}

final class PreviewViewController: UIViewController {
    var context = RenderContext()
    override func viewDidLoad() {
        super.viewDidLoad()
        let rows = context.fetch("rows")
        print(rows)
    }
}

final class Coordinator {
    let engine: SyncEngine
    init(engine: SyncEngine) { self.engine = engine }

    func start() {
        DispatchQueue.main.async {
            self.refresh()
        }
    }

    func refresh() {
        engine.context.perform {
            _ = try? self.engine.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item"))
        }
    }
}

final class DetailViewController: UIViewController {
    var managedObjectContext: NSManagedObjectContext!
    var item: NSManagedObject?

    override func viewDidLoad() {
        super.viewDidLoad()
        title = item?.value(forKey: "name") as? String
    }
}

final class Router {
    let container: NSPersistentContainer
    init(container: NSPersistentContainer) { self.container = container }

    func showDetail(from controller: UIViewController, id: NSManagedObjectID) {
        let detail = DetailViewController()
        detail.managedObjectContext = container.viewContext
        detail.item = container.viewContext.object(with: id)
        controller.present(detail, animated: true)
    }
}
