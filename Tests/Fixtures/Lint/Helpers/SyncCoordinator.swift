import CoreData
import Foundation

// A protocol extension reads the context requirement of the types that conform to it.
protocol SyncCoordinating: AnyObject {
    var context: NSManagedObjectContext { get }
}

extension SyncCoordinating {
    // context-without-perform, the bug: every conforming type's `context` is a private
    // context, saved here on the main queue.
    func finishSync() {
        DispatchQueue.main.async {
            try? self.context.save() // expect: context-without-perform
        }
    }

    // The correct twin.
    func finishSyncFixed() {
        let context = self.context
        context.perform { try? context.save() }
    }
}

final class CloudSync: SyncCoordinating {
    let context = NoteStack.shared.container.newBackgroundContext()
}

final class FileSync: SyncCoordinating {
    let context: NSManagedObjectContext

    init(stack: NoteStack) {
        context = stack.container.newBackgroundContext()
    }
}

// Another type's `context` is the main one: by name alone the linter cannot tell,
// but the protocol's conforming types agree.
final class EditorModel {
    let context = NoteStack.shared.container.viewContext
}
