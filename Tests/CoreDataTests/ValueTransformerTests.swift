import CoreData
import Foundation
import GRDB
import TestSupport
import Testing

/// A value of the app's own that a transformer keeps as "x,y".
final class GridPoint: NSObject {
    let x: Int, y: Int
    init(x: Int, y: Int) { self.x = x; self.y = y }
}

/// A custom transformer, as Core Data asks: "transform an instance of the non-standard
/// data type into an instance of NSData and support reverse transformation".
final class GridPointTransformer: ValueTransformer, @unchecked Sendable {
    override class func transformedValueClass() -> AnyClass { NSData.self }
    override class func allowsReverseTransformation() -> Bool { true }
    override func transformedValue(_ value: Any?) -> Any? {
        guard let point = value as? GridPoint else { return nil }
        return Data("\(point.x),\(point.y)".utf8)
    }
    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data, let text = String(data: data, encoding: .utf8) else { return nil }
        let parts = text.split(separator: ",").compactMap { Int($0) }
        return parts.count == 2 ? GridPoint(x: parts[0], y: parts[1]) : nil
    }
}

/// An unarchiving transformer subclass, the shape apps register for their colors.
final class TagListTransformer: NSSecureUnarchiveFromDataTransformer, @unchecked Sendable {
    nonisolated(unsafe) static var archived = 0
    override class var allowedTopLevelClasses: [AnyClass] { [NSArray.self, NSString.self] }
    override func reverseTransformedValue(_ value: Any?) -> Any? {
        Self.archived += 1
        return super.reverseTransformedValue(value)
    }
}

/// Transformable attributes through named transformers. Apple: a transformable
/// attribute's `valueTransformerName` names "the transformer used to convert the
/// attribute's value"; a custom one must "transform an instance of the non-standard data
/// type into an instance of NSData and support reverse transformation" (Core Data
/// Programming Guide, "Non-Standard Persistent Attributes"); `NSSecureUnarchiveFromDataTransformer`
/// "converts data to and from classes that support secure coding", its `transformedValue`
/// unarchiving, and subclasses list `allowedTopLevelClasses`; transformers are found by
/// the name `ValueTransformer.setValueTransformer(_:forName:)` registered.
@Suite("Value transformers", .serialized)
struct ValueTransformerTests {
    static func container(at url: URL, transformer: String) throws -> NSPersistentContainer {
        let place = NSEntityDescription()
        place.name = "Place"
        let name = NSAttributeDescription()
        name.name = "name"
        name.attributeType = .stringAttributeType
        let value = NSAttributeDescription()
        value.name = "value"
        value.attributeType = .transformableAttributeType
        value.valueTransformerName = transformer
        place.properties = [name, value]
        let model = NSManagedObjectModel()
        model.entities = [place]
        let container = NSPersistentContainer(name: "Places", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    static func save(_ value: Any, in container: NSPersistentContainer) throws {
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let place = NSEntityDescription.insertNewObject(forEntityName: "Place", into: context)
            place.setValue("home", forKey: "name")
            place.setValue(value, forKey: "value")
            try context.save()
        }
    }

    static func fetchValue(in container: NSPersistentContainer) throws -> Any? {
        let context = container.newBackgroundContext()
        return try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Place")).first?.value(forKey: "value")
        }
    }

    static func column(at url: URL) throws -> Data? {
        try DatabaseQueue(path: url.path).read { db in try Data.fetchOne(db, sql: "SELECT ZVALUE FROM ZPLACE") }
    }

    @Test("a registered custom transformer stores what transformedValue makes and reads back through the reverse")
    func customTransformer() throws {
        ValueTransformer.setValueTransformer(GridPointTransformer(), forName: NSValueTransformerName("GridPointTransformer"))
        let dir = TempDirectory("coredata-transformer")
        let url = dir.file("Places.sqlite")
        let container = try Self.container(at: url, transformer: "GridPointTransformer")
        try Self.save(GridPoint(x: 3, y: 4), in: container)
        #expect(try Self.column(at: url) == Data("3,4".utf8))
        let point = try #require(try Self.fetchValue(in: container) as? GridPoint)
        #expect(point.x == 3 && point.y == 4)
    }

    @Test("an NSSecureUnarchiveFromDataTransformer subclass stores an archive through its reverse and reads it back")
    func unarchivingSubclass() throws {
        ValueTransformer.setValueTransformer(TagListTransformer(), forName: NSValueTransformerName(rawValue: "TagListTransformer"))
        let before = TagListTransformer.archived
        let dir = TempDirectory("coredata-transformer-unarchive")
        let url = dir.file("Places.sqlite")
        let container = try Self.container(at: url, transformer: "TagListTransformer")
        try Self.save(["surf", "sand"], in: container)
        #expect(TagListTransformer.archived > before)
        let data = try #require(try Self.column(at: url))
        #expect((try NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data) as? [String]) == ["surf", "sand"])
        #expect(try Self.fetchValue(in: container) as? [String] == ["surf", "sand"])
    }

    @Test("a name nothing is registered under keeps the value as a keyed archive")
    func unregisteredName() throws {
        let dir = TempDirectory("coredata-transformer-missing")
        let url = dir.file("Places.sqlite")
        let container = try Self.container(at: url, transformer: "NobodyRegisteredThis")
        try Self.save(["a"], in: container)
        #expect(try Self.fetchValue(in: container) as? [String] == ["a"])
    }

    @Test("Foundation's named transformers are registered, and a name can be removed")
    func standardTransformers() {
        let names = ValueTransformer.valueTransformerNames()
        #expect(names.contains(.secureUnarchiveFromDataTransformerName) && names.contains(.negateBooleanTransformerName) && names.contains(.isNilTransformerName))
        let scratch = NSValueTransformerName("ctxdebug.test.scratch")
        ValueTransformer.setValueTransformer(GridPointTransformer(), forName: scratch)
        #expect(ValueTransformer.valueTransformerNames().contains(scratch))
        ValueTransformer.setValueTransformer(nil, forName: scratch)
        #expect(!ValueTransformer.valueTransformerNames().contains(scratch))
    }
}
