import Foundation
import Testing
@testable import CoreData
@_spi(CoreData) import ManagedContext
import TestSupport

/// `%@` with the values of Core Data's attribute types that the runtime stores in
/// another form (UUID as 16 bytes, URI as text, Float as a double), in a model built
/// in code ("NSManagedObjectModel": "you can also create a model programmatically").
@Suite struct PredicateModelInCodeTests {
    static func itemModel() -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let a = NSAttributeDescription()
            a.name = name
            a.attributeType = type
            return a
        }
        let item = NSEntityDescription()
        item.name = "Item"
        item.managedObjectClassName = "NSManagedObject"
        item.properties = [
            attribute("key", .stringAttributeType), attribute("uid", .UUIDAttributeType), attribute("link", .URIAttributeType),
            attribute("payload", .binaryDataAttributeType), attribute("amount", .floatAttributeType),
        ]
        let model = NSManagedObjectModel()
        model.entities = [item]
        return model
    }

    static let ids = [UUID(), UUID(), UUID()]

    /// The keys of the items matching `format` in a saved store and among unsaved
    /// inserts; expects both to be the same.
    func keys(_ format: String, _ args: Any..., sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let model = Self.itemModel()
        let entity = try #require(model.runtimeModel.entity(named: "Item"))
        let declaration = try #require(model.entitiesByName["Item"])
        var results: [[String]] = []
        for save in [true, false] {
            let dir = TempDirectory("pred-items")
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model.runtimeModel)
            try coordinator.addPersistentStore(at: dir.file("Items.sqlite"))
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                let rows: [(String, UUID, URL, Data, Float)] = [
                    ("i1", Self.ids[0], URL(string: "https://example.com/a")!, Data([1, 2]), 1.25),
                    ("i2", Self.ids[1], URL(string: "https://example.com/b")!, Data([3]), 2.5),
                    ("i3", Self.ids[2], URL(string: "file:///tmp/c")!, Data(), 0.5),
                ]
                for (key, uid, link, payload, amount) in rows {
                    let o = ManagedObject(entity: entity, insertInto: context)
                    for (name, value) in [("key", key), ("uid", uid), ("link", link), ("payload", payload), ("amount", amount)] as [(String, Any)] {
                        let converted = StorageConversion.toStorage(value, of: declaration.attributesByName[name]!)!
                        o.setValue(converted, forKey: name)
                    }
                }
                if save {
                    try context.save()
                    context.reset()
                }
                var request = FetchRequest<ManagedObject>()
                request.entity = entity
                request.predicate = try PredicateTranslation.fetchPredicate(NSPredicate(format: format, argumentArray: args), entity: entity)
                results.append(try context.fetch(request).map { $0.value(forKey: "key") as! String }.sorted())
            }
        }
        #expect(results[0] == results[1], "SQL (saved) vs in memory (unsaved)", sourceLocation: sourceLocation)
        return results[0]
    }

    @Test func uuidURLDataAndFloatArguments() throws {
        #expect(try keys("uid == %@", Self.ids[1]) == ["i2"])
        #expect(try keys("uid IN %@", [Self.ids[0], Self.ids[2]]) == ["i1", "i3"])
        #expect(try keys("link == %@", URL(string: "https://example.com/a")!) == ["i1"])
        #expect(try keys("link BEGINSWITH 'https:'") == ["i1", "i2"])
        #expect(try keys("payload == %@", Data([3])) == ["i2"])
        #expect(try keys("amount > %f", 1.0) == ["i1", "i2"])
        #expect(try keys("amount == %@", Float(2.5)) == ["i2"])
    }
}
