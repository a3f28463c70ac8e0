import CoreData
import Foundation

// The model names the entities' classes: Xcode generates `Note` (codegen "Class
// Definition") and `Folder`'s properties, so no source here declares them as
// NSManagedObject subclasses. The model (Notes.xcdatamodeld) tells lint they are.
final class NoteExporter {
    let container: NSPersistentContainer

    init(container: NSPersistentContainer) {
        self.container = container
    }

    // object-across-queues, the bug: a note, whatever its context, read on a global queue.
    func export(_ note: Note) {
        DispatchQueue.global().async {
            print(note.title ?? "") // expect: object-across-queues
        }
    }

    // The correct twin: a plain value crosses.
    func exportFixed(_ note: Note) {
        let title = note.title ?? ""
        DispatchQueue.global().async {
            print(title)
        }
    }

    // A folder's class is the model's too (`.Folder`: the module prefix dropped).
    func rename(_ folder: Folder) {
        DispatchQueue.global().async {
            folder.name = "Archive" // expect: object-across-queues
        }
    }

    // A type the model does not name is no managed object: silent.
    func show(_ receipt: Receipt) {
        DispatchQueue.global().async {
            print(receipt.total)
        }
    }
}

extension Folder {
    var displayName: String { name ?? "Untitled" }
}

struct Receipt {
    var total: Double
}
