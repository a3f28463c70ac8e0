import ConcurrencyDebug
import Foundation
import Synchronization
import TestSupport
import Testing
@_spi(Runtime) import ManagedContext

/// What Core Data users type (issue 18, part 4), each checked for what it does.
@Suite struct CoreDataSpellingsTests {
    struct Refused: Error, Equatable {}

    /// Core Data: `perform<T>(schedule: ScheduledTaskType = .immediate, _ block:
    /// @escaping @Sendable () throws -> T) async rethrows -> T`
    /// (developer.apple.com/documentation/coredata/nsmanagedobjectcontext/perform(schedule:_:)):
    /// a non-throwing block needs no `try`; a throwing one rethrows.
    @Test func asyncPerformNeedsNoTryForANonThrowingBlockAndRethrowsAThrowingOne() async throws {
        let stack = try TestStack()
        let context = stack.privateContext("worker")
        let owner = context.queueIdentity
        // No `try`: this line does not compile if perform is `async throws`.
        let (ranAsOwner, count) = await context.perform {
            Sample(context: context).name = "inserted in perform"
            return (ConcurrencyDebug.currentOwner == owner, context.insertedObjects.count)
        }
        #expect(ranAsOwner, "the block runs as the context's owner, on its queue")
        #expect(count == 1)
        await #expect(throws: Refused.self) {
            try await context.perform { () throws(Refused) -> Int in throw Refused() }
        }
        // performBackgroundTask is `async rethrows` too.
        let container = PersistentContainer(name: "Spellings", managedObjectModel: testModel, storeURL: stack.dir.file("C.sqlite"))
        try container.loadPersistentStores()
        let saved = await container.performBackgroundTask { context in
            Sample(context: context).name = "from a background task"
            return (try? context.save()) != nil
        }
        #expect(saved)
    }

    /// Core Data's `ScheduledTaskType`: "Immediate tasks execute right away if the
    /// context operates within the current scope; otherwise, the context enqueues the
    /// task." "Enqueued tasks execute asynchronously on the context's queue ... in the
    /// order you add them." A main-queue context called from the main actor is within
    /// scope: `.immediate` runs before work already on the main queue, `.enqueued` after.
    @Test @MainActor func immediateRunsAtOnceOnTheContextsQueueAndEnqueuedRunsInOrder() async throws {
        let stack = try TestStack()
        let main = ManagedObjectContext(concurrencyType: .mainQueue)
        main.persistentStoreCoordinator = stack.coordinator
        let log = Mutex<[String]>([])
        DispatchQueue.main.async { log.withLock { $0.append("queued before immediate") } }
        await main.perform(schedule: .immediate) { log.withLock { $0.append("immediate") } }
        DispatchQueue.main.async { log.withLock { $0.append("queued before enqueued") } }
        await main.perform(schedule: .enqueued) { log.withLock { $0.append("enqueued") } }
        #expect(log.withLock { $0 } == ["immediate", "queued before immediate", "queued before enqueued", "enqueued"])
    }

    @Test func mergePolicyConstantsAreCoreDatasNames() throws {
        let pairs: [(MergePolicy, MergePolicy, MergePolicy)] = [
            (.errorMergePolicy, ErrorMergePolicy, .error),
            (.mergeByPropertyStoreTrumpMergePolicy, MergeByPropertyStoreTrumpMergePolicy, .mergeByPropertyStoreTrump),
            (.mergeByPropertyObjectTrumpMergePolicy, MergeByPropertyObjectTrumpMergePolicy, .mergeByPropertyObjectTrump),
            (.overwriteMergePolicy, OverwriteMergePolicy, .overwrite),
            (.rollbackMergePolicy, RollbackMergePolicy, .rollback),
        ]
        for (member, global, policy) in pairs {
            #expect(member == policy && global == policy)
        }
    }

    /// An object-trump policy set by its Core Data name resolves a conflict: the
    /// context's change wins, the store's other changes stay.
    @Test func aMergePolicySetByItsCoreDataNameResolvesAConflict() throws {
        let stack = try TestStack()
        let a = stack.privateContext("a")
        let b = stack.privateContext("b")
        let id = try a.performAndWait {
            let s = Sample(context: a)
            s.name = "first"
            s.large = 1
            try a.save()
            return s.objectID
        }
        let inB = b.performAndWait { b.object(with: id) as! Sample }
        b.performAndWait { _ = inB.name }
        try a.performAndWait {
            (a.object(with: id) as! Sample).large = 2
            try a.save()
        }
        b.mergePolicy = MergeByPropertyObjectTrumpMergePolicy
        try b.performAndWait {
            inB.name = "mine"
            try b.save()
        }
        let reader = stack.privateContext("reader")
        let (name, large) = reader.performAndWait {
            let s = reader.object(with: id) as! Sample
            return (s.name, s.large)
        }
        #expect(name == "mine")
        #expect(large == 2)
    }

    /// Core Data posts `NSManagedObjectContextDidSave` (and `…WillSave`,
    /// `…ObjectsDidChange`); the names without NS are the same notifications.
    @Test func notificationNamesWithoutTheNSPrefixAreTheContextsNotifications() throws {
        #expect(Notification.Name.ManagedObjectContextDidSave == ManagedObjectContext.didSaveObjectsNotification)
        #expect(Notification.Name.ManagedObjectContextWillSave == ManagedObjectContext.willSaveObjectsNotification)
        #expect(Notification.Name.ManagedObjectContextObjectsDidChange == ManagedObjectContext.didChangeObjectsNotification)
        let stack = try TestStack()
        let context = stack.privateContext("saver")
        let seen = Mutex<[Notification.Name]>([])
        let names: [Notification.Name] = [.ManagedObjectContextWillSave, .ManagedObjectContextDidSave, .ManagedObjectContextObjectsDidChange]
        let tokens = names.map { name in
            NotificationCenter.default.addObserver(forName: name, object: context, queue: nil) { note in
                seen.withLock { $0.append(note.name) }
            }
        }
        defer { tokens.forEach(NotificationCenter.default.removeObserver) }
        try context.performAndWait {
            Sample(context: context).name = "noted"
            try context.save()
        }
        let got = seen.withLock { $0 }
        for name in names { #expect(got.contains(name), "\(name.rawValue) posted: \(got)") }
    }

    /// Core Data generates `class func fetchRequest() -> NSFetchRequest<Entity>` for
    /// each managed object subclass.
    @Test func entityFetchRequestIsATypedRequestForThatEntity() throws {
        let stack = try TestStack()
        let context = stack.privateContext()
        let names = try context.performAndWait {
            Sample(context: context).name = "one"
            Place(context: context).title = "not a sample"
            var request = Sample.fetchRequest()
            request.sortDescriptors = [FetchSortDescriptor(\Sample.name)]
            let typed: FetchRequest<Sample> = request
            return try context.fetch(typed).map(\.name)
        }
        #expect(names == ["one"])
        #expect(try context.performAndWait { try context.count(for: Place.fetchRequest()) } == 1)
    }

    /// Core Data's `refreshAllObjects()` "calls -refreshObject:mergeChanges: on all
    /// currently registered objects" and, per WWDC 2015 (What's New in Core Data),
    /// "refreshes all the objects in the context while preserving the unsaved
    /// changes" (developer.apple.com/forums/thread/87856): mergeChanges true.
    @Test func refreshAllObjectsReloadsUnchangedObjectsAndKeepsUnsavedChanges() throws {
        let stack = try TestStack()
        let a = stack.privateContext("a")
        let b = stack.privateContext("b")
        let (keptID, reloadedID) = try a.performAndWait {
            let kept = Sample(context: a)
            kept.name = "kept"
            let reloaded = Sample(context: a)
            reloaded.name = "old"
            try a.save()
            return (kept.objectID, reloaded.objectID)
        }
        try b.performAndWait {
            (b.object(with: reloadedID) as! Sample).name = "new from b"
            (b.object(with: keptID) as! Sample).large = 42
            try b.save()
        }
        let (kept, reloaded, large, hasChanges) = a.performAndWait {
            let kept = a.object(with: keptID) as! Sample
            kept.name = "unsaved in a"
            let reloaded = a.object(with: reloadedID) as! Sample
            a.refreshAllObjects()
            return (kept.name, reloaded.name, kept.large, a.hasChanges)
        }
        #expect(reloaded == "new from b", "an unchanged object loads the store's values")
        #expect(kept == "unsaved in a", "an unsaved change is kept")
        #expect(large == 42, "under it, the store's other values")
        #expect(hasChanges)
    }

    /// Core Data's `stalenessInterval` defaults to a negative value ("infinite
    /// staleness allowed"); `transactionAuthor` to nil. Here there is no row cache, so
    /// a refreshed fault loads the store's current row whatever the interval (what
    /// Core Data does with 0).
    @Test func stalenessIntervalAndTransactionAuthorAreKeptAndFaultsReadTheStore() throws {
        let stack = try TestStack()
        let a = stack.privateContext("a")
        let b = stack.privateContext("b")
        #expect(a.stalenessInterval < 0)
        #expect(a.transactionAuthor == nil)
        a.transactionAuthor = "importer"
        #expect(a.transactionAuthor == "importer")
        let id = try a.performAndWait {
            let s = Sample(context: a)
            s.name = "old"
            try a.save()
            return s.objectID
        }
        try b.performAndWait {
            (b.object(with: id) as! Sample).name = "new"
            try b.save()
        }
        let name = a.performAndWait {
            let s = a.object(with: id) as! Sample
            a.refresh(s, mergeChanges: false)
            return s.name
        }
        #expect(a.stalenessInterval == -1)
        #expect(name == "new")
        a.stalenessInterval = 0
        #expect(a.stalenessInterval == 0)
    }

    /// Core Data's `loadPersistentStores(completionHandler:)` calls the handler once
    /// per store, with the store's description and the error or nil.
    @Test func loadPersistentStoresCallsItsHandlerOnceWithTheStoreAndTheError() throws {
        let directory = TempDirectory()
        let good = PersistentContainer(name: "Good", managedObjectModel: testModel, storeURL: directory.file("Good.sqlite"))
        var calls: [(PersistentStoreDescription, (any Error)?)] = []
        good.loadPersistentStores { description, error in calls.append((description, error)) }
        try #require(calls.count == 1)
        #expect(calls[0].0.url == directory.file("Good.sqlite"))
        #expect(calls[0].0.type == "SQLite")
        #expect(calls[0].1 == nil)
        #expect(good.viewContext.performAndWait { (try? good.viewContext.count(for: Sample.fetchRequest())) } == 0)

        try Data("not a database, just text".utf8).write(to: directory.file("Bad.sqlite"))
        let bad = PersistentContainer(name: "Bad", managedObjectModel: testModel, storeURL: directory.file("Bad.sqlite"))
        var errors: [(any Error)?] = []
        bad.loadPersistentStores { _, error in errors.append(error) }
        try #require(errors.count == 1)
        #expect(errors[0] is ManagedContextError)
    }

    /// Reports name an unnamed context by how it was made, instead of "#4".
    @Test func unnamedContextsAreNamedByHowTheyWereMade() throws {
        let directory = TempDirectory()
        let container = PersistentContainer(name: "Names", managedObjectModel: testModel, storeURL: directory.file("N.sqlite"))
        try container.loadPersistentStores()
        let background = container.newBackgroundContext()
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = container.viewContext
        let grandchild = ManagedObjectContext(concurrencyType: .mainQueue)
        grandchild.parent = child
        let plain = ManagedObjectContext(concurrencyType: .privateQueue)
        plain.persistentStoreCoordinator = container.persistentStoreCoordinator
        func reported(_ c: ManagedObjectContext) -> String? {
            c.describe(AccessEvent(operation: .fetch, owner: c.queueIdentity)).contextName
        }
        #expect(reported(container.viewContext) == "viewContext")
        #expect(reported(background)?.range(of: #"^background #\d+$"#, options: .regularExpression) != nil, "\(reported(background) ?? "nil")")
        #expect(reported(child) == "child of viewContext")
        #expect(reported(grandchild) == "child of child of viewContext")
        #expect(reported(plain)?.range(of: #"^private #\d+$"#, options: .regularExpression) != nil, "\(reported(plain) ?? "nil")")
        #expect(background.description.contains("background #"))
        // As in Core Data, `name` itself stays nil until set; a set name wins.
        #expect(background.name == nil && child.name == nil)
        child.name = "editor"
        #expect(reported(child) == "editor")
        #expect(reported(grandchild) == "child of editor")
    }
}
