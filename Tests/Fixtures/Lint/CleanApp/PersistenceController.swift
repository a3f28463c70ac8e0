import CoreData
import SwiftUI

// Correct code only: every rule must stay silent here.

final class Note: NSManagedObject {
    @NSManaged var title: String?
    @NSManaged var body: String?
    @NSManaged var updated: Date?
}

struct PersistenceController {
    static let shared = PersistenceController()
    let container: NSPersistentContainer

    init(inMemory: Bool = false) {
        container = NSPersistentContainer(name: "Notes")
        container.loadPersistentStores { _, error in
            if let error { fatalError("\(error)") }
        }
        container.viewContext.automaticallyMergesChangesFromParent = true
    }

    /// A helper that callers run inside the context's perform.
    func touch(_ note: Note) {
        note.updated = Date()
    }

    func importNotes(_ titles: [String]) async throws {
        let context = container.newBackgroundContext()
        try await context.perform {
            for title in titles {
                let note = Note(context: context)
                note.title = title
                self.touch(note)
            }
            try context.save()
        }
    }

    func titles() -> [String] {
        let context = container.newBackgroundContext()
        return context.performAndWait {
            let request = NSFetchRequest<Note>(entityName: "Note")
            request.fetchBatchSize = 50
            return ((try? context.fetch(request)) ?? []).compactMap(\.title)
        }
    }

    func deleteAll(_ ids: [NSManagedObjectID]) {
        container.performBackgroundTask { context in
            ids.forEach { context.delete(context.object(with: $0)) }
            try? context.save()
        }
    }
}

struct NotesView: View {
    @Environment(\.managedObjectContext) private var viewContext
    @FetchRequest(sortDescriptors: [SortDescriptor(\.updated, order: .reverse)]) private var notes: FetchedResults<Note>
    @State private var searchResults: [Note] = []

    var body: some View {
        List {
            ForEach(notes) { note in
                Text(note.title ?? "")
            }
            .onDelete { offsets in
                offsets.map { notes[$0] }.forEach(viewContext.delete)
                try? viewContext.save()
            }
        }
        .toolbar {
            Button("Add") {
                let note = Note(context: viewContext)
                note.title = "New note"
                try? viewContext.save()
            }
            Button("Search") {
                search("swift")
            }
        }
    }

    private func search(_ text: String) {
        let container = PersistenceController.shared.container
        container.performBackgroundTask { context in
            let request = NSFetchRequest<Note>(entityName: "Note")
            request.predicate = NSPredicate(format: "title CONTAINS[cd] %@", text)
            let ids = ((try? context.fetch(request)) ?? []).map(\.objectID)
            DispatchQueue.main.async {
                searchResults = ids.compactMap { viewContext.object(with: $0) as? Note }
            }
        }
    }
}

final class NoteEditorViewController: UIViewController {
    var note: Note!
    var container: NSPersistentContainer!

    @IBAction func saveTapped(_ sender: Any) {
        note.updated = Date()
        try? container.viewContext.save()
        let noteID = note.objectID
        let title = note.title ?? ""
        DispatchQueue.global().async {
            print("saved \(title) as \(noteID)")
        }
        UIView.animate(withDuration: 0.25) {
            self.view.alpha = self.note.title == nil ? 0.5 : 1
        }
    }

    @IBAction func exportTapped(_ sender: Any) {
        let request = NSFetchRequest<Note>(entityName: "Note")
        request.fetchLimit = 20
        let recent = (try? container.viewContext.fetch(request)) ?? []
        print(recent.count)
    }

    func duplicate() throws {
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let copy = Note(context: context)
            copy.title = "Copy"
            try context.save()
            let id = copy.objectID
            DispatchQueue.main.async {
                self.note = self.container.viewContext.object(with: id) as? Note
            }
        }
    }
}
