import CoreData
import GRDB
import TestSupport
import Testing

/// Fetch indexes as Core Data's SQLite store keeps them. Apple: `NSFetchIndexDescription`
/// is "a description of an index in a fetch request's entity", `indexes` are "the
/// indexes of the entity" that speed fetching, and `isIndexed` (deprecated for them) puts
/// an index on one property. The names and SQL follow an iOS store's own schema (Apple's
/// CallHistory.storedata, as a public forensics fixture reproduces it):
/// `CREATE INDEX Z_CallRecord_byDateIndex ON ZCALLRECORD (ZDATE COLLATE BINARY ASC)` for
/// a fetch index and `ZCALLRECORD_ZINITIATOR_INDEX` for an indexed column.
@Suite("Fetch indexes")
struct FetchIndexTests {
    static func model(indexed: Bool = true) -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let a = NSAttributeDescription()
            a.name = name
            a.attributeType = type
            return a
        }
        let quake = NSEntityDescription()
        quake.name = "Quake"
        let time = attribute("time", .dateAttributeType)
        let magnitude = attribute("magnitude", .doubleAttributeType)
        let place = attribute("place", .stringAttributeType)
        place.isIndexed = indexed
        quake.properties = [time, magnitude, place]
        if indexed {
            let byTime = NSFetchIndexElementDescription(property: time, collationType: .binary)
            let byMagnitude = NSFetchIndexElementDescription(property: magnitude, collationType: .binary)
            byMagnitude.isAscending = false
            quake.indexes = [
                NSFetchIndexDescription(name: "byTime", elements: [byTime]),
                NSFetchIndexDescription(name: "byTimeAndMagnitude", elements: [byTime, byMagnitude]),
            ]
        }
        let model = NSManagedObjectModel()
        model.entities = [quake]
        return model
    }

    static func load(_ model: NSManagedObjectModel, at url: URL) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Quakes", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    static func indexes(at url: URL) throws -> [String: String] {
        let queue = try DatabaseQueue(path: url.path)
        return try queue.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZQUAKE' AND sql IS NOT NULL")
            return Dictionary(uniqueKeysWithValues: rows.map { ($0["name"] as String, $0["sql"] as String) })
        }
    }

    @Test("a model's fetch indexes and indexed attributes are SQLite indexes of a new store, in Core Data's names")
    func newStore() throws {
        let dir = try TempDirectory()
        let url = dir.url.appendingPathComponent("Quakes.sqlite")
        let container = try Self.load(Self.model(), at: url)
        let indexes = try Self.indexes(at: url)
        #expect(indexes["Z_Quake_byTime"]?.contains("ON ZQUAKE (ZTIME COLLATE BINARY ASC)") == true)
        #expect(indexes["Z_Quake_byTimeAndMagnitude"]?.contains("(ZTIME COLLATE BINARY ASC, ZMAGNITUDE COLLATE BINARY DESC)") == true)
        #expect(indexes["ZQUAKE_ZPLACE_INDEX"]?.contains("ON ZQUAKE (ZPLACE)") == true)
        let entity = try #require(container.managedObjectModel.entitiesByName["Quake"])
        #expect(entity.indexes.map(\.name) == ["byTime", "byTimeAndMagnitude"])
        #expect(entity.indexes.allSatisfy { $0.entity === entity })
        #expect(entity.indexes[1].elements.map(\.propertyName) == ["time", "magnitude"])
        #expect(entity.indexes[1].elements[1].indexDescription === entity.indexes[1])
    }

    @Test("SQLite answers a fetch's range on the indexed column from the index")
    func queryPlanUsesTheIndex() throws {
        let dir = try TempDirectory()
        let url = dir.url.appendingPathComponent("Quakes.sqlite")
        _ = try Self.load(Self.model(), at: url)
        let queue = try DatabaseQueue(path: url.path)
        let plan = try queue.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT Z_PK FROM ZQUAKE WHERE ZTIME > ? ORDER BY ZTIME", arguments: [0]).map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("USING INDEX Z_Quake_byTime") || $0.contains("USING COVERING INDEX Z_Quake_byTime") }, "\(plan)")
    }

    @Test("a store made before the model had its indexes gets them when it opens, with every row kept")
    func existingStoreGetsIndexes() throws {
        let dir = try TempDirectory()
        let url = dir.url.appendingPathComponent("Quakes.sqlite")
        do {
            let container = try Self.load(Self.model(indexed: false), at: url)
            let context = container.viewContext
            for i in 0..<3 {
                let quake = NSEntityDescription.insertNewObject(forEntityName: "Quake", into: context)
                quake.setValue(Date(timeIntervalSince1970: Double(i)), forKey: "time")
                quake.setValue("place \(i)", forKey: "place")
            }
            try context.save()
        }
        #expect(try Self.indexes(at: url)["Z_Quake_byTime"] == nil)
        let container = try Self.load(Self.model(), at: url)
        let indexes = try Self.indexes(at: url)
        #expect(indexes["Z_Quake_byTime"] != nil && indexes["ZQUAKE_ZPLACE_INDEX"] != nil)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Quake")
        request.predicate = NSPredicate(format: "place == %@", "place 2")
        #expect(try container.viewContext.fetch(request).count == 1)
        #expect(try container.viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Quake")) == 3)
    }

    @Test("an Xcode model's <fetchIndex> elements become the store's index; an R-tree element makes none")
    func xcodeModelIndexes() throws {
        let model = try XcodeModelTests.notebook()
        let note = try #require(model.entitiesByName["Note"])
        #expect(note.indexes.flatMap(\.elements).allSatisfy { $0.collationType == .binary })
        let rtree = NSFetchIndexDescription(name: "byArea", elements: [NSFetchIndexElementDescription(property: note.propertiesByName["title"]!, collationType: .rTree)])
        note.indexes.append(rtree)
        let dir = try TempDirectory()
        let url = dir.url.appendingPathComponent("Notebook.sqlite")
        _ = try Self.load(model, at: url)
        let queue = try DatabaseQueue(path: url.path)
        let names = try queue.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZNOTE'") }
        #expect(names.contains("Z_Note_byCreatedIndex"))
        #expect(names.contains("Z_Note_byTitleAndPriority"))
        #expect(!names.contains("Z_Note_byArea"))
    }
}
