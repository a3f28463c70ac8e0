import Foundation
import Testing
import TestSupport

@_spi(CoreData) import ManagedContext
@testable import CoreData

/// The policy of the Contacts 1 → 2 mapping model (Fixtures/Contacts1to2.xcmappingmodel,
/// `CoreDataTests.PersonSplitPolicy`): splits `name` into `firstName` and `lastName`,
/// and re-types `age` from a string to an Integer 16, after Core Data's default
/// instance creation ("Customizing the Migration Process": override
/// `createDestinationInstances(forSource:in:manager:)`, call super, then find the new
/// instance with `destinationInstances(forEntityMappingName:sourceInstances:)`).
final class PersonSplitPolicy: NSEntityMigrationPolicy {
    override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        guard let made = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance]).first else { return }
        let parts = (sInstance.value(forKey: "name") as? String ?? "").split(separator: " ", maxSplits: 1).map(String.init)
        made.setValue(parts.first, forKey: "firstName")
        made.setValue(parts.count > 1 ? parts[1] : nil, forKey: "lastName")
        made.setValue(NSNumber(value: Int16(sInstance.value(forKey: "age") as? String ?? "") ?? 0), forKey: "age")
    }
}

/// The three-version Contacts model (Fixtures/Contacts.xcdatamodeld):
/// 1 → 2 by the mapping model and its policy (an attribute split in two, one re-typed from
/// String to Integer 16, one renamed with a renaming identifier), 2 → 3 inferred (Integer
/// 16 re-typed to Integer 64, an attribute added, one made mandatory with a default, a
/// new entity, a to-one relationship made to-many). Core Data's process: "The Migration
/// Process" and "Mapping Overview", Core Data Model Versioning and Data Migration
/// Programming Guide; lightweight rules: "Migrating your data model automatically",
/// https://developer.apple.com/documentation/coredata/migrating-your-data-model-automatically.
@Suite struct MappingMigrationTests {
    static let people = 120

    static func version(_ n: Int) throws -> NSManagedObjectModel {
        let name = n == 1 ? "Contacts" : "Contacts \(n)"
        return try #require(NSManagedObjectModel(contentsOf: Fixtures.url("Contacts.xcdatamodeld/\(name).xcdatamodel")))
    }

    static func current() throws -> NSManagedObjectModel {
        try #require(NSManagedObjectModel(contentsOf: Fixtures.url("Contacts.xcdatamodeld")))
    }

