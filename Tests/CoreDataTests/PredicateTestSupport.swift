import Foundation
import Testing
@testable import CoreData
@_spi(CoreData) import ManagedContext
import TestSupport

// A small notes model for the predicate tests: folders hold notes (to-many, the
// inverse of Note.folder), notes hold tags (the inverse of Tag.note).

final class PFolder: ManagedObject, CustomEntityName {
    static let entityName = "Folder"
    @Attribute("key") var key: String?
    @Attribute("name") var name: String?
    @Relationship("notes", inverse: "folder") var notes: Set<PNote>
}

final class PNote: ManagedObject, CustomEntityName {
    static let entityName = "Note"
    @Attribute("key") var key: String?
    @Attribute("title") var title: String?
    @Attribute("body") var body: String?
    @Attribute("rating") var rating: Int64?
    @Attribute("score") var score: Double?
    @Attribute("done") var done: Bool?
    @Attribute("created") var created: Date?
    @Relationship("folder", inverse: "notes") var folder: PFolder?
    @Relationship("tags", inverse: "note") var tags: Set<PTag>
}

final class PTag: ManagedObject, CustomEntityName {
    static let entityName = "Tag"
    @Attribute("key") var key: String?
    @Attribute("label") var label: String?
    @Attribute("weight") var weight: Int64?
    @Relationship("note", inverse: "tags") var note: PNote?
}

let predicateModel = ManagedObjectModel(entities: [PFolder.self, PNote.self, PTag.self])

/// The dates of the sample notes.
let day0 = Date(timeIntervalSinceReferenceDate: 700_000_000)
let day1 = day0.addingTimeInterval(86_400)
let day2 = day1.addingTimeInterval(86_400)

/// One data set twice: saved in a store (fetches run in SQL) and inserted unsaved in
/// a context over an empty store (fetches run in memory over the unsaved changes).
/// Every fetch runs on both, and `evaluate(with:)` on every object; all three must agree.
final class PredicateHarness: @unchecked Sendable {
    let savedDir = TempDirectory("pred-saved")
    let memoryDir = TempDirectory("pred-memory")
    let saved: ManagedObjectContext
    let memory: ManagedObjectContext

    init() throws {
        func stack(_ dir: TempDirectory) throws -> ManagedObjectContext {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: predicateModel)
            try coordinator.addPersistentStore(at: dir.file("Notes.sqlite"))
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            return context
        }
        saved = try stack(savedDir)
        memory = try stack(memoryDir)
        try saved.performAndWait {
            Self.insertSampleData(into: saved)
            try saved.save()
            saved.reset()
        }
        memory.performAndWait { Self.insertSampleData(into: memory) }
    }

    /// Work (n1, n2), Home (n3), Café (n4), Empty (no notes); n5 has no folder.
    static func insertSampleData(into c: ManagedObjectContext) {
        func folder(_ key: String, _ name: String) -> PFolder {
            let f = PFolder(context: c)
            f.key = key
            f.name = name
            return f
        }
        let work = folder("f1", "Work"), home = folder("f2", "Home"), cafe = folder("f3", "Café")
        _ = folder("f4", "Empty")
        func note(_ key: String, _ title: String?, _ body: String?, _ rating: Int64?, _ score: Double?, _ done: Bool?, _ created: Date?, _ folder: PFolder?) -> PNote {
            let n = PNote(context: c)
            n.key = key
            n.title = title
            n.body = body
            n.rating = rating
            n.score = score
            n.done = done
            n.created = created
            n.folder = folder
            return n
        }
        let n1 = note("n1", "Alpha report", "quarterly numbers", 5, 4.5, true, day0, work)
        let n2 = note("n2", "beta Notes", "Résumé draft", 3, 2.0, false, day1, work)
        _ = note("n3", "Gamma", nil, 1, nil, false, day2, home)
        let n4 = note("n4", "delta café", "100% done", nil, 9.75, true, nil, cafe)
        let n5 = note("n5", nil, "orphan", 4, 1.0, nil, day1, nil)
        var serial = 0
        func tag(_ label: String, _ weight: Int64, _ on: PNote) {
            serial += 1
            let t = PTag(context: c)
            t.key = "t\(serial)"
            t.label = label
            t.weight = weight
            t.note = on
        }
        tag("urgent", 3, n1)
        tag("q1", 1, n1)
        tag("draft", 2, n2)
        tag("urgent", 5, n4)
        tag("draft", 1, n4)
        tag("misc", 0, n4)
        tag("q1", 4, n5)
    }

    /// The keys of the `entity` objects `predicate` matches, sorted, from the store;
    /// expects the in-memory fetch and `evaluate(with:)` to give the same keys.
    func keys(_ entity: String, _ predicate: NSPredicate, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let fromStore = try fetch(entity, predicate, in: saved)
        let fromMemory = try fetch(entity, predicate, in: memory)
        let format = predicate.formatString ?? "\(predicate)"
        #expect(fromMemory == fromStore, "in memory (unsaved) vs SQL (saved): \(format)", sourceLocation: sourceLocation)
        let evaluated = try memory.performAndWait { () throws -> [String] in
            var request = FetchRequest<ManagedObject>()
            request.entity = predicateModel.entity(named: entity)
            return try memory.fetch(request).filter { predicate.evaluate(with: $0) }.map { $0.value(forKey: "key") as! String }.sorted()
        }
        #expect(evaluated == fromStore, "evaluate(with:) vs SQL: \(format)", sourceLocation: sourceLocation)
        return fromStore
    }

    func keys(_ format: String, _ args: Any..., sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        try keys("Note", NSPredicate(format: format, argumentArray: args), sourceLocation: sourceLocation)
    }

    func fetch(_ entity: String, _ predicate: NSPredicate, in context: ManagedObjectContext, sorts: [NSSortDescriptor] = []) throws -> [String] {
        try context.performAndWait { () throws -> [String] in
            let description = predicateModel.entity(named: entity)!
            var request = FetchRequest<ManagedObject>()
            request.entity = description
            request.predicate = try PredicateTranslation.fetchPredicate(predicate, entity: description)
            request.sortDescriptors = try PredicateTranslation.sortDescriptors(sorts, entity: description)
            let keys = try context.fetch(request).map { $0.value(forKey: "key") as! String }
            return sorts.isEmpty ? keys.sorted() : keys
        }
    }

    /// The error a fetch with `predicate` throws in the saved store, or nil.
    func fetchError(_ entity: String, _ predicate: NSPredicate) -> ManagedContextError? {
        do {
            _ = try fetch(entity, predicate, in: saved)
            return nil
        } catch let e as ManagedContextError {
            return e
        } catch {
            return nil
        }
    }
}
