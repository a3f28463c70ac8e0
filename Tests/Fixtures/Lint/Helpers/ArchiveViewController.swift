import CoreData
import UIKit

// A name declared twice is two functions when their argument labels differ: a call's
// labels tell which one it calls (`archive()` or `archive(olderThan:)`,
// `noteCount(in:)`), so each is placed by its own call sites.
final class ArchiveViewController: UIViewController {
    let stack = NoteStack.shared

    override func viewDidLoad() {
        super.viewDidLoad()
        archive()
        stack.purgeContext.perform {
            self.archive(olderThan: 3_600)
            print(self.stack.noteCount(in: self.stack.purgeContext))
        }
        print(stack.noteCount(in: stack.purgeContext)) // expect: context-without-perform
        stack.saveChecked(stack.purgeContext)
    }

    // context-without-perform, the bug: `archive()`, called only from viewDidLoad, runs
    // on the main queue and fetches from the private context there.
    func archive() {
        let request = NSFetchRequest<Note>(entityName: "Note")
        let notes = (try? stack.purgeContext.fetch(request)) ?? [] // expect: context-without-perform
        print(notes.count)
    }

    // The correct twin: its overload, called only inside purgeContext.perform { }.
    func archive(olderThan age: TimeInterval) {
        let request = NSFetchRequest<Note>(entityName: "Note")
        request.predicate = NSPredicate(format: "createdAt < %@", Date().addingTimeInterval(-age) as NSDate)
        let notes = (try? stack.purgeContext.fetch(request)) ?? []
        print(notes.count)
    }
}

extension NoteStack {
    // Counts in the context it is handed, on its caller's queue; its overload with no
    // label is another function.
    func noteCount(in context: NSManagedObjectContext) -> Int {
        (try? context.count(for: NSFetchRequest<Note>(entityName: "Note"))) ?? 0
    }

    func noteCount() -> Int {
        noteCount(in: container.viewContext)
    }

    // Silent: a helper that asks which kind of context it is handed saves a main-queue
    // one straight and a private one inside its performAndWait: its save is not its
    // caller's use of a private context.
    func saveChecked(_ context: NSManagedObjectContext) {
        switch context.concurrencyType {
        case .mainQueueConcurrencyType:
            try? context.save()
        default:
            context.performAndWait { try? context.save() }
        }
    }
}
