import Foundation
import GRDB
import Testing
import ManagedContext

@Suite struct MergeTests {
    func seededObject(_ stack: TestStack, name: String = "v0", small: Int16 = 1) throws -> ManagedObjectID {
        let c = stack.privateContext("seed")
        return try c.performAndWait {
            let s = Sample(context: c)
            s.name = name
            s.small = small
            try c.save()
            return s.objectID
        }
    }

    func observeSaves(of saver: ManagedObjectContext, into receiver: ManagedObjectContext) -> any NSObjectProtocol {
        NotificationCenter.default.addObserver(forName: ManagedObjectContext.didSaveObjectsNotification, object: saver, queue: nil) { note in
            let changes = SaveChanges(note)
            receiver.performAndWait { receiver.mergeChanges(changes) }
        }
    }

    @Test(arguments: ["main→background", "background→main", "child→main", "child→background"])
    func changesPropagateThroughDidSaveAndAMerge(path: String) async throws {
        let stack = try TestStack()
        let id = try seededObject(stack)
        let main = ManagedObjectContext(concurrencyType: .mainQueue)
        main.persistentStoreCoordinator = stack.coordinator
        main.name = "main"
        let background = stack.privateContext("background")
        let (saverRoot, receiver): (ManagedObjectContext, ManagedObjectContext) =
            switch path {
            case "main→background": (main, background)
            case "background→main": (background, main)
            case "child→main": (background, main)
            default: (main, background)
            }
        // The receiver has the object loaded, with a local unsaved change to another attribute.
        try await receiver.perform {
            let s = try receiver.existingObject(with: id) as! Sample
            s.small = 42
        }
        let saver: ManagedObjectContext
        if path.hasPrefix("child") {
            saver = ManagedObjectContext(concurrencyType: .privateQueue)
            saver.parent = saverRoot
        } else {
            saver = saverRoot
        }
        let token = observeSaves(of: saverRoot, into: receiver)
        defer { NotificationCenter.default.removeObserver(token) }
        try await saver.perform {
            (saver.object(with: id) as! Sample).name = "v1"
            Sample(context: saver).name = "inserted"
            try saver.save()
        }
        if saver !== saverRoot { try await saverRoot.perform { try saverRoot.save() } }
        let seen: (String?, Int16?, Int) = try await receiver.perform {
            let s = receiver.object(with: id) as! Sample
            return (s.name, s.small, try receiver.count(for: FetchRequest<Sample>()))
        }
        #expect(seen.0 == "v1", "the merged value")
        #expect(seen.1 == 42, "the receiver's unsaved change is kept on top")
        #expect(seen.2 == 2, "the inserted object is visible")
    }

    @Test func automaticallyMergesChangesFromParentAndSiblings() async throws {
        let stack = try TestStack()
        let id = try seededObject(stack)
        let view = ManagedObjectContext(concurrencyType: .mainQueue)
        view.persistentStoreCoordinator = stack.coordinator
        view.automaticallyMergesChangesFromParent = true
        let loaded = try await view.perform { (try view.existingObject(with: id) as! Sample).name }
        #expect(loaded == "v0")
        let background = stack.privateContext("sync")
        try await background.perform {
            (background.object(with: id) as! Sample).name = "synced"
            try background.save()
        }
        // The did-save observer enqueued the merge on the view's queue before the save
        // returned; perform blocks run in FIFO order, so the next one sees it merged.
        let merged = await view.perform { (view.object(with: id) as! Sample).name }
        #expect(merged == "synced")
    }

    /// Two contexts change the same object from the same version; the second
    /// save meets each policy.
    @Test(arguments: MergePolicy.shared)
    func mergePolicyMatrix(policy: MergePolicy) throws {
        let stack = try TestStack()
        let id = try seededObject(stack, name: "v0", small: 1)
        let first = stack.privateContext("first")
        let second = stack.privateContext("second")
        second.mergePolicy = policy
        // Both load version 1 and keep their objects (a released object's
        // snapshot goes with it, as in Core Data).
        let firstObject = first.performAndWait { first.object(with: id) as! Sample }
        let secondObject = second.performAndWait { second.object(with: id) as! Sample }
        first.performAndWait { _ = firstObject.name }
        second.performAndWait { _ = secondObject.name }
        try first.performAndWait {
            let s = firstObject
            s.name = "first"
            s.ratio = 1.5
            try first.save()
        }
        var secondError: ManagedContextError?
        var matchedByCode = false
        second.performAndWait {
            let s = secondObject
            s.name = "second"
            s.small = 2
            do {
                try second.save()
            } catch {
                secondError = error as? ManagedContextError
                if case ManagedContextError.Code.mergeConflict = error { matchedByCode = true }
            }
        }
        #expect(matchedByCode == (policy == .error), "catch ManagedContextError.Code.mergeConflict matches the conflict")
        let row = try stack.rawRead { db in try Row.fetchOne(db, sql: "SELECT ZNAME, ZSMALL, ZRATIO, Z_OPT FROM ZSAMPLE")! }
        let name: String = row["ZNAME"], small: Int = row["ZSMALL"], ratio: Double? = row["ZRATIO"], version: Int = row["Z_OPT"]
        switch policy.mergeType {
        case .errorMergePolicyType:
            #expect(secondError?.code == .mergeConflict)
            #expect(secondError?.conflicts.count == 1)
            #expect(secondError?.conflicts.first?.oldVersion == 1)
            #expect(secondError?.conflicts.first?.newVersion == 2)
            // As NSMergeConflict's snapshots: the store's row and the object's values, as Swift values.
            let conflict = secondError?.conflicts.first
            #expect(conflict?.persistedSnapshot?["name"] as? String == "first")
            #expect(conflict?.persistedSnapshot?["ratio"] as? Double == 1.5)
            #expect(conflict?.objectSnapshot?["name"] as? String == "second")
            #expect(conflict?.objectSnapshot?["small"] as? Int16 == 2)
            #expect(conflict?.objectSnapshot?["medium"] is NSNull)
            #expect((name, small, ratio, version) == ("first", 1, 1.5, 2))
            #expect(second.performAndWait { second.hasChanges })
        case .mergeByPropertyStoreTrumpMergePolicyType:
            #expect(secondError == nil)
            #expect((name, small, ratio, version) == ("first", 2, 1.5, 3))
        case .mergeByPropertyObjectTrumpMergePolicyType:
            #expect(secondError == nil)
            #expect((name, small, ratio, version) == ("second", 2, 1.5, 3))
        case .overwriteMergePolicyType:
            #expect(secondError == nil)
            #expect((name, small, ratio, version) == ("second", 2, nil, 3))
        case .rollbackMergePolicyType:
            #expect(secondError == nil)
            #expect((name, small, ratio, version) == ("first", 1, 1.5, 2))
            second.performAndWait {
                #expect(!second.hasChanges)
                #expect((second.object(with: id) as! Sample).name == "first")
            }
        }
    }
}
