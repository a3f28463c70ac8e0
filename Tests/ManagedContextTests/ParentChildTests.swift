import Foundation
import GRDB
import Testing
@_spi(Runtime) import ManagedContext

/// Parent/child contexts, notifications and merges. Test names follow the cases
/// well-known Core Data test suites use.
@Suite struct ParentChildTests {
    func child(of parent: ManagedObjectContext, _ type: ManagedObjectContext.ConcurrencyType = .privateQueue) -> ManagedObjectContext {
        let c = ManagedObjectContext(concurrencyType: type)
        c.parent = parent
        return c
    }

    func storedNames(_ stack: TestStack) throws -> [String] {
        try stack.rawRead { db in try String.fetchAll(db, sql: "SELECT ZNAME FROM ZSAMPLE ORDER BY ZNAME") }
    }

    @Test func unsavedChangesInAChildDoNotReachTheParentOrAnotherContext() throws {
        let stack = try TestStack()
        let root = stack.privateContext("root")
        let scratch = child(of: root)
        let sibling = child(of: root)
        scratch.performAndWait { Sample(context: scratch).name = "draft" }
        #expect(try root.performAndWait { try root.count(for: FetchRequest<Sample>()) } == 0)
        #expect(try sibling.performAndWait { try sibling.count(for: FetchRequest<Sample>()) } == 0)
        #expect(try scratch.performAndWait { try scratch.count(for: FetchRequest<Sample>()) } == 1)
    }

    @Test func savingAChildOnlyUpdatesTheParentAndAChainOfSavesReachesDisk() throws {
        let stack = try TestStack()
        let root = stack.privateContext("root")
        let middle = child(of: root)
        let leaf = child(of: middle)
        try leaf.performAndWait {
            Sample(context: leaf).name = "from leaf"
            try leaf.save()
        }
        #expect(middle.performAndWait { middle.hasChanges })
        #expect(!root.performAndWait { root.hasChanges })
        #expect(try storedNames(stack) == [])
        try middle.performAndWait { try middle.save() }
        #expect(root.performAndWait { root.hasChanges })
        #expect(try storedNames(stack) == [])
        try root.performAndWait { try root.save() }
        #expect(try storedNames(stack) == ["from leaf"])
    }

    /// Root private on the store, main child, private grandchild: only the
    /// grandchild saves, as the chapter's three-context Firebase example does.
    @Test func aThreeLevelStackWhereOnlyTheGrandchildSavesLosesTheData() async throws {
        let stack = try TestStack()
        let root = stack.privateContext("root")
        let main = ManagedObjectContext(concurrencyType: .mainQueue)
        main.parent = root
        let background = child(of: main)
        try await background.perform {
            Sample(context: background).name = "synced"
            try background.save()
        }
        let mainCount = try await main.perform { try main.count(for: FetchRequest<Sample>()) }
        #expect(mainCount == 1)
        #expect(try storedNames(stack) == [], "nothing reached disk: the main and root contexts never saved")
        // A new stack on the same file (the app relaunched) finds nothing.
        let relaunched = PersistentStoreCoordinator(managedObjectModel: testModel)
        try relaunched.addPersistentStore(at: stack.storeURL)
        let fresh = ManagedObjectContext(concurrencyType: .privateQueue)
        fresh.persistentStoreCoordinator = relaunched
        #expect(try fresh.performAndWait { try fresh.count(for: FetchRequest<Sample>()) } == 0)
    }

    @Test func aChildFetchSeesTheParentsUnsavedState() throws {
        let stack = try TestStack()
        let root = stack.privateContext("root")
        root.performAndWait { Sample(context: root).name = "parent draft" }
        let scratch = child(of: root)
        try scratch.performAndWait {
            let found = try scratch.fetch(FetchRequest<Sample>(predicate: \Sample.name == "parent draft"))
            #expect(found.count == 1)
            #expect(found[0].objectID.isTemporaryID)
        }
    }

    @Test func aDiscardedChildLeavesTheParentUntouched() throws {
        let stack = try TestStack()
        let root = stack.privateContext("root")
        let id: ManagedObjectID = try root.performAndWait {
            let s = Sample(context: root)
            s.name = "original"
            try root.save()
            return s.objectID
        }
        do {
            let scratch = child(of: root)
            scratch.performAndWait {
                (scratch.object(with: id) as! Sample).name = "edited"
                Sample(context: scratch).name = "added"
            }
        }
        root.performAndWait {
            #expect(!root.hasChanges)
            #expect((root.object(with: id) as! Sample).name == "original")
        }
    }

    @Test func objectsInsertedInAChildKeepWorkingAfterChildAndRootSave() throws {
        let stack = try TestStack()
        let root = stack.privateContext("root")
        let scratch = child(of: root)
        let entry: Sample = scratch.performAndWait {
            let s = Sample(context: scratch)
            s.name = "new"
            return s
        }
        try scratch.performAndWait { try scratch.save() }
        try root.performAndWait { try root.save() }
        try scratch.performAndWait {
            #expect(entry.name == "new")
            entry.name = "renamed"
            try scratch.save()
        }
        try root.performAndWait {
            #expect(root.updatedObjects.count == 1)
            try root.save()
        }
        #expect(try storedNames(stack) == ["renamed"])
        try scratch.performAndWait {
            let found = try scratch.fetch(FetchRequest<Sample>())
            #expect(found.count == 1)
            #expect(found[0] === entry)
        }
    }

