import CoreData
import UIKit

// The call graph follows static and class methods (`NoteCleaner.purgeOld()`, called
// only from viewDidLoad, runs on the main queue as an instance method would) and what
// a project function returns (`Note.recent(in:)` returns objects of the context it is
// given).
final class NotesViewController: UIViewController {
    let stack = NoteStack.shared

    override func viewDidLoad() {
        super.viewDidLoad()
        NoteCleaner.purgeOld(stack: stack)
        stack.purgeContext.perform {
            NoteCleaner.purgeOldFixed(stack: self.stack)
        }
    }

    func show(_ notes: [Note]) {}
    func show(ids: [NSManagedObjectID]) {}

    // object-across-queues, the bug: the objects Note.recent(in:) returns belong to the
    // private context, and cross to the main queue.
    func showRecent() {
        let context = stack.container.newBackgroundContext()
        context.perform {
            let notes = (try? Note.recent(in: context)) ?? []
            DispatchQueue.main.async {
                self.show(notes) // expect: object-across-queues
            }
        }
    }

    // The correct twin: only their objectIDs cross.
    func showRecentFixed() {
        let context = stack.container.newBackgroundContext()
        context.perform {
            let ids = ((try? Note.recent(in: context)) ?? []).map(\.objectID)
            DispatchQueue.main.async {
                self.show(ids: ids)
            }
        }
    }
}

enum NoteCleaner {
    // context-without-perform, the bug: a static method called only from viewDidLoad
    // runs on the main queue, and fetches from the private context there.
    static func purgeOld(stack: NoteStack) {
        let request = NSFetchRequest<Note>(entityName: "Note")
        request.predicate = NSPredicate(format: "createdAt < %@", Date().addingTimeInterval(-86_400) as NSDate)
        let old = (try? stack.purgeContext.fetch(request)) ?? [] // expect: context-without-perform
        for note in old {
            stack.purgeContext.delete(note) // expect: context-without-perform
        }
    }

    // The correct twin: called only inside purgeContext.perform { }.
    static func purgeOldFixed(stack: NoteStack) {
        let request = NSFetchRequest<Note>(entityName: "Note")
        let old = (try? stack.purgeContext.fetch(request)) ?? []
        for note in old {
            stack.purgeContext.delete(note)
        }
    }
}
