import Foundation
import Testing
import TestSupport

@_spi(CoreData) import ManagedContext
@testable import CoreData

/// Inferred mapping models, value expressions, staged migration and Apple's own store
/// layout. Core Data's rules: "Migrating your data model automatically"
/// (https://developer.apple.com/documentation/coredata/migrating-your-data-model-automatically),
/// and "Lightweight Migration" (Core Data Model Versioning and Data Migration Programming
/// Guide: "Changing the entity hierarchy … You can create a new parent or child entity
/// and move properties up and down the entity hierarchy").
@Suite struct InferredMigrationTests {
    typealias Contacts = MappingMigrationTests

    @Test func theInferredMappingModelNamesEachChange() throws {
        let (v2, v3) = (try Contacts.version(2), try Contacts.version(3))
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: v2, destinationModel: v3)
        let byName = mapping.entityMappingsByName
        #expect(Set(byName.keys) == ["PersonToPerson", "AddressToAddress", "AddToTag"])
        #expect(byName["AddToTag"]?.mappingType == .addEntityMappingType)
        #expect(byName["AddressToAddress"]?.mappingType == .copyEntityMappingType)
        let person = try #require(byName["PersonToPerson"])
        #expect(person.mappingType == .transformEntityMappingType)
        let attributes = Dictionary(uniqueKeysWithValues: (person.attributeMappings ?? []).map { ($0.name ?? "", $0.valueExpression?.description) })
        #expect(attributes["emailAddress"] == "$source.emailAddress")
        #expect(attributes["age"] == "$source.age", "Integer 16 → Integer 64 is stored alike: inferred")
        #expect(attributes["nickname"] == .some(nil), "a new attribute takes its default")
        let address = try #require(person.relationshipMappings?.first { $0.name == "address" }?.valueExpression)
        #expect(address.operand?.variable == "manager")
        #expect(address.function == "destinationInstancesForSourceRelationshipNamed:sourceInstances:")
    }

    @Test func aTypeChangeLightweightMigrationCannotConvertIsNamed() throws {
        // v1's age is a String, v3's an Integer 64: "You cannot use lightweight migration
        // for this" (https://stackoverflow.com/questions/17534859).
        #expect {
            _ = try NSMappingModel.inferredMappingModel(forSourceModel: try Contacts.version(1), destinationModel: try Contacts.version(3))
        } throws: { error in
            let e = error as NSError
            return e.code == NSInferredMappingModelError && e.localizedDescription.contains("Person.age")
        }
    }

    static func fleet(_ n: Int) throws -> NSManagedObjectModel {
        try #require(NSManagedObjectModel(contentsOf: Fixtures.url("Fleet.xcdatamodeld/\(n == 1 ? "Fleet" : "Fleet 2").xcdatamodel")))
    }

    /// Two separate entities given a new abstract parent, their shared attributes moved
    /// up into it: refused in place (the rows change tables), migrated through the
    /// inferred mapping model when the store is opened with the options.
    @Test func aNewParentEntityMigratesThroughTheOptions() throws {
        let dir = TempDirectory("fleet")
        let url = dir.file("Fleet.sqlite")
        let context = try Contacts.open(try Self.fleet(1), url)
        try context.performAndWait {
            for i in 0..<10 {
                let car = NSEntityDescription.insertNewObject(forEntityName: i % 2 == 0 ? "Car" : "Truck", into: context)
                car.setValue("P-\(i)", forKey: "plate")
                car.setValue(NSNumber(value: 4 + i % 2 * 2), forKey: "wheels")
            }
            try context.save()
        }
        context.persistentStoreCoordinator?.removePersistentStore()
        let current = try #require(NSManagedObjectModel(contentsOf: Fixtures.url("Fleet.xcdatamodeld")))
        if case .migratesInPlace = try StoreFit.of(storeAt: url, model: current.runtimeModel) { Issue.record("a tree change is not made in place") }
        let migrated = try Contacts.open(current, url, options: Contacts.automatic)
        try migrated.performAndWait {
            let vehicles = try migrated.fetch(NSFetchRequest<NSManagedObject>(entityName: "Vehicle"))
            #expect(vehicles.count == 10)
            #expect(Set(vehicles.map { $0.entity.name ?? "" }) == ["Car", "Truck"])
            for v in vehicles {
                let i = try #require(Int((v.value(forKey: "plate") as? String ?? "").dropFirst(2)))
                #expect(v.entity.name == (i % 2 == 0 ? "Car" : "Truck"))
                #expect((v.value(forKey: "wheels") as? NSNumber)?.intValue == 4 + i % 2 * 2)
            }
        }
    }

    /// The scratch store is saved every `NSMigrationManager.batch` instances only when that
    /// cannot change what the final save validates: no policy of the app's runs, and every
    /// mandatory attribute is mapped or has a default.
    @Test func theScratchStoreIsSavedEarlyOnlyWhenNoValidationCanTell() throws {
        let (v1, v2, v3) = (try Contacts.version(1), try Contacts.version(2), try Contacts.version(3))
        let inferred: [NSEntityMapping] = try NSMappingModel.inferredMappingModel(forSourceModel: v2, destinationModel: v3).entityMappings
        let plain = inferred.map { _ in NSEntityMigrationPolicy() }
        #expect(NSMigrationManager.canSaveEarly(inferred, plain, v3), "lastName is mandatory with a default")
        #expect(!NSMigrationManager.canSaveEarly(inferred, inferred.map { _ in PersonSplitPolicy() }, v3))
        let mandatory = try #require(NSManagedObjectModel(contentsOf: Fixtures.url("Contacts.xcdatamodeld/Contacts 3.xcdatamodel")))
        mandatory.entitiesByName["Person"]?.attributesByName["nickname"]?.isOptional = false
        let unmapped: [NSEntityMapping] = try NSMappingModel.inferredMappingModel(forSourceModel: v2, destinationModel: mandatory).entityMappings
        #expect(!NSMigrationManager.canSaveEarly(unmapped, plain, mandatory), "nickname is mandatory, unmapped and has no default")
        _ = v1
    }

    // MARK: Value expressions

    final class InitialsPolicy: NSEntityMigrationPolicy {
        override func perform(function selectorName: String, arguments: [Any?]) throws -> Any? {
            guard selectorName == "initialsOf:", let name = arguments.first as? String else { return try super.perform(function: selectorName, arguments: arguments) }
            return name.split(separator: " ").compactMap(\.first).map(String.init).joined()
        }
    }

    @Test func valueExpressionsAreParsedAndEvaluated() throws {
        NSEntityMigrationPolicy.register(InitialsPolicy.self)
        let e = NSExpression(format: "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"AToB\", $source.friends)")
        #expect(e.description == "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"AToB\", $source.friends)")
        #expect(NSExpression(format: "$source.address.city").keyPath == "$source.address.city")
        let dir = TempDirectory("expressions")
        let url = dir.file("Contacts.sqlite"), out = dir.file("Out.sqlite")
        try Contacts.v1Store(at: url)
        let (v1, v2) = (try Contacts.version(1), try Contacts.version(2))
        let mapping = try #require(NSMappingModel(contentsOf: Fixtures.url("Contacts1to2.xcmappingmodel")))
        let person = try #require(mapping.entityMappingsByName["PersonToPerson"])
        person.entityMigrationPolicyClassName = "InitialsPolicy"
        let set: [String: String] = [
            "firstName": "FUNCTION($source.name, \"uppercaseString\")", "lastName": "FUNCTION($entityPolicy, \"initialsOf:\", $source.name)",
            "age": "FUNCTION($source.age, \"intValue\")", "emailAddress": "FUNCTION($source, \"valueForKey:\", \"email\")",
        ]
        for m in person.attributeMappings ?? [] { if let f = set[m.name ?? ""] { m.valueExpression = NSExpression(format: f) } }
        try NSMigrationManager(sourceModel: v1, destinationModel: v2).migrateStore(from: url, type: .sqlite, mapping: mapping, to: out, type: .sqlite)
        let context = try Contacts.open(v2, out)
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
            request.predicate = NSPredicate(format: "emailAddress == %@", "p4@example.org")
            let p = try #require(try context.fetch(request).first)
            #expect(p.value(forKey: "firstName") as? String == "FIRST4 LAST 4")
            #expect(p.value(forKey: "lastName") as? String == "FL4")
            #expect((p.value(forKey: "age") as? NSNumber)?.intValue == 24)
        }
    }

    @Test func aFunctionLinuxCannotSendIsAClearError() throws {
        let dir = TempDirectory("expressions")
        let url = dir.file("Contacts.sqlite")
        try Contacts.v1Store(at: url)
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: try Contacts.version(1), destinationModel: try Contacts.version(1))
        let person = try #require(mapping.entityMappingsByName["PersonToPerson"])
        person.attributeMappings?.first { $0.name == "name" }?.valueExpression = NSExpression(format: "FUNCTION($source.name, \"reversedString\")")
        #expect {
            try NSMigrationManager(sourceModel: try Contacts.version(1), destinationModel: try Contacts.version(1))
                .migrateStore(from: url, type: .sqlite, mapping: mapping, to: dir.file("Out.sqlite"), type: .sqlite)
        } throws: { ($0 as NSError).localizedDescription.contains("reversedString") }
    }

    /// Xcode archives a value expression it cannot generate (`valueexpressiondata`). The
    /// archive here is made with this module's own stand-in classes under Apple's class
    /// names and keys, so this checks the reader's path through a keyed archive, not
    /// Apple's exact archive (none was at hand to compare with).
    @Test func anArchivedValueExpressionIsRead() throws {
        let source = ArchivedExpressionNode(type: 2, variable: "source")
        let key = ArchivedExpressionNode(type: 10, keyPath: "email")
        let node = ArchivedExpressionNode(type: 3, operand: source, selector: "valueForKey:", arguments: [key])
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.setClassName("NSKeyPathExpression", for: ArchivedExpressionNode.self)
        archiver.encode(node, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        let expression = try ArchivedExpression.decode(archiver.encodedData, what: "test")
        #expect(expression.description == "$source.email")
        #expect(throws: MigrationFailure.self) { try ArchivedExpression.decode(Data("not an archive".utf8), what: "test") }
    }

    /// Xcode archives a built-in function (`now()`, a value JSQCoreDataKit's Version 1 to
    /// Version 2 mapping gives a new date attribute) as an `NSFunctionExpression` whose
    /// operand is a constant naming the class `_NSPredicateUtilities`
    /// (`NSConstantValueClassName`), with no constant value: it reads as the function.
    @Test func anArchivedBuiltInFunctionIsReadAsTheFunction() throws {
        let utilities = ArchivedExpressionNode(type: 0, constantClassName: "_NSPredicateUtilities")
        let node = ArchivedExpressionNode(type: 4, operand: utilities, selector: "now", arguments: [])
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.setClassName("NSFunctionExpression", for: ArchivedExpressionNode.self)
        archiver.encode(node, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        let expression = try ArchivedExpression.decode(archiver.encodedData, what: "test")
        #expect(expression.expressionType == .function)
        #expect(expression.function == "now")
        #expect(expression.operand == nil)
    }

    // MARK: Staged migration

    @Test func aStagedMigrationRunsItsStagesWithTheirHandlers() throws {
        let dir = TempDirectory("staged")
        let url = dir.file("Contacts.sqlite"), middle = dir.file("V2.sqlite")
        try Contacts.v1Store(at: url)
        let mapping = try #require(NSMappingModel(contentsOf: Fixtures.url("Contacts1to2.xcmappingmodel")))
        try NSMigrationManager(sourceModel: try Contacts.version(1), destinationModel: try Contacts.version(2)).migrateStore(
            from: url, type: .sqlite, mapping: mapping, to: middle, type: .sqlite)
        let (v2, v3) = (try Contacts.version(2), try Contacts.current())
        let stage = NSCustomMigrationStage(
            migratingFrom: NSManagedObjectModelReference(model: v2, versionChecksum: v2.versionChecksum),
            to: NSManagedObjectModelReference(model: v3, versionChecksum: v3.versionChecksum))
        var seen: [String] = []
        stage.willMigrateHandler = { manager, _ in
            let context = manager.container.newBackgroundContext()
            let count = try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) }
            seen.append("will: \(count)")
        }
        stage.didMigrateHandler = { manager, _ in
            let context = manager.container.newBackgroundContext()
            try context.performAndWait {
                for p in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")) { p.setValue(p.value(forKey: "firstName"), forKey: "nickname") }
                try context.save()
            }
            seen.append("did")
        }
        let manager = NSStagedMigrationManager([stage])
        let context = try Contacts.open(v3, middle, options: [NSPersistentStoreStagedMigrationManagerOptionKey: manager])
        #expect(seen == ["will: \(Contacts.people)", "did"])
        try context.performAndWait {
            let people = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
            #expect(people.count == Contacts.people)
            #expect(people.allSatisfy { $0.value(forKey: "nickname") as? String == $0.value(forKey: "firstName") as? String })
        }
    }

    @Test func aLightweightStageNamesVersionsByChecksum() throws {
        let (v2, v3) = (try Contacts.version(2), try Contacts.current())
        #expect(v2.versionChecksum != v3.versionChecksum)
        #expect(v3.versionChecksum == (try Contacts.version(3)).versionChecksum, "the same version read twice has one checksum")
        let manager = NSStagedMigrationManager([NSLightweightMigrationStage([v2.versionChecksum, v3.versionChecksum])])
        let steps = try manager.steps(candidates: ModelVersions.candidates(for: v3))
        #expect(steps.map { $0.model.versionChecksum } == [v2.versionChecksum, v3.versionChecksum])
    }

    // MARK: A store Apple's Core Data wrote

    /// The chapter's seed store (written by Core Data on a device) migrates through the
    /// migration manager to a model with an attribute added and one renamed; every entry
    /// is there with its values.
    @Test func theSeedStoreMigratesThroughTheMigrationManager() throws {
        let dir = TempDirectory("seed-migration")
        let seed = dir.file("Seed.sqlite"), out = dir.file("Migrated.sqlite")
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: Fixtures.surfJournalSeed.path + suffix) {
            try FileManager.default.copyItem(atPath: Fixtures.surfJournalSeed.path + suffix, toPath: seed.path + suffix)
        }
        let source = try #require(NSManagedObjectModel(contentsOf: Fixtures.surfJournalModel))
        let destination = try #require(NSManagedObjectModel(contentsOf: Fixtures.surfJournalModel))
        let entry = try #require(destination.entitiesByName["JournalEntry"])
        let stars = NSAttributeDescription()
        stars.name = "stars"
        stars.attributeType = .integer16AttributeType
        stars.defaultValue = 3
        stars.isOptional = false
        let spot = try #require(entry.attributesByName["location"])
        spot.name = "spot"
        spot.renamingIdentifier = "location"
        entry.properties = entry.properties + [stars]
        let before = try Contacts.open(source, seed)
        let expected = try before.performAndWait { () -> [String] in
            try before.fetch(NSFetchRequest<NSManagedObject>(entityName: "JournalEntry")).map { "\($0.value(forKey: "location") ?? "-")|\($0.value(forKey: "height") ?? "-")" }.sorted()
        }
        before.persistentStoreCoordinator?.removePersistentStore()
        #expect(expected.count > 10)
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        try NSMigrationManager(sourceModel: source, destinationModel: destination).migrateStore(from: seed, type: .sqlite, mapping: mapping, to: out, type: .sqlite)
        let after = try Contacts.open(destination, out)
        try after.performAndWait {
            let entries = try after.fetch(NSFetchRequest<NSManagedObject>(entityName: "JournalEntry"))
            #expect(entries.map { "\($0.value(forKey: "spot") ?? "-")|\($0.value(forKey: "height") ?? "-")" }.sorted() == expected)
            #expect(entries.allSatisfy { ($0.value(forKey: "stars") as? NSNumber)?.intValue == 3 })
        }
    }
}
