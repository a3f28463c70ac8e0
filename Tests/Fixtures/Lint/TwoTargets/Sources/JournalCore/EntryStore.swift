import CoreData
import UIKit

/// The app's store: its `context` is a private context, and its importer runs on a
/// background queue. The share extension declares both names again, for itself.
public final class JournalEntry: NSManagedObject {
    @NSManaged public var title: String?
}

public final class EntryStore {
    let container = NSPersistentContainer(name: "Journal")
    lazy var context: NSManagedObjectContext = container.newBackgroundContext()

    public func importEntries(_ titles: [String]) {
        context.perform {
            for title in titles { JournalEntry(context: self.context).title = title }
            try? self.context.save()
        }
    }

    func refreshInBackground() {
        DispatchQueue.global().async {
            EntryImporter.importPending(into: self.container)
        }
    }
}

enum EntryImporter {
    // main-context-off-main-queue, the bug: called only on a global queue, it counts
    // on the view context.
    static func importPending(into container: NSPersistentContainer) {
        let pending = try? container.viewContext.count(for: JournalEntry.fetchRequest()) // expect: main-context-off-main-queue
        print(pending ?? 0)
    }
}

final class JournalListViewController: UIViewController {
    let store = EntryStore()

    // context-without-perform, the bug: the store's private context, fetched from on
    // the main queue.
    override func viewDidLoad() {
        super.viewDidLoad()
        let entries = try? store.context.fetch(JournalEntry.fetchRequest()) // expect: context-without-perform
        print(entries?.count ?? 0)
    }

    // The correct twin.
    func reload() {
        store.context.perform {
            let entries = try? self.store.context.fetch(JournalEntry.fetchRequest())
            print(entries?.count ?? 0)
        }
    }
}
