import CoreData
import GRDB
import TestSupport
import Testing

final class Station: NSManagedObject {
    var code: String? {
        get { value(forKey: "code") as? String }
        set { setValue(newValue, forKey: "code") }
    }
    var name: String? {
        get { value(forKey: "name") as? String }
        set { setValue(newValue, forKey: "name") }
    }
}

/// Records what a save handed it, then lets the type merge.
final class RecordingConstraintPolicy: NSMergePolicy {
    nonisolated(unsafe) var seen: [(constraint: [String], values: [String: Any], database: Bool, objects: Int)] = []
    init() { super.init(merge: .mergeByPropertyObjectTrumpMergePolicyType) }
    override func resolve(constraintConflicts list: [NSConstraintConflict]) throws {
        for c in list { seen.append((c.constraint, c.constraintValues, c.databaseObject != nil, c.conflictingObjects.count)) }
        try super.resolve(constraintConflicts: list)
    }
}

/// Uniqueness constraints as Core Data's SQLite store enforces them. "Unique Constraints
/// … Core Data checks for the uniqueness … when you try to save"; under the default error
/// policy the save fails "and the error contains the conflicting objects in its
/// userInfo.conflictList"; with NSMergeByPropertyObjectTrumpMergePolicy "new data trumps
/// old data", the upsert an import wants (WWDC 2015 session 220, as described by Dorian
/// Roy, "How to implement Unique Constraints in Core Data with iOS 9"); Apple's
/// Earthquakes sample relies on it for its imports. NSConstraintConflict's documentation
/// names `databaseObject` and `conflictingObjects`.
@Suite("Uniqueness constraints")
struct UniquenessConstraintTests {
    static func model(constrained: Bool = true) -> NSManagedObjectModel {
        func attribute(_ name: String) -> NSAttributeDescription {
            let a = NSAttributeDescription()
            a.name = name
            a.attributeType = .stringAttributeType
            return a
        }
        let station = NSEntityDescription()
        station.name = "Station"
        station.managedObjectClassName = "Station"
        station.properties = [attribute("code"), attribute("name")]
        if constrained { station.uniquenessConstraints = [["code"]] }
        let model = NSManagedObjectModel()
        model.entities = [station]
        return model
    }

