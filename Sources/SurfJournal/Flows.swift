import CtxdebugHelpers
public import Dispatch
public import Foundation
public import CoreData
public import ManagedContext

/// One row of the journal list, formatted as the app's cell shows it.
public struct JournalCell: Sendable, Hashable {
    public var title: String
    public var detail: String
    public var rating: String
}

/// The list view's data: every entry, newest first, fetched in batches of 20
/// through one context (the view context in the app), as the chapter's fetched
/// results controller does. Confined to its context's queue.
public final class JournalList {
    public let context: ManagedObjectContext
    private var results: FetchedResults<JournalEntry>
    private let formatter: DateFormatter

    /// Fetches the list. Call it on the context's queue.
    public init(context: ManagedObjectContext, batchSize: Int = 20) throws(ManagedContextError) {
        self.context = context
        var request = FetchRequest<JournalEntry>(sortDescriptors: SurfJournal.newestFirst)
        request.fetchBatchSize = batchSize
        self.results = try context.fetch(request)
        formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, MMM d yyyy HH:mm"
    }

    /// Fetches again (after the store changed), keeping the batch size.
    public func reload() throws(ManagedContextError) {
        var request = FetchRequest<JournalEntry>(sortDescriptors: SurfJournal.newestFirst)
        request.fetchBatchSize = 20
        results = try context.fetch(request)
    }

    public var count: Int { results.count }

    /// The objectID of the row at `index`.
    public func objectID(at index: Int) -> ManagedObjectID { results.objectIDs[index] }

    /// The entry at `index` (a fault until its batch is read).
    public func entry(at index: Int) -> JournalEntry { results[index] }

    /// The visible cells `range`, formatted: what a frame of scrolling costs.
    public func cells(_ range: Range<Int>) -> [JournalCell] {
        let clamped = range.clamped(to: 0..<results.count)
        return clamped.map { cell(for: results[$0]) }
    }

    /// The chapter's cell: date, "height ft @ period s, wind kts", stars.
    public func cell(for entry: JournalEntry) -> JournalCell {
        let title = entry.date.map { formatter.string(from: $0) } ?? "(no date)"
        var detail = entry.location ?? "Unknown spot"
        if let h = entry.height { detail += " · \(h) ft" }
        if let p = entry.period { detail += " @ \(p) s" }
        if let w = entry.wind { detail += " · wind \(w) kts" }
        let r = Int(entry.rating?.int16Value ?? 0)
        let stars = String(repeating: "★", count: max(0, min(5, r))) + String(repeating: "☆", count: max(0, 5 - r))
        return JournalCell(title: title, detail: detail, rating: stars)
    }
}

@available(*, unavailable, message: "A JournalList is confined to its context's queue.")
extension JournalList: Sendable {}

/// Opening, editing and adding an entry in a child scratchpad of the view context,
/// as the chapter's `JournalEntryViewController`: save pushes the changes into the
/// parent (and the parent saves to the store), cancel throws them away.
/// Confined to the parent's queue. The child has the parent's concurrency type, so
/// for the view context both are on the main queue; every use of the child goes
/// through `child.performAndWait`, which is immediate there and correct for a
/// private parent too. The returned entry belongs to the child: touch it inside
/// `child.performAndWait` (or on the main queue for a main-queue child).
public final class EntryEditor {
    public let parent: ManagedObjectContext
    public let child: ManagedObjectContext
    public private(set) var entry: JournalEntry?

    public init(parent: ManagedObjectContext) {
        self.parent = parent
        child = ManagedObjectContext(concurrencyType: parent.concurrencyType)
        child.name = "editor"
        child.parent = parent
    }

    /// Opens the entry `id` in the child.
    @discardableResult
    public func open(_ id: ManagedObjectID) throws(ManagedContextError) -> JournalEntry {
        let child = self.child
        let lookup: Result<ManagedObject, ManagedContextError> = child.performAndWait {
            do { return .success(try child.existingObject(with: id)) } catch let error as ManagedContextError { return .failure(error) } catch { return .failure(ManagedContextError(.objectNotFound, "\(error)")) }
        }
        let found = try lookup.get()
        guard let e = found as? JournalEntry else {
            throw ManagedContextError(.objectNotFound, "\(id) is not a JournalEntry.")
        }
        entry = e
        return e
    }

    /// Inserts a new entry in the child.
    @discardableResult
    public func add(date: Date = Date()) -> JournalEntry {
        let child = self.child
        let e = child.performAndWait {
            let e = JournalEntry(context: child)
            e.date = date
            return e
        }
        entry = e
        return e
    }

