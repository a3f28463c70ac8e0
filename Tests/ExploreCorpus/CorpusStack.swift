import CtxdebugHelpers
import Foundation
import ManagedContext

/// The corpus's app model: to-do style items, tags, and counters.
final class Item: ManagedObject, CustomEntityName {
    static let entityName = "CorpusItem"
    @Attribute("title") var title: String?
    @Attribute("note") var note: String?
    @Attribute("done") var done: Bool? = false
    @Attribute("hidden") var hidden: Bool? = false
    @Attribute("price") var price: Double?
    @Attribute("tags") var tags: String?
    @Attribute("revision") var revision: Int64? = 0
}

final class Tag: ManagedObject, CustomEntityName {
    static let entityName = "CorpusTag"
    @Attribute("name") var name: String?
}

final class Counter: ManagedObject, CustomEntityName {
    static let entityName = "CorpusCounter"
    @Attribute("name") var name: String?
    @Attribute("value") var value: Int64? = 0
}

/// What a busy context writes while it works (a sync log, an import's records).
final class LogEntry: ManagedObject, CustomEntityName {
    static let entityName = "CorpusLogEntry"
    @Attribute("message") var message: String?
    @Attribute("sequence") var sequence: Int64? = 0
}

let corpusModel = ManagedObjectModel(entities: [Item.self, Tag.self, Counter.self, LogEntry.self])

/// The work a busy context is doing when the racing step is queued behind it: it
/// records `count` log entries (an import's records, an extension's metadata), unsaved.
/// It gives the racing step a head start to lose: in a plain run, the other side's
/// step, which comes right after on another thread, nearly always goes first (see
/// README.md, "How each bug is kept rare").
func recordActivity(in context: ManagedObjectContext, count: Int = CorpusWorkload.batchSize) {
    for n in 0..<count {
        let entry = LogEntry(context: context)
        entry.message = "synced record \(n)"
        entry.sequence = Int64(n)
    }
}

/// `recordActivity` and a save: a background import.
func importBatch(into context: ManagedObjectContext, count: Int = CorpusWorkload.batchSize) {
    recordActivity(in: context, count: count)
    try? context.save()
}

/// One body's stack: its own store file in a fresh temporary directory, a coordinator,
/// and the contexts it makes. `destroy()` removes the store's files.
final class CorpusStack: Sendable {
    let directory: URL
    let coordinator: PersistentStoreCoordinator

    init() throws {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        directory = URL(fileURLWithPath: "\(base)/ctxdebug-corpus-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        coordinator = PersistentStoreCoordinator(managedObjectModel: corpusModel)
        try coordinator.addPersistentStore(at: directory.appendingPathComponent("Corpus.sqlite"))
    }

    func privateContext(_ name: String, policy: MergePolicy = .error) -> ManagedObjectContext {
        let c = ManagedObjectContext(concurrencyType: .privateQueue)
        c.persistentStoreCoordinator = coordinator
        c.name = name
        c.mergePolicy = policy
        return c
    }

    func mainContext(_ name: String = "ui") -> ManagedObjectContext {
        let c = ManagedObjectContext(concurrencyType: .mainQueue)
        c.persistentStoreCoordinator = coordinator
        c.name = name
        return c
    }

    func child(of parent: ManagedObjectContext, _ name: String, _ type: ManagedObjectContext.ConcurrencyType = .privateQueue) -> ManagedObjectContext {
        let c = ManagedObjectContext(concurrencyType: type)
        c.parent = parent
        c.name = name
        return c
    }

    /// Saves the given items in a context of its own and returns their IDs.
    func seed(_ titles: [String], configure: @escaping (Item) -> Void = { _ in }) throws -> [ManagedObjectID] {
        let c = privateContext("seed")
        return try c.performAndWait {
            let items = titles.map { title in
                let item = Item(context: c)
                item.title = title
                configure(item)
                return item
            }
            try c.save()
            return items.map(\.objectID)
        }
    }

    /// What the store holds now, read by a fresh context.
    func stored<T>(_ read: @escaping (ManagedObjectContext) throws -> T) throws -> T {
        let c = privateContext("verify")
        return try c.performAndWait { try read(c) }
    }

    /// A child context's earlier work, before its racing step: it saves a batch of
    /// history records to the store through a background context of its own
    /// (`importBatch`). A child's own save only goes into its parent's memory, which gives
    /// far less of a head start than a save to the store (README.md).
    func saveHistory() {
        let history = privateContext("history")
        history.performAndWait { importBatch(into: history) }
    }

    func destroy() {
        coordinator.removePersistentStore()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Waits for each context's queue in turn (an empty `performAndWait` is a FIFO barrier),
/// `rounds` times, so work one context enqueues on another is drained too.
func settle(_ contexts: [ManagedObjectContext], rounds: Int = 2) {
    for _ in 0..<rounds {
        for c in contexts { c.performAndWait {} }
    }
}

/// What app code records across queues (a list's rows, an upload queue, a badge):
/// a value behind a lock.
final class Shared<Value: Sendable>: Sendable {
    private let box: LockedValue<Value>
    init(_ value: Value) { box = LockedValue(value) }
    var value: Value { box.withLock { $0 } }
    func set(_ value: Value) { box.withLock { $0 = value } }
    func update(_ body: (inout Value) -> Void) { box.withLock { body(&$0) } }
}

/// A did-save observer that hands each save of `saver` to `body` (on the saving
/// thread), removed by `remove()`.
final class DidSaveObserver: @unchecked Sendable {
    // @unchecked: the token is only handed back to NotificationCenter, which is thread-safe.
    private let token: any NSObjectProtocol

    init(_ saver: ManagedObjectContext, _ body: @escaping @Sendable (SaveChanges) -> Void) {
        token = NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.didSaveObjectsNotification, object: saver, queue: nil
        ) { note in body(SaveChanges(note)) }
    }

    func remove() { NotificationCenter.default.removeObserver(token) }
}

/// The app's invariant checks.
enum CorpusCheck {
    static func that(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw CorpusInvariantBroken(message()) }
    }
}

/// An object app code keeps across perform blocks of its context (a selection, an
/// editor's item, an import batch).
/// `@unchecked Sendable`: the object is only touched inside its context's blocks.
final class Held<Object>: @unchecked Sendable {
    let object: Object
    init(_ object: Object) { self.object = object }
}
