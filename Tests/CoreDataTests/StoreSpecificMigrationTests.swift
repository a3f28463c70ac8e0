import Foundation
import Testing
import TestSupport

@_spi(CoreData) import ManagedContext
@testable import CoreData

/// `NSMigrationManager` with `usesStoreSpecificMigrationManager` (Core Data's default,
/// true): "If you use lightweight migration with a SQLite store, the migration is
/// performed in the store via SQL" (Core Data Model Versioning and Data Migration
/// Programming Guide, "Lightweight Migration"). Mappings that run no policy of the app's
/// and copy values as they are become `INSERT … SELECT`; the rows must be the ones the
/// objects' three stages write.
@Suite struct StoreSpecificMigrationTests {
    static func attribute(_ name: String, _ type: NSAttributeType, renamedFrom old: String? = nil, optional: Bool = true, default value: Any? = nil) -> NSAttributeDescription {
        let a = NSAttributeDescription()
        a.name = name
        a.attributeType = type
        a.renamingIdentifier = old
        a.isOptional = optional
        a.defaultValue = value
        return a
    }

    static func model(_ attributes: [NSAttributeDescription]) -> NSManagedObjectModel {
        let person = NSEntityDescription()
        person.name = "Person"
        person.managedObjectClassName = "NSManagedObject"
        person.properties = attributes
        let model = NSManagedObjectModel()
        model.entities = [person]
        return model
    }

    static func v1() -> NSManagedObjectModel {
        model([attribute("name", .stringAttributeType), attribute("age", .integer16AttributeType), attribute("email", .stringAttributeType)])
    }

    /// age widened, email renamed, an optional attribute added and a mandatory one with a default.
    static func v2(rankOptional: Bool = false, rankDefault: Any? = NSNumber(value: 7)) -> NSManagedObjectModel {
        model([
            attribute("name", .stringAttributeType), attribute("age", .integer64AttributeType), attribute("emailAddress", .stringAttributeType, renamedFrom: "email"),
            attribute("nickname", .stringAttributeType), attribute("rank", .integer32AttributeType, optional: rankOptional, default: rankDefault),
        ])
    }

    static func seed(_ url: URL, rows: Int) throws {
        let context = try MappingMigrationTests.open(v1(), url)
        try context.performAndWait {
            for i in 0..<rows {
                let p = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
                p.setValue("P\(i)", forKey: "name")
                p.setValue(NSNumber(value: i % 90), forKey: "age")
                p.setValue(i % 3 == 0 ? nil : "p\(i)@example.org", forKey: "email")
            }
            try context.save()
        }
    }

    /// Every row of the migrated store, by name, as strings.
    static func rows(_ url: URL, _ model: NSManagedObjectModel) throws -> [String] {
        let context = try MappingMigrationTests.open(model, url)
        return try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            return try context.fetch(request).map { p in
                ["name", "age", "emailAddress", "nickname", "rank"].map { "\(p.value(forKey: $0) ?? "nil")" }.joined(separator: "|")
            }
        }
    }

    static func migrate(_ url: URL, to out: URL, _ destination: NSManagedObjectModel, inSQL: Bool) throws -> NSMigrationManager {
        let source = v1()
        let manager = NSMigrationManager(sourceModel: source, destinationModel: destination)
        manager.usesStoreSpecificMigrationManager = inSQL
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        try manager.migrateStore(from: url, type: .sqlite, mapping: mapping, to: out, type: .sqlite)
        return manager
    }

    @Test func theStoresOwnMigrationWritesTheRowsTheObjectsWrite() throws {
        let dir = TempDirectory("sql-migration")
        let source = dir.file("v1.sqlite")
        try Self.seed(source, rows: 30)
        let (bySQL, byObjects) = (dir.file("sql.sqlite"), dir.file("objects.sqlite"))
        let sqlManager = try Self.migrate(source, to: bySQL, Self.v2(), inSQL: true)
        let objectManager = try Self.migrate(source, to: byObjects, Self.v2(), inSQL: false)
        #expect(sqlManager.destinationInstances(forEntityMappingName: "PersonToPerson", sourceInstances: nil).isEmpty, "made in SQL: no object")
        #expect(objectManager.destinationInstances(forEntityMappingName: "PersonToPerson", sourceInstances: nil).count == 30)
        let rows = try Self.rows(bySQL, Self.v2())
        #expect(rows.count == 30)
        #expect(rows == (try Self.rows(byObjects, Self.v2())))
        #expect(rows.contains("P1|1|p1@example.org|nil|7"), "renamed, widened, the new mandatory attribute's default")
        #expect(rows.contains("P0|0|nil|nil|7"))
        #expect(sqlManager.migrationProgress == 1)
    }

    @Test func aMigratedStoreGivesNewRowsFreshKeys() throws {
        let dir = TempDirectory("sql-migration-keys")
        let source = dir.file("v1.sqlite"), out = dir.file("v2.sqlite")
        try Self.seed(source, rows: 5)
        _ = try Self.migrate(source, to: out, Self.v2(), inSQL: true)
        let context = try MappingMigrationTests.open(Self.v2(), out)
        try context.performAndWait {
            let p = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            p.setValue("Z", forKey: "name")
            try context.save()
        }
        #expect(try Self.rows(out, Self.v2()).count == 6, "Z_PRIMARYKEY follows the copied rows: the insert took a key of its own")
    }

    /// A mandatory attribute with no default, mapped from a source attribute some rows leave
    /// nil: the objects' validation names it, and the SQL copy gives way to it.
    @Test func aMissingMandatoryValueFailsAsTheObjectsFail() throws {
        let dir = TempDirectory("sql-migration-mandatory")
        let source = dir.file("v1.sqlite")
        try Self.seed(source, rows: 6)
        let strict = Self.model([
            Self.attribute("name", .stringAttributeType), Self.attribute("age", .integer64AttributeType),
            Self.attribute("emailAddress", .stringAttributeType, renamedFrom: "email", optional: false),
        ])
        var messages: [String] = []
        for inSQL in [true, false] {
            let out = dir.file("strict-\(inSQL).sqlite")
            do { _ = try Self.migrate(source, to: out, strict, inSQL: inSQL) } catch { messages.append("\(error)") }
            #expect(!FileManager.default.fileExists(atPath: out.path), "nothing written")
        }
        #expect(messages.count == 2, "both ways fail")
        #expect(messages.allSatisfy { $0.contains("emailAddress") }, "\(messages)")
    }
}
