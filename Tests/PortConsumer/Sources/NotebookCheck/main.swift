// Uses the ported model layer as the app does, in plain Core Data; with --wrong-queue
// it then reads a note off its context's queue, so the checker (CTXDEBUG_CONCURRENCY=1) reports it at
// App/Model/NotebookStore.swift's own line. With --import-then-count it runs only the
// import whose completion hops to the main queue before the save, for `ctxdebug explore`.
import CoreData

let modelURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../App/Model.xcdatamodeld").standardizedFileURL
guard let model = NSManagedObjectModel(contentsOf: modelURL) else { fatalError("cannot read \(modelURL.path)") }
let container = NSPersistentContainer(name: "Model", managedObjectModel: model)
let description = NSPersistentStoreDescription()
description.type = NSInMemoryStoreType
container.persistentStoreDescriptions = [description]
container.loadPersistentStores { _, error in
    if let error { fatalError("\(error)") }
}
let store = NotebookStore(container: container)
let context = container.viewContext

if CommandLine.arguments.contains("--import-then-count") {
    // App-style, for `ctxdebug explore`: the main thread parked in dispatchMain(), the
    // import's completion hopping to the main queue, where the list counts the notes.
    store.importNotes(["one", "two", "three"]) {
        let shown = (try? context.count(for: NSFetchRequest<Note>(entityName: "Note"))) ?? -1
        if shown != 3 {
            FileHandle.standardError.write(Data("assertion failed: the list showed \(shown) notes after the import of 3 finished\n".utf8))
            exit(1)
        }
        exit(0)
    }
    dispatchMain()
}
nonisolated(unsafe) var failures: [String] = []
func expect(_ ok: Bool, _ what: String) { if !ok { failures.append(what) } }

context.performAndWait {
    let folder = Folder(context: context)
    folder.name = "Work"
    let note = Note(context: context)
    note.title = "Standup"
    note.rating = 4
    note.pinned = true
    note.words = NSNumber(value: 120)
    note.created = Date(timeIntervalSinceReferenceDate: 0)
    folder.addToNotes(note)
    let tag = Tag(context: context)
    tag.label = "daily"
    tag.weight = 2.5
    note.tags = [tag]
    try! context.save()

    expect(note.folder === folder, "to-one through addToNotes")
    expect(folder.notes?.count == 1, "to-many as NSSet")
    expect(folder.noteCount == 1, "a file in a folder whose name has a space (App/Model Extras)")
    expect(note.tags.first === tag && tag.note === note, "Set<Tag> and its inverse")
    expect(note.rating == 4 && note.pinned && note.words?.intValue == 120, "scalars and NSNumber")
    expect(folder.sortedTitles == ["Standup"], "#keyPath in value(forKey:)")
    expect(Note.sectionKey == "folder.name", "#keyPath through a relationship")
    expect(store.savesSeen == 1, "the ported selector observer saw the save (saw \(store.savesSeen))")
    expect((try? context.fetch(NSFetchRequest<Note>(entityName: "Note")))?.count == 1, "a fetch of the ported class")
    expect(Folder.instancesMade == 1, "the overridden init(entity:insertInto:) ran for the inserted folder (ran \(Folder.instancesMade) times)")
    let other = container.newBackgroundContext()
    let fetchedNames = other.performAndWait { (try? other.fetch(NSFetchRequest<Folder>(entityName: "Folder")))?.map(\.name) }
    expect(fetchedNames == ["Work"] && Folder.instancesMade == 2, "a fetched folder is made through the overridden init (ran \(Folder.instancesMade) times)")
    folder.removeFromNotes(note)
    expect(note.folder == nil && folder.notes?.count == 0, "removeFromNotes")
    // A second store, released: its deinit's removeObserver(ported: self) takes its
    // registration out, and the next save reaches only the first store.
    weak var released: NotebookStore?
    do {
        let temporary = NotebookStore(container: container)
        released = temporary
    }
    expect(released == nil, "the second store was released (the observer holds it weakly)")
    note.title = "Standup, moved"
    try! context.save()
    expect(store.savesSeen == 2, "the first store saw the second save (saw \(store.savesSeen))")
    let tags: NSFetchRequest<Tag> = Tag.fetchRequest()
    expect((try? context.fetch(tags))?.first?.label == "daily", "the generated Tag class")
}
if !failures.isEmpty {
    print("NotebookCheck: FAILED: \(failures.joined(separator: "; "))")
    exit(1)
}
print("NotebookCheck: the ported model layer works")

if CommandLine.arguments.contains("--wrong-queue") {
    // A note of a background context, read on the main thread outside its perform.
    let background = container.newBackgroundContext()
    let note = background.performAndWait { try! background.fetch(NSFetchRequest<Note>(entityName: "Note")).first! }
    _ = store.titleFromAnyThread(note)
}
