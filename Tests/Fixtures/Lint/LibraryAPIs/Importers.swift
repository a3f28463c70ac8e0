import CoreData
import CoreStore
import MagicalRecord
import UIKit

/// Contexts and callbacks of Core Data libraries, known from rows of the API table
/// (docs/lint.md, "The API table"), not from their code, which is not linted.
final class Bookmark: NSManagedObject {
    @NSManaged var url: String?
}

final class MagicalImporter {
    // main-context-off-main-queue, the bug: MagicalRecord's default context is a
    // main-queue context, saved on a global queue.
    func saveDefaultLater() {
        let context = NSManagedObjectContext.mr_default()
        DispatchQueue.global().async {
            try? context.save() // expect: main-context-off-main-queue
        }
    }

    // The correct twin: saved on the main queue.
    func saveDefaultOnMain() {
        let context = NSManagedObjectContext.mr_default()
        DispatchQueue.main.async {
            try? context.save()
        }
    }

    // main-context-off-main-queue, the bug: MagicalRecord's save block runs on a new
    // private context's queue, and it counts on the default (main-queue) context.
    func importBookmarks(_ urls: [String]) {
        MagicalRecord.save({ localContext in
            for url in urls { Bookmark(context: localContext).url = url }
            let total = try? NSManagedObjectContext.mr_default().count(for: Bookmark.fetchRequest()) // expect: main-context-off-main-queue
            print(total ?? 0)
        })
    }

    // The correct twin: the block uses its own context only.
    func importBookmarksFixed(_ urls: [String]) {
        MagicalRecord.save({ localContext in
            for url in urls { Bookmark(context: localContext).url = url }
        })
    }
}

final class StoreImporter {
    let dataStack: DataStack
    let container: NSPersistentContainer

    init(dataStack: DataStack, container: NSPersistentContainer) {
        self.dataStack = dataStack
        self.container = container
    }

    // main-context-off-main-queue, the bug: a CoreStore asynchronous transaction runs on
    // its own queue, and it reads the view context there.
    func importInTransaction() {
        dataStack.perform(
            asynchronous: { transaction in
                let pending = try? self.container.viewContext.count(for: Bookmark.fetchRequest()) // expect: main-context-off-main-queue
                print(pending ?? 0)
            },
            completion: { _ in }
        )
    }
}

struct BookmarkList: View {
    @Environment(\.managedObjectContext) private var viewContext

    var body: some View {
        // object-across-queues is not at stake here: the environment's context is the
        // view context, used on the main queue by the body.
        Button("Save") { try? viewContext.save() }
    }
}

struct BookmarkGrid: View {
    @FetchRequest(sortDescriptors: []) private var bookmarks: FetchedResults<Bookmark>

    var body: some View {
        // object-across-queues, the bug: a @FetchRequest's results are the view
        // context's objects, read in a detached task.
        Button("Export") {
            Task.detached {
                print(bookmarks.first?.url ?? "") // expect: object-across-queues
            }
        }
    }
}

struct BookmarkGridFixed: View {
    @FetchRequest(sortDescriptors: []) private var bookmarks: FetchedResults<Bookmark>

    var body: some View {
        // The correct twin: only the IDs cross.
        Button("Export") {
            Task.detached { [ids = bookmarks.map(\.objectID)] in
                print(ids.count)
            }
        }
    }
}
