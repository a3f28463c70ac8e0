import Foundation
import ManagedContext

/// A note of the app-style corpus: what the cases insert, count and edit.
final class Note: ManagedObject {
    @Attribute("title") var title: String? = nil
    @Attribute("value") var value: Int64? = 0
}

/// The stack an app makes at launch: a store on a fresh SQLite file, a main-queue view
/// context, and background contexts made on demand, as `PersistentContainer` users do.
///
/// `@unchecked Sendable`: every property is set once in `init`; the contexts are used on
/// their own queues only (perform / performAndWait, or main-queue code for the view context).
final class AppStack: @unchecked Sendable {
    let directory: String
    let coordinator: PersistentStoreCoordinator
    let viewContext: ManagedObjectContext

    init() {
        directory = NSTemporaryDirectory() + "/ctxdebug-app-corpus-\(getpid())-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        coordinator = PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [Note.self]))
        try! coordinator.addPersistentStore(at: URL(fileURLWithPath: directory + "/Notes.sqlite"))
        viewContext = ManagedObjectContext(concurrencyType: .mainQueue)
        viewContext.persistentStoreCoordinator = coordinator
        viewContext.name = "view"
    }

    func newBackgroundContext(_ name: String) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.name = name
        context.mergePolicy = .mergeByPropertyObjectTrump
        return context
    }

    /// One counter note with value 0, saved.
    func seedCounter() {
        let seed = newBackgroundContext("seed")
        seed.performAndWait {
            let note = Note(context: seed)
            note.title = "counter"
            note.value = 0
            try! seed.save()
        }
    }

    /// The history an app has when it starts: `count` old notes, saved. What a list
    /// screen shows, and reads (`browse`) before it acts: the head start that keeps a
    /// plain run away from the bad order (Tests/ExploreAppCorpus/README.md).
    func seedHistory(_ count: Int = 300) {
        let seed = newBackgroundContext("history")
        seed.performAndWait {
            for index in 0..<count { Note(context: seed).title = "old \(index)" }
            try! seed.save()
        }
    }

    /// A list screen's refresh: every note fetched, `times` times (inside `context`'s queue).
    static func browse(_ context: ManagedObjectContext, times: Int = 3) {
        for _ in 0..<times { _ = try! context.fetch(FetchRequest<Note>()).count }
    }

    /// Reads the counter and adds one, in `context`'s queue (called inside its perform).
    static func increment(in context: ManagedObjectContext) {
        let note = try! context.fetch(FetchRequest<Note>()).first { $0.title == "counter" }!
        note.value = (note.value ?? 0) + 1
        try! context.save()
    }

    /// What the store holds now, read on a context of its own.
    func stored<T>(_ read: @escaping (ManagedObjectContext) throws -> T) -> T {
        let reader = newBackgroundContext("reader")
        return reader.performAndWait { try! read(reader) }
    }

    func counterValue() -> Int64 {
        stored { context in try context.fetch(FetchRequest<Note>()).first { $0.title == "counter" }?.value ?? -1 }
    }

    func noteCount() -> Int {
        stored { context in try context.fetch(FetchRequest<Note>()).filter { $0.title?.hasPrefix("note ") == true }.count }
    }

    func destroy() { try? FileManager.default.removeItem(atPath: directory) }
}

/// Ends the program: 0 when `ok`, else 1 with `message` on stderr (the case's assertion).
func finish(_ ok: Bool, _ message: @autoclosure () -> String, stack: AppStack) -> Never {
    stack.destroy()
    if !ok {
        FileHandle.standardError.write(Data("assertion failed: \(message())\n".utf8))
        exit(1)
    }
    exit(0)
}