    static func container(at url: URL, constrained: Bool = true) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Stations", managedObjectModel: model(constrained: constrained))
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    static func seed(_ container: NSPersistentContainer, _ rows: [(String, String)]) throws {
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for (code, name) in rows {
                let s = Station(context: context)
                s.code = code
                s.name = name
            }
            try context.save()
        }
    }

    static func rows(_ container: NSPersistentContainer) throws -> [String] {
        let reader = container.newBackgroundContext()
        return try reader.performAndWait {
            let request = NSFetchRequest<Station>(entityName: "Station")
            request.sortDescriptors = [NSSortDescriptor(key: "code", ascending: true)]
            return try reader.fetch(request).map { "\($0.code ?? "nil"):\($0.name ?? "nil")" }
        }
    }

    @Test("the store has a unique index per constraint, named as Core Data names it")
    func uniqueIndexInTheSchema() throws {
        let dir = TempDirectory("constraints")
        _ = try Self.container(at: dir.file("S.sqlite"))
        let names = try DatabaseQueue(path: dir.file("S.sqlite").path).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql LIKE 'CREATE UNIQUE%'")
        }
        #expect(names == ["Z_Station_UNIQUE_code"])
    }

    @Test("under the error policy a duplicate fails the save with 133021 and a conflictList; nothing is written")
    func errorPolicyRefuses() throws {
        let dir = TempDirectory("constraints")
        let container = try Self.container(at: dir.file("S.sqlite"))
        try Self.seed(container, [("SFO", "old")])
        let context = container.newBackgroundContext()
        context.performAndWait {
            let s = Station(context: context)
            s.code = "SFO"
            s.name = "new"
            do {
                try context.save()
                Issue.record("the save did not fail")
            } catch {
                let error = error as NSError
                #expect(error.code == NSManagedObjectConstraintMergeError)
                let list = error.userInfo["conflictList"] as? [NSConstraintConflict]
                #expect(list?.count == 1)
                #expect(list?.first?.constraint == ["code"])
                #expect(list?.first?.constraintValues["code"] as? String == "SFO")
                #expect((list?.first?.databaseObject as? Station)?.name == "old")
                #expect(list?.first?.conflictingObjects.first === s)
            }
            #expect(context.hasChanges)
        }
        #expect(try Self.rows(container) == ["SFO:old"])
    }

    @Test("object trump merges an insert into the stored row: one row, the new values, the row's objectID")
    func objectTrumpUpserts() throws {
        let dir = TempDirectory("constraints")
        let container = try Self.container(at: dir.file("S.sqlite"))
        try Self.seed(container, [("SFO", "old"), ("LAX", "kept")])
        let context = container.newBackgroundContext()
        context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        try context.performAndWait {
            let s = Station(context: context)
            s.code = "SFO"
            s.name = "new"
            try context.save()
            #expect(!s.objectID.isTemporaryID)
            let fetched = try context.fetch(NSFetchRequest<Station>(entityName: "Station")).first { $0.code == "SFO" }
            #expect(fetched === s)
        }
        #expect(try Self.rows(container) == ["LAX:kept", "SFO:new"])
    }

    @Test("store trump keeps the stored row's values")
    func storeTrumpKeepsTheRow() throws {
        let dir = TempDirectory("constraints")
        let container = try Self.container(at: dir.file("S.sqlite"))
        try Self.seed(container, [("SFO", "old")])
        let context = container.newBackgroundContext()
        context.mergePolicy = NSMergePolicy(merge: .mergeByPropertyStoreTrumpMergePolicyType)
        try context.performAndWait {
            let s = Station(context: context)
            s.code = "SFO"
            s.name = "new"
            try context.save()
            #expect(s.name == "old")
        }
        #expect(try Self.rows(container) == ["SFO:old"])
    }

    @Test("two inserts of one save with the same key become one row; the later values win under object trump")
    func duplicatesWithinASave() throws {
        let dir = TempDirectory("constraints")
        let container = try Self.container(at: dir.file("S.sqlite"))
        let context = container.newBackgroundContext()
        context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        try context.performAndWait {
            let first = Station(context: context)
            first.code = "JFK"
            first.name = "first"
            let second = Station(context: context)
            second.code = "JFK"
            second.name = "second"
            try context.save()
            #expect(first.name == "second")
            #expect(second.managedObjectContext == nil, "the duplicate left the context; the first object stands for the row")
            #expect(!context.hasChanges)
        }
        #expect(try Self.rows(container) == ["JFK:second"])
    }

    @Test("an insert merged into a row the context already holds updates that object, and the insert leaves")
    func mergeIntoARegisteredObject() throws {
        let dir = TempDirectory("constraints")
        let container = try Self.container(at: dir.file("S.sqlite"))
        try Self.seed(container, [("SFO", "old")])
        let context = container.newBackgroundContext()
        context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        try context.performAndWait {
            let held = try #require(try context.fetch(NSFetchRequest<Station>(entityName: "Station")).first)
            let s = Station(context: context)
            s.code = "SFO"
            s.name = "new"
            try context.save()
            #expect(held.name == "new")
            #expect(s.managedObjectContext == nil)
            #expect(context.registeredObjects.count == 1)
        }
        #expect(try Self.rows(container) == ["SFO:new"])
    }

    @Test("a subclass's resolve(constraintConflicts:) is handed each conflict with its objects")
    func subclassSeesConstraintConflicts() throws {
        let dir = TempDirectory("constraints")
        let container = try Self.container(at: dir.file("S.sqlite"))
        try Self.seed(container, [("SFO", "old")])
        let policy = RecordingConstraintPolicy()
        let context = container.newBackgroundContext()
        context.mergePolicy = policy
        try context.performAndWait {
            let s = Station(context: context)
            s.code = "SFO"
            s.name = "new"
            try context.save()
        }
        #expect(policy.seen.count == 1)
        #expect(policy.seen.first?.constraint == ["code"])
        #expect(policy.seen.first?.database == true)
        #expect(policy.seen.first?.objects == 1)
        #expect(try Self.rows(container) == ["SFO:new"])
    }

    @Test("nil values never conflict, as in SQLite's unique index")
    func nilValuesDoNotConflict() throws {
        let dir = TempDirectory("constraints")
        let container = try Self.container(at: dir.file("S.sqlite"))
        try Self.seed(container, [])
        let context = container.newBackgroundContext()
        try context.performAndWait {
            Station(context: context).name = "a"
            Station(context: context).name = "b"
            try context.save()
        }
        #expect(try Self.rows(container).count == 2)
    }

    /// A model that gained a constraint opens a store made before it: the unique index is
    /// added when the rows allow it, and the store is refused, untouched, when they do not.
    @Test("a store made without the constraint gets its unique index, or is refused with nothing lost when its rows break it")
    func storeWithoutTheIndex() throws {
        let dir = TempDirectory("constraints")
        let clean = dir.file("Clean.sqlite"), dirty = dir.file("Dirty.sqlite")
        try Self.seed(try Self.container(at: clean, constrained: false), [("SFO", "a"), ("LAX", "b")])
        try Self.seed(try Self.container(at: dirty, constrained: false), [("SFO", "a"), ("SFO", "b")])
        let opened = try Self.container(at: clean)
        #expect(try Self.rows(opened) == ["LAX:b", "SFO:a"])
        let hasIndex = try DatabaseQueue(path: clean.path).read { db in
            try Bool.fetchOne(db, sql: "SELECT COUNT(*) > 0 FROM sqlite_master WHERE name = 'Z_Station_UNIQUE_code'") ?? false
        }
        #expect(hasIndex)
        #expect(throws: (any Error).self) { _ = try Self.container(at: dirty) }
        #expect(try Self.rows(try Self.container(at: dirty, constrained: false)) == ["SFO:a", "SFO:b"])
    }
}

@Suite("Uniqueness constraints and batch inserts")
struct ConstraintBatchInsertTests {
    /// Apple's Earthquakes sample imports with `NSBatchInsertRequest` into an entity
    /// constrained on its code: a quake already stored is updated, not inserted twice.
    @Test("a batch insert updates the rows that hold its rows' keys")
    func batchInsertUpserts() throws {
        let dir = TempDirectory("constraints")
        let container = try UniquenessConstraintTests.container(at: dir.file("S.sqlite"))
        try UniquenessConstraintTests.seed(container, [("SFO", "old")])
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let request = NSBatchInsertRequest(entityName: "Station", objects: [["code": "SFO", "name": "new"], ["code": "OAK", "name": "added"]])
            request.resultType = .objectIDs
            let result = try context.execute(request) as? NSBatchInsertResult
            #expect((result?.result as? [NSManagedObjectID])?.count == 2)
        }
        #expect(try UniquenessConstraintTests.rows(container) == ["OAK:added", "SFO:new"])
    }
}
