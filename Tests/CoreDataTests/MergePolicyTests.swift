import CoreData
import TestSupport
import Testing

/// A subclass as apps write one: it records what the save handed it, changes the
/// conflicting objects, then lets the type's own resolution finish (`super`).
/// Apple's documentation of `resolve(optimisticLockingConflicts:)`: "Resolves the
/// conflicts in a given list"; subclasses override it and call super.
final class TitleMarkingPolicy: NSMergePolicy {
    nonisolated(unsafe) var seen: [(title: String?, persisted: String?, oldVersion: Int, newVersion: Int)] = []

    init() { super.init(merge: .mergeByPropertyObjectTrumpMergePolicyType) }

    override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
        for conflict in list {
            let note = conflict.sourceObject as! Note
            seen.append((note.title, conflict.persistedSnapshot?["title"] as? String, conflict.oldVersionNumber, conflict.newVersionNumber))
            note.title = (note.title ?? "") + " (merged)"
        }
        try super.resolve(optimisticLockingConflicts: list)
    }
}

/// A subclass that refuses every conflict, as an app's "never merge silently" policy.
final class RefusingPolicy: NSMergePolicy {
    struct Refused: Error {}
    init() { super.init(merge: .mergeByPropertyObjectTrumpMergePolicyType) }
    override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws { throw Refused() }
}

@Suite("NSMergePolicy as Core Data has it: a class, its types, subclasses")
struct MergePolicyTests {
    /// One note saved, then changed by two contexts in turn: `b` saves after `a`, with
    /// the note it loaded before `a`'s save (a conflict at `b`'s save).
    static func conflict(policy: NSMergePolicy, in dir: TempDirectory) throws -> (NSPersistentContainer, NSManagedObjectContext, Note) {
        let container = try NotesModel.container(in: dir)
        let seed = container.newBackgroundContext()
        let id = try seed.performAndWait {
            let note = Note(context: seed)
            note.title = "first"
            try seed.save()
            return note.objectID
        }
        let a = container.newBackgroundContext()
        let b = container.newBackgroundContext()
        b.mergePolicy = policy
        let mine = try b.performAndWait {
            let note = try b.existingObject(with: id) as! Note
            note.title = "b's"
            return note
        }
        try a.performAndWait {
            (try a.existingObject(with: id) as! Note).title = "a's"
            try a.save()
        }
        return (container, b, mine)
    }

    static func storedTitle(_ container: NSPersistentContainer) throws -> String? {
        let reader = container.newBackgroundContext()
        return try reader.performAndWait { try reader.fetch(NSFetchRequest<Note>(entityName: "Note")).first?.title }
    }

    @Test("NSMergePolicyType has Core Data's raw values")
    func typesHaveCoreDatasRawValues() {
        let types: [NSMergePolicyType] = [
            .errorMergePolicyType, .mergeByPropertyStoreTrumpMergePolicyType, .mergeByPropertyObjectTrumpMergePolicyType,
            .overwriteMergePolicyType, .rollbackMergePolicyType,
        ]
        #expect(types.map(\.rawValue) == [0, 1, 2, 3, 4])
    }

    @Test("the shared policies and the globals are NSMergePolicy objects of their types")
    func sharedPoliciesAndGlobals() {
        let pairs: [(NSMergePolicy, NSMergePolicy, NSMergePolicyType)] = [
            (.error, NSErrorMergePolicy, .errorMergePolicyType),
            (.mergeByPropertyStoreTrump, NSMergeByPropertyStoreTrumpMergePolicy, .mergeByPropertyStoreTrumpMergePolicyType),
            (.mergeByPropertyObjectTrump, NSMergeByPropertyObjectTrumpMergePolicy, .mergeByPropertyObjectTrumpMergePolicyType),
            (.overwrite, NSOverwriteMergePolicy, .overwriteMergePolicyType),
            (.rollback, NSRollbackMergePolicy, .rollbackMergePolicyType),
        ]
        for (shared, global, type) in pairs {
            #expect(shared === global)
            #expect(shared.mergeType == type)
        }
        #expect(NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType).mergePolicy.mergeType == .errorMergePolicyType)
    }

