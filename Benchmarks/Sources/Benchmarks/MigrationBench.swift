import CoreData
import Foundation

/// Item 17: migrating a store of `rows` people (issue 48), side by side: the same rows
/// written fresh (insert and save), a lightweight migration made in place by SQL (an
/// attribute added, one renamed, through the automatic-migration options), and two
/// migrations through `NSMigrationManager` into a new store: the inferred mapping model
/// (an attribute re-typed Integer 16 → 64, one renamed, one added) and a mapping model with
/// an entity migration policy that splits an attribute in two.
enum MigrationBench {
    static func attribute(_ name: String, _ type: NSAttributeType, renamedFrom old: String? = nil) -> NSAttributeDescription {
        let a = NSAttributeDescription()
        a.name = name
        a.attributeType = type
        a.renamingIdentifier = old
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

    static func v1() -> NSManagedObjectModel { model([attribute("name", .stringAttributeType), attribute("age", .integer16AttributeType), attribute("email", .stringAttributeType)]) }

    /// Fits in place: `email` renamed, `nickname` added.
    static func inPlace() -> NSManagedObjectModel {
        model([
            attribute("name", .stringAttributeType), attribute("age", .integer16AttributeType), attribute("emailAddress", .stringAttributeType, renamedFrom: "email"),
            attribute("nickname", .stringAttributeType),
        ])
    }

    /// Needs a mapping: `age` re-typed, and the split of `name` for the custom policy.
    static func v2() -> NSManagedObjectModel {
        model([
            attribute("name", .stringAttributeType), attribute("firstName", .stringAttributeType), attribute("lastName", .stringAttributeType),
            attribute("age", .integer64AttributeType), attribute("emailAddress", .stringAttributeType, renamedFrom: "email"),
        ])
    }

    final class SplitPolicy: NSEntityMigrationPolicy {
        override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
            try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
            guard let made = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance]).first else { return }
            let parts = (sInstance.value(forKey: "name") as? String ?? "").split(separator: " ", maxSplits: 1).map(String.init)
            made.setValue(parts.first, forKey: "firstName")
            made.setValue(parts.count > 1 ? parts[1] : nil, forKey: "lastName")
        }
    }

    /// Seconds to write `rows` people into a new store at `url`.
    static func write(rows: Int, at url: URL) throws -> Double {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: v1())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(.privateQueue)
        context.persistentStoreCoordinator = coordinator
        let t0 = benchNow()
        try context.performAndWait {
            for i in 0..<rows {
                let p = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
                p.setValue("First\(i) Last\(i)", forKey: "name")
                p.setValue(NSNumber(value: i % 90), forKey: "age")
                p.setValue("p\(i)@example.org", forKey: "email")
            }
            try context.save()
        }
        let seconds = Double(benchNow() - t0) / 1e9
        coordinator.removePersistentStore()
        return seconds
    }

    static func remove(_ url: URL) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    }

    static func run(rows: Int, repetitions: Int, work: URL) throws -> BenchItem {
        NSEntityMigrationPolicy.register(SplitPolicy.self)
        let template = work.appendingPathComponent("migration-v1.sqlite")
        remove(template)
        var fresh: [Double] = [], inPlaceRates: [Double] = [], inferredRates: [Double] = [], customRates: [Double] = []
        for _ in 0..<repetitions {
            remove(template)
            fresh.append(Double(rows) / (try write(rows: rows, at: template)))
            inPlaceRates.append(try measureInPlace(template, rows: rows, work: work))
            inferredRates.append(try measureManager(template, rows: rows, custom: false, work: work))
            customRates.append(try measureManager(template, rows: rows, custom: true, work: work))
        }
        let figures = [
            BenchFigure("writing the same rows fresh (insert, one save)", unit: "rows/s", samples: fresh),
            BenchFigure("lightweight migration in place (SQL), through the options", unit: "rows/s", samples: inPlaceRates),
            BenchFigure("NSMigrationManager, inferred mapping model, into a new store", unit: "rows/s", samples: inferredRates),
            BenchFigure("NSMigrationManager, mapping model with a splitting policy", unit: "rows/s", samples: customRates),
        ]
        let (inferred, custom) = (figures[2].median, figures[3].median)
        return BenchItem(
            id: "17", title: "Migrating a store",
            setup: [
                "A store of \(rows) Person rows (name, age as Integer 16, email), written by this runtime; each sample migrates a fresh copy of it.",
                "In place: the model renames email (renaming identifier) and adds nickname, opened with NSMigratePersistentStoresAutomaticallyOption and NSInferMappingModelAutomaticallyOption (ALTER TABLE in one transaction).",
                "Through NSMigrationManager, into a scratch store copied over the destination in one SQLite transaction: the inferred mapping (age re-typed to Integer 64, email renamed, firstName and lastName added) runs no policy of the app's and is made in SQL (usesStoreSpecificMigrationManager: one INSERT … SELECT from the source attached); the custom one fills firstName and lastName with an NSEntityMigrationPolicy that splits name, so every row is fetched from the source store, made again in the destination context and saved.",
            ],
            figures: figures,
            targets: [
                BenchTarget(what: "a migration of \(rows) rows through NSMigrationManager, inferred mapping", target: "≥ 50k rows/s", measured: "\(Int(inferred)) rows/s", met: inferred >= 50_000),
                BenchTarget(what: "a migration of \(rows) rows through NSMigrationManager, an app's policy", target: "≥ 50k rows/s", measured: "\(Int(custom)) rows/s", met: custom >= 50_000),
            ],
            detections: nil, skipped: nil, notes: [])
    }

    static func copy(_ template: URL, to url: URL) throws {
        remove(url)
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: template.path + suffix) {
            try FileManager.default.copyItem(atPath: template.path + suffix, toPath: url.path + suffix)
        }
    }

    static func measureInPlace(_ template: URL, rows: Int, work: URL) throws -> Double {
        let url = work.appendingPathComponent("migration-inplace.sqlite")
        try copy(template, to: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: inPlace())
        let t0 = benchNow()
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url,
            options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
        let seconds = Double(benchNow() - t0) / 1e9
        coordinator.removePersistentStore()
        remove(url)
        return Double(rows) / seconds
    }

    static func measureManager(_ template: URL, rows: Int, custom: Bool, work: URL) throws -> Double {
        let url = work.appendingPathComponent("migration-source.sqlite"), out = work.appendingPathComponent("migration-out.sqlite")
        try copy(template, to: url)
        remove(out)
        let (source, destination) = (v1(), v2())
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        if custom { mapping.entityMappings.first?.entityMigrationPolicyClassName = "SplitPolicy" }
        let t0 = benchNow()
        try NSMigrationManager(sourceModel: source, destinationModel: destination).migrateStore(from: url, type: .sqlite, mapping: mapping, to: out, type: .sqlite)
        let seconds = Double(benchNow() - t0) / 1e9
        remove(url)
        remove(out)
        return Double(rows) / seconds
    }
}