    @Test func permanentIDsObtainedInAChildResolveInTheMainAndRootContexts() async throws {
        let stack = try TestStack()
        let root = stack.privateContext("root")
        let main = ManagedObjectContext(concurrencyType: .mainQueue)
        main.parent = root
        let scratch = child(of: main)
        let id: ManagedObjectID = try scratch.performAndWait {
            let s = Sample(context: scratch)
            s.name = "permanent"
            try scratch.obtainPermanentIDs(for: [s])
            #expect(!s.objectID.isTemporaryID)
            try scratch.save()
            return s.objectID
        }
        let nameInMain = try await main.perform { ((try main.existingObject(with: id)) as! Sample).name }
        #expect(nameInMain == "permanent")
        try await main.perform { try main.save() }
        try root.performAndWait {
            #expect((try root.existingObject(with: id) as! Sample).name == "permanent")
            try root.save()
        }
        let pk = try stack.rawRead { db in try Int64.fetchOne(db, sql: "SELECT Z_PK FROM ZSAMPLE") }
        #expect(pk == id.primaryKey)
    }

    @Test func aParentAndItsChildNeverConflict() throws {
        let stack = try TestStack()
        let root = stack.privateContext("root")
        let id: ManagedObjectID = try root.performAndWait {
            let s = Sample(context: root)
            s.name = "v0"
            try root.save()
            return s.objectID
        }
        let scratch = child(of: root)
        scratch.performAndWait { (scratch.object(with: id) as! Sample).name = "child edit" }
        root.performAndWait { (root.object(with: id) as! Sample).name = "parent edit" }
        try scratch.performAndWait { try scratch.save() }
        try root.performAndWait {
            #expect((root.object(with: id) as! Sample).name == "child edit")
            try root.save()
        }
        #expect(try storedNames(stack) == ["child edit"])
    }

    @Test func cancellingAnEditInAChildScratchpadLeavesNoTrace() throws {
        let stack = try TestStack()
        let root = stack.privateContext("root")
        try root.performAndWait {
            Sample(context: root).name = "existing"
            try root.save()
        }
        let scratch = child(of: root)
        scratch.performAndWait {
            let entry = Sample(context: scratch)  // "add" tapped
            entry.name = "cancelled"
            // "cancel" tapped: the scratchpad is dropped without saving.
        }
        try root.performAndWait {
            #expect(!root.hasChanges)
            try root.save()
            let names = try root.fetch(FetchRequest<Sample>()).compactMap(\.name)
            #expect(names == ["existing"])
        }
        #expect(try storedNames(stack) == ["existing"])
    }

    /// parent → child → parent on one thread: the child's fetch asks the parent,
    /// whose queue this thread already holds. Reentrant, as in Core Data; before
    /// the fix it hung in dispatch_sync.
    @Test func nestedPerformAndWaitThroughAChildIsReentrant() throws {
        let stack = try TestStack()
        let parent = stack.privateContext("parent")
        try parent.performAndWait {
            Sample(context: parent).name = "row"
            try parent.save()
        }
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var count = -1
        Thread {
            parent.performAndWait {
                count = child.performAndWait { (try? child.count(for: FetchRequest<Sample>())) ?? -2 }
            }
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 10) == .success, "nested performAndWait deadlocked")
        #expect(count == 1)
    }

    @Test func notificationsCarryTheChanges() async throws {
        let stack = try TestStack()
        let c = stack.privateContext()
        let recorder = NotificationRecorder()
        let tokens = [
            ManagedObjectContext.didChangeObjectsNotification, ManagedObjectContext.willSaveObjectsNotification,
            ManagedObjectContext.didSaveObjectsNotification,
        ].map { name in NotificationCenter.default.addObserver(forName: name, object: c, queue: nil) { recorder.record($0) } }
        defer { tokens.forEach { NotificationCenter.default.removeObserver($0) } }
        await c.perform {
            Sample(context: c).name = "a"
        }
        try await c.perform { try c.save() }
        let names = recorder.names
        #expect(names == ["ManagedObjectContextObjectsDidChange", "ManagedObjectContextWillSave", "ManagedObjectContextDidSave"])
        let saved = recorder.lastSave
        #expect(saved?.inserted.count == 1)
        #expect(saved?.inserted.first?.isTemporaryID == false)
    }

    /// Core Data posts will-save and did-save for a save with nothing to save, the
    /// did-save with empty sets: MagicalRecord's issue 147 (2012) names the "possible
    /// empty notification", and Core Data by Tutorials' CampgroundManager tests wait for
    /// the view context's did-save after saving it with no changes of its own
    /// (testRootContextIsSavedAfterAddingCamper).
    @Test func aSaveWithNothingToSavePostsBothSaveNotificationsEmpty() async throws {
        let stack = try TestStack()
        let c = stack.privateContext()
        let recorder = NotificationRecorder()
        let tokens = [ManagedObjectContext.willSaveObjectsNotification, ManagedObjectContext.didSaveObjectsNotification].map { name in
            NotificationCenter.default.addObserver(forName: name, object: c, queue: nil) { recorder.record($0) }
        }
        defer { tokens.forEach { NotificationCenter.default.removeObserver($0) } }
        try await c.perform { try c.save() }
        #expect(recorder.names == ["ManagedObjectContextWillSave", "ManagedObjectContextDidSave"])
        #expect(recorder.lastSave == SaveChanges() && recorder.lastSave?.isEmpty == true)
        try await c.perform {
            Sample(context: c).name = "b"
            try c.save()
        }
        #expect(recorder.names.count == 4 && recorder.lastSave?.inserted.count == 1 && recorder.lastSave?.isEmpty == false)
    }
}

final class NotificationRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var notes: [(String, SaveChanges?)] = []
    func record(_ n: Notification) {
        lock.withLock { notes.append((n.name.rawValue, n.name == ManagedObjectContext.didSaveObjectsNotification ? SaveChanges(n) : nil)) }
    }
    var names: [String] { lock.withLock { notes.map(\.0) } }
    var lastSave: SaveChanges? { lock.withLock { notes.last(where: { $0.1 != nil })?.1 } }
}
