import CoreData
import UIKit

/// The share extension's own `context` (set by whoever presents the controller) and its
/// own importer, called on the main queue: silent here, and no reason for the app's
/// same-named ones to be unknown.
final class ShareViewController: UIViewController {
    var context: NSManagedObjectContext!
    let container = NSPersistentContainer(name: "Journal")

    override func viewDidLoad() {
        super.viewDidLoad()
        EntryImporter.importPending(into: container)
        try? context.save()
    }
}

enum EntryImporter {
    static func importPending(into container: NSPersistentContainer) {
        let pending = try? container.viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "SharedItem"))
        print(pending ?? 0)
    }
}
