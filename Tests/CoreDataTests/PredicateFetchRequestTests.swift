import CoreData
import TestSupport
import Testing

/// Predicates and sort descriptors through Core Data's own API: `NSFetchRequest<Note>`
/// on an `NSPersistentContainer`, entity classes with ported `@NSManaged` accessors
/// (`Folder`, `Note` and `NotesModel` of CoreDataStackTests).
@Suite struct PredicateFetchRequestTests {
    /// "Fetching Objects" (NSFetchRequest): `predicate` and `sortDescriptors`; the
    /// unsaved objects match as the saved ones do (`includesPendingChanges`).
    @Test func aFetchRequestsPredicateAndSortsBeforeAndAfterSave() throws {
        let dir = TempDirectory("pred-request")
        let container = try NotesModel.container(in: dir)
        let context = container.viewContext
        let ids = [UUID(), UUID(), UUID()]
        func titles(_ format: String, _ args: Any..., sorts: [NSSortDescriptor]) throws -> [String] {
            let request = NSFetchRequest<Note>(entityName: "Note")
            request.predicate = NSPredicate(format: format, argumentArray: args)
            request.sortDescriptors = sorts
            let notes = try context.fetch(request)
            // evaluate(with:) agrees on every object the context holds.
            let all = try context.fetch(NSFetchRequest<Note>(entityName: "Note"))
            #expect(Set(all.filter { request.predicate!.evaluate(with: $0) }.map { $0.title ?? "" }) == Set(notes.map { $0.title ?? "" }))
            return notes.map { $0.title ?? "" }
        }
        try context.performAndWait {
            let inbox = Folder(context: context)
            inbox.name = "Inbox"
            let archive = Folder(context: context)
            archive.name = "Archive"
            for (i, (title, weight, folder)) in [("b", 2.5, inbox), ("A", 1.0, inbox), ("c", 3.0, archive)].enumerated() {
                let note = Note(context: context)
                note.title = title
                note.weight = Float(weight)
                note.identifier = ids[i]
                note.link = URL(string: "https://example.com/\(title)")
                note.folder = folder
            }
            for saved in [false, true] {
                if saved { try context.save() }
                let byTitle = [NSSortDescriptor(keyPath: \Note.title, ascending: true)]
                #expect(try titles("folder.name == %@", "Inbox", sorts: byTitle) == ["A", "b"], "saved: \(saved)")
                #expect(try titles("weight > %f", 1.5, sorts: [NSSortDescriptor(key: "weight", ascending: false)]) == ["c", "b"])
                // A Comparable property takes Foundation's own (keyPath:ascending:); its key path is read.
                #expect(try titles("TRUEPREDICATE", sorts: [NSSortDescriptor(keyPath: \Note.weight, ascending: false)]) == ["c", "b", "A"])
                #expect(try titles("identifier IN %@", [ids[0], ids[2]], sorts: byTitle) == ["b", "c"])
                #expect(try titles("link ENDSWITH[c] %@", "/B", sorts: byTitle) == ["b"])
                #expect(try titles("folder == %@", archive, sorts: byTitle) == ["c"])
                let folded = [NSSortDescriptor(key: "title", ascending: true, selector: Selector("caseInsensitiveCompare:"))]
                #expect(try titles("TRUEPREDICATE", sorts: folded) == ["A", "b", "c"])
                let folders = NSFetchRequest<Folder>(entityName: "Folder")
                folders.predicate = NSPredicate(format: "ANY notes.weight < 2 OR notes.@count == 0")
                #expect(try context.fetch(folders).map { $0.name } == ["Inbox"])
            }
        }
    }
}