    /// `NSMergePolicy(merge:)`, as apps set it: `context.mergePolicy = NSMergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)`.
    @Test("a policy made with init(merge:) resolves as its type: object trump keeps the context's title")
    func initMergeResolvesAsItsType() throws {
        let dir = TempDirectory("merge-policy")
        let (container, b, _) = try Self.conflict(policy: NSMergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType), in: dir)
        try b.performAndWait { try b.save() }
        #expect(try Self.storedTitle(container) == "b's")
        #expect((b.mergePolicy as NSMergePolicy).mergeType == .mergeByPropertyObjectTrumpMergePolicyType)
    }

    @Test("store trump made with init(mergeType:) keeps the store's title")
    func initMergeTypeStoreTrump() throws {
        let dir = TempDirectory("merge-policy")
        let (container, b, _) = try Self.conflict(policy: NSMergePolicy(mergeType: .mergeByPropertyStoreTrumpMergePolicyType), in: dir)
        try b.performAndWait { try b.save() }
        #expect(try Self.storedTitle(container) == "a's")
    }

    @Test("a subclass's resolve(optimisticLockingConflicts:) runs on the context's queue with each conflict, and what it changes is saved")
    func subclassResolveIsCalledAndItsChangesSaved() throws {
        let dir = TempDirectory("merge-policy")
        let policy = TitleMarkingPolicy()
        let (container, b, _) = try Self.conflict(policy: policy, in: dir)
        try b.performAndWait { try b.save() }
        #expect(policy.seen.count == 1)
        #expect(policy.seen.first?.title == "b's")
        #expect(policy.seen.first?.persisted == "a's")
        #expect(policy.seen.first?.oldVersion == 1)
        #expect(policy.seen.first?.newVersion == 2)
        #expect(try Self.storedTitle(container) == "b's (merged)")
        #expect(b.performAndWait { !b.hasChanges })
    }

    @Test("a subclass that throws fails the save, nothing written, the context's changes kept")
    func subclassThatThrowsFailsTheSave() throws {
        let dir = TempDirectory("merge-policy")
        let (container, b, mine) = try Self.conflict(policy: RefusingPolicy(), in: dir)
        #expect(throws: (any Error).self) { try b.performAndWait { try b.save() } }
        #expect(try Self.storedTitle(container) == "a's")
        #expect(b.performAndWait { b.hasChanges && mine.title == "b's" })
    }

    @Test("a subclass is not asked when nothing conflicts")
    func subclassNotCalledWithoutConflicts() throws {
        let dir = TempDirectory("merge-policy")
        let container = try NotesModel.container(in: dir)
        let context = container.newBackgroundContext()
        let policy = TitleMarkingPolicy()
        context.mergePolicy = policy
        try context.performAndWait {
            Note(context: context).title = "only"
            try context.save()
        }
        #expect(policy.seen.isEmpty)
    }

    /// Core Data's 133020 (NSManagedObjectMergeError) carries its NSMergeConflicts under
    /// "conflictList", each with its `sourceObject` (Apple's NSMergeConflict documentation).
    @Test("the error policy's conflict is NSManagedObjectMergeError with a conflictList of NSMergeConflicts")
    func errorPolicyConflictList() throws {
        let dir = TempDirectory("merge-policy")
        let (_, b, mine) = try Self.conflict(policy: .error, in: dir)
        do {
            try b.performAndWait { try b.save() }
            Issue.record("the save did not fail")
        } catch {
            // `error as NSError`: Linux has no bridging cast, so `catch let error as NSError`
            // does not match a Swift error there.
            let error = error as NSError
            #expect(error.domain == NSCocoaErrorDomain)
            #expect(error.code == NSManagedObjectMergeError)
            let list = try #require(error.userInfo["conflictList"] as? [NSMergeConflict])
            #expect(list.count == 1)
            b.performAndWait {
                #expect(list.first?.sourceObject === mine)
                #expect(list.first?.persistedSnapshot?["title"] as? String == "a's")
            }
        }
    }
}

/// Core Data's error constants and the `CocoaError.Code` members have Core Data's values
/// (CoreDataErrors.h), and the runtime's errors carry them.
@Suite("Core Data's error codes")
struct CoreDataErrorCodeTests {
    @Test("the constants have CoreDataErrors.h's values, and CocoaError.Code's members agree")
    func constantsAndCodes() {
        #expect(NSValidationMissingMandatoryPropertyError == 1570)
        #expect(NSManagedObjectMergeError == 133020)
        #expect(NSManagedObjectConstraintMergeError == 133021)
        #expect(NSPersistentStoreIncompatibleVersionHashError == 134100)
        #expect(NSMigrationError == 134110)
        #expect(NSCoreDataError == 134060)
        #expect(NSPersistentHistoryTokenExpiredError == 134301)
        #expect(CocoaError.Code.managedObjectMerge.rawValue == NSManagedObjectMergeError)
        #expect(CocoaError.Code.managedObjectMergeError.rawValue == NSManagedObjectMergeError)
        #expect(CocoaError.Code.validationMissingMandatoryProperty.rawValue == 1570)
        #expect(CocoaError.Code.coreData.rawValue == NSCoreDataError)
        #expect(CocoaError.Code.sqliteError.rawValue == NSSQLiteError)
        #expect(CocoaError.managedObjectConstraintMerge.rawValue == 133021)
        #expect(NSValidationKeyErrorKey == "NSValidationErrorKey")
    }

    @Test("a missing required value and a conflict come back with the named codes")
    func runtimeErrorsCarryTheNamedCodes() throws {
        let dir = TempDirectory("error-codes")
        let container = try NotesModel.container(in: dir, model: NotesModel.make(titleOptional: false))
        let context = container.newBackgroundContext()
        context.performAndWait {
            _ = Note(context: context)
            do {
                try context.save()
                Issue.record("the save did not fail")
            } catch {
                let error = error as NSError
                #expect(error.code == NSValidationMissingMandatoryPropertyError)
                #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "title")
            }
        }
    }
}