    /// A version 1 store: `people` people, every third without an address, one with a
    /// one-word name.
    static func v1Store(at url: URL) throws {
        NSEntityMigrationPolicy.register(PersonSplitPolicy.self)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try version(1))
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(.privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for i in 0..<people {
                let p = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
                p.setValue(i == 7 ? "Plato" : "First\(i) Last \(i)", forKey: "name")
                p.setValue("\(20 + i % 50)", forKey: "age")
                p.setValue("p\(i)@example.org", forKey: "email")
                if i % 3 != 0 {
                    let a = NSEntityDescription.insertNewObject(forEntityName: "Address", into: context)
                    a.setValue("\(i) Main Street", forKey: "street")
                    a.setValue("City \(i % 7)", forKey: "city")
                    p.setValue(a, forKey: "address")
                }
            }
            try context.save()
        }
        coordinator.removePersistentStore()
    }

    static func open(_ model: NSManagedObjectModel, _ url: URL, options: [AnyHashable: Any]? = nil) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        let context = NSManagedObjectContext(.privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    static var automatic: [AnyHashable: Any] { [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true] }

    /// Every row of the version 1 store, in version 3's shape.
    static func expectVersion3(_ url: URL) throws {
        let model = try current()
        #expect(try StoreFit.of(storeAt: url, model: model.runtimeModel) == .matches)
        let context = try open(model, url)
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
            let people = try context.fetch(request)
            #expect(people.count == Self.people)
            var addresses = 0
            for p in people {
                let email = try #require(p.value(forKey: "emailAddress") as? String)
                let i = try #require(Int(email.dropFirst().prefix { $0 != "@" }))
                #expect(p.value(forKey: "firstName") as? String == (i == 7 ? "Plato" : "First\(i)"))
                // Optional in 2, mandatory with a default in 3: the default fills it.
                #expect(p.value(forKey: "lastName") as? String == (i == 7 ? "" : "Last \(i)"))
                #expect((p.value(forKey: "age") as? NSNumber)?.int64Value == Int64(20 + i % 50))
                #expect(p.value(forKey: "nickname") == nil)
                let address = try #require(p.value(forKey: "address") as? NSSet)
                #expect(address.count == (i % 3 == 0 ? 0 : 1))
                if let a = address.anyObject() as? NSManagedObject {
                    addresses += 1
                    #expect(a.value(forKey: "street") as? String == "\(i) Main Street")
                    #expect((a.value(forKey: "resident") as? NSManagedObject) === p)
                }
            }
            #expect(addresses == Self.people - (Self.people + 2) / 3)
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Address")) == addresses)
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Tag")) == 0)
        }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        let hashes = try #require(metadata[NSStoreModelVersionHashesKey] as? [String: Any])
        #expect(Set(hashes.keys) == ["Person", "Address", "Tag"])
        for (name, hash) in model.entityVersionHashesByName { #expect(hashes[name] as? Data == hash) }
    }

    static func leftovers(beside url: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path).filter { $0.hasPrefix(".") }
    }

    @Test func aVersion1StoreOpensWithVersion3ThroughTheOptions() throws {
        let dir = TempDirectory("migration")
        let url = dir.file("Contacts.sqlite")
        try Self.v1Store(at: url)
        _ = try Self.open(try Self.current(), url, options: Self.automatic)
        try Self.expectVersion3(url)
        #expect(try Self.leftovers(beside: url).isEmpty, "no scratch store is left behind")
    }

    @Test func aVersion1StoreOpensWithVersion3ThroughTheMigrationManager() throws {
        let dir = TempDirectory("migration")
        let url = dir.file("Contacts.sqlite"), middle = dir.file("Contacts-2.sqlite"), last = dir.file("Contacts-3.sqlite")
        try Self.v1Store(at: url)
        let (v1, v2, v3) = (try Self.version(1), try Self.version(2), try Self.current())
        let mapping = try #require(NSMappingModel(contentsOf: Fixtures.url("Contacts1to2.xcmappingmodel")))
        #expect(mapping.entityMappingsByName["PersonToPerson"]?.entityMigrationPolicyClassName == "CoreDataTests.PersonSplitPolicy")
        let first = NSMigrationManager(sourceModel: v1, destinationModel: v2)
        var progress: [Float] = []
        first.progressHandler = { progress.append($0) }
        try first.migrateStore(from: url, type: .sqlite, mapping: mapping, to: middle, type: .sqlite)
        #expect(first.migrationProgress == 1)
        // The two contexts belong to the migrating thread, so a policy reads its source
        // instance and writes its destination one in one method with no wrong-queue report
        // (CoreDataMigrationRevised-Example's Post2ToPost3MigrationPolicy, under ctxdebug check).
        #expect(first.sourceContext.isConfinement && first.destinationContext.isConfinement)
        #expect(progress == progress.sorted() && progress.last == 1)
        #expect(first.destinationInstances(forEntityMappingName: "PersonToPerson", sourceInstances: nil).count == Self.people)
        // A to-one made to-many moves its links out of the table: never made in place
        // (dropping the column would lose them), so 2 → 3 goes through a new store.
        if case .differs(let summary) = try StoreFit.of(storeAt: middle, model: v3.runtimeModel) {
            #expect(summary.contains("to-one in the store and to-many in the model"), "\(summary)")
        } else {
            Issue.record("a to-one made to-many was found to migrate in place")
        }
        let inferred = try NSMappingModel.inferredMappingModel(forSourceModel: v2, destinationModel: v3)
        try NSMigrationManager(sourceModel: v2, destinationModel: v3).migrateStore(from: middle, type: .sqlite, mapping: inferred, to: last, type: .sqlite)
        try Self.expectVersion3(last)
        // The source stores are read-only to a migration: version 1 is still version 1.
        #expect(try StoreFit.of(storeAt: url, model: v1.runtimeModel) == .matches)
    }

    @Test func theMappingModelIsFoundInTheBundleForItsTwoModelsOnly() throws {
        let bundle = try #require(Bundle(path: Fixtures.directory.path))
        let (v1, v2, v3) = (try Self.version(1), try Self.version(2), try Self.version(3))
        let found = try #require(NSMappingModel(from: [bundle], forSourceModel: v1, destinationModel: v2))
        #expect(Set(found.entityMappingsByName.keys) == ["AddressToAddress", "PersonToPerson"])
        let person = try #require(found.entityMappingsByName["PersonToPerson"])
        #expect(person.mappingType == .transformEntityMappingType)
        #expect(person.sourceEntityVersionHash == v1.entitiesByName["Person"]?.versionHash)
        // Xcode's generated expression follows the renaming identifier (email → emailAddress).
        let email = person.attributeMappings?.first { $0.name == "emailAddress" }
        #expect(email?.valueExpression?.description == "$source.email")
        #expect(person.attributeMappings?.first { $0.name == "firstName" }?.valueExpression == nil)
        #expect(person.relationshipMappings?.first?.valueExpression?.description.hasPrefix("FUNCTION($manager, ") == true)
        #expect(NSMappingModel(from: [bundle], forSourceModel: v2, destinationModel: v3) == nil)
    }

    @Test func aMigrationThatFailsLeavesTheDestinationAsItWas() throws {
        let dir = TempDirectory("migration")
        let url = dir.file("Contacts.sqlite"), destination = dir.file("Existing.sqlite")
        try Self.v1Store(at: url)
        try Self.v1Store(at: destination)
        let before = ["", "-wal"].map { FileManager.default.contents(atPath: destination.path + $0) }
        let mapping = try #require(NSMappingModel(contentsOf: Fixtures.url("Contacts1to2.xcmappingmodel")))
        mapping.entityMappingsByName["PersonToPerson"]?.entityMigrationPolicyClassName = "NoSuchPolicy"
        #expect {
            try NSMigrationManager(sourceModel: try Self.version(1), destinationModel: try Self.version(2))
                .migrateStore(from: url, type: .sqlite, mapping: mapping, to: destination, type: .sqlite)
        } throws: { error in
            let e = error as NSError
            return e.code == NSEntityMigrationPolicyError && e.localizedDescription.contains("NoSuchPolicy")
        }
        #expect(["", "-wal"].map { FileManager.default.contents(atPath: destination.path + $0) } == before)
        #expect(try Self.leftovers(beside: url).isEmpty)
    }

    @Test func aCancelledMigrationThrowsTheCancellingError() throws {
        final class Cancelling: NSEntityMigrationPolicy {
            override func begin(_ mapping: NSEntityMapping, with manager: NSMigrationManager) throws {
                manager.cancelMigrationWithError(NSError(domain: NSCocoaErrorDomain, code: NSMigrationCancelledError))
            }
        }
        NSEntityMigrationPolicy.register(Cancelling.self)
        let dir = TempDirectory("migration")
        let url = dir.file("Contacts.sqlite")
        try Self.v1Store(at: url)
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: try Self.version(1), destinationModel: try Self.version(1))
        mapping.entityMappings.first?.entityMigrationPolicyClassName = "Cancelling"
        #expect {
            try NSMigrationManager(sourceModel: try Self.version(1), destinationModel: try Self.version(1))
                .migrateStore(from: url, type: .sqlite, mapping: mapping, to: dir.file("Copy.sqlite"), type: .sqlite)
        } throws: { ($0 as NSError).code == NSMigrationCancelledError }
        #expect(!FileManager.default.fileExists(atPath: dir.file("Copy.sqlite").path))
    }

    @Test func withoutInferenceAndWithoutAMappingModelTheStoreIsRefused() throws {
        let dir = TempDirectory("migration")
        let url = dir.file("Contacts.sqlite")
        try Self.v1Store(at: url)
        let before = FileManager.default.contents(atPath: url.path)
        #expect {
            _ = try Self.open(try Self.version(3), url, options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: false])
        } throws: { ($0 as NSError).code == NSMigrationMissingMappingModelError }
        #expect(FileManager.default.contents(atPath: url.path) == before)
    }
}