    /// Saves the child into the parent, then the parent to the store.
    public func save() throws(ManagedContextError) {
        let child = self.child, parent = self.parent
        do {
            try child.performAndWait { try child.save() }
            try parent.performAndWait { try parent.save() }
        } catch let error as ManagedContextError {
            throw error
        } catch {
            throw ManagedContextError(.saveFailed, "\(error)")
        }
        entry = nil
    }

    /// Throws the child's changes away.
    public func cancel() {
        let child = self.child
        child.performAndWait { child.rollback() }
        entry = nil
    }
}

@available(*, unavailable, message: "An EntryEditor is confined to its context's queue.")
extension EntryEditor: Sendable {}

/// The app's background flows: the search that hands objectIDs to the main context,
/// the sync with its did-save merge, and the three-level stack (the final app's export
/// is `JournalExport.exportInBackground`).
public enum JournalFlows {
    /// An expensive search on a background context that returns only objectIDs,
    /// which the main context turns back into objects with `object(with:)`.
    public static func searchInBackground(
        container: NSPersistentContainer, predicate: FetchPredicate<JournalEntry>,
        completion: @escaping @Sendable (Result<[ManagedObjectID], ManagedContextError>) -> Void
    ) {
        container.performBackgroundTask { context in
            context.name = "search"
            let request = FetchRequest<JournalEntry>(predicate: predicate, sortDescriptors: SurfJournal.newestFirst)
            let result = Result { () throws(ManagedContextError) -> [ManagedObjectID] in try context.fetchObjectIDs(request) }
            completion(result)
        }
    }

    /// The search the app's search field runs: good days at spots with "Beach" in
    /// their name, or any day rated 5 with a long period.
    public static var expensiveSearch: FetchPredicate<JournalEntry> {
        // By attribute name (see `SurfJournal.newestFirst`).
        .attribute("location", contains: "Beach") && .attribute("rating", .greaterOrEqual, Int16(4))
            || .attribute("rating", .equal, Int16(5)) && .attribute("period", in: ["16", "17", "18", "19", "20"])
    }
}

/// Keeps the main context in step with a background context's saves, as the
/// chapter's did-save observer does: each save's objectIDs are merged on the main
/// queue, and `merged` is told when the change is visible there.
public final class DidSaveMerger: Sendable {
    private let token: ObserverBox

    /// `schedule` runs the merge on the main queue (the replay wraps it to measure
    /// it); `merged` is called on the main queue after each merge, with the IDs and
    /// the time the save was posted (the helpers' `MonotonicClock`, on the saving queue).
    public init(
        observing saver: ManagedObjectContext, into main: ManagedObjectContext,
        schedule: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void = { work in DispatchQueue.main.async(execute: work) },
        merged: @escaping @Sendable (SaveChanges, _ savedAt: UInt64) -> Void = { _, _ in }
    ) {
        let t = NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.didSaveObjectsNotification, object: saver, queue: nil
        ) { note in
            let savedAt = MonotonicClock.now()
            let changes = SaveChanges(note)
            guard !changes.isEmpty else { return }  // a save with nothing in it (Core Data posts one too)
            schedule {
                main.mergeChanges(changes)
                merged(changes, savedAt)
            }
        }
        token = ObserverBox(token: t)
    }

    deinit { NotificationCenter.default.removeObserver(token.token) }
}

/// `@unchecked Sendable`: the token is only handed back to NotificationCenter,
/// which is thread-safe.
private struct ObserverBox: @unchecked Sendable {
    let token: any NSObjectProtocol
}

/// The three-level stack of the Firebase example: a root private context on the
/// store, a main-queue context as its child, and a background context as the main
/// context's child. A save climbs one level at a time; the background's fetches and
/// saves run through the main queue (as Core Data's nested contexts serialize on
/// their parent).
public final class NestedStack: Sendable {
    public let root: ManagedObjectContext
    public let main: ManagedObjectContext
    public let background: ManagedObjectContext

    public init(container: NSPersistentContainer) {
        root = ManagedObjectContext(concurrencyType: .privateQueue)
        root.name = "root"
        root.persistentStoreCoordinator = container.persistentStoreCoordinator
        main = ManagedObjectContext(concurrencyType: .mainQueue)
        main.name = "main"
        main.parent = root
        background = ManagedObjectContext(concurrencyType: .privateQueue)
        background.name = "background"
        background.parent = main
    }

    /// Saves main into root (on the main queue), then root to the store on its queue.
    public func saveMainAndRoot(completion: @escaping @Sendable (Result<Void, ManagedContextError>) -> Void) {
        main.perform { [root, main] in
            do {
                try main.save()
            } catch {
                completion(.failure(ManagedContextError(saving: error)))
                return
            }
            root.perform {
                completion(Result { try root.save() }.mapError(ManagedContextError.init(saving:)))
            }
        }
    }
}
