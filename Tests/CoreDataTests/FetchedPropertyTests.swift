import Foundation
import GRDB
import TestSupport
import Testing
import XcodeModel

@testable import CoreData

/// Fetched properties (`NSFetchedPropertyDescription`). Apple: "a fetched property is not
/// fetched until it is requested, and the results are then cached until the object is
/// turned into a fault", and it "does not dynamically update itself as objects in the
/// destination entity change" (developer.apple.com/documentation/coredata/nsfetchedpropertydescription);
/// its predicate names the object it is read on as `$FETCH_SOURCE` (Core Data Programming
/// Guide, "Fetched Properties"). Xcode keeps one as `<fetchedProperty>` holding a
/// `<fetchRequest entity="…" predicateString="…"/>`.
@Suite struct FetchedPropertyTests {
    static let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Shelf" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="shelf" inverseEntity="Book"/>
                <fetchedProperty name="namesakes" optional="YES">
                    <fetchRequest name="fetchedPropertyFetchRequest" entity="Book" predicateString="title == $FETCH_SOURCE.name"/>
                </fetchedProperty>
                <fetchedProperty name="shelved" optional="YES">
                    <fetchRequest name="fetchedPropertyFetchRequest" entity="Book" predicateString="shelf == $FETCH_SOURCE"/>
                </fetchedProperty>
            </entity>
            <entity name="Book" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="title" optional="YES" attributeType="String"/>
                <relationship name="shelf" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Shelf" inverseName="books" inverseEntity="Shelf"/>
            </entity>
        </model>
        """

    static func model(_ dir: TempDirectory, contents: String = Self.contents) throws -> URL {
        let folder = dir.file("Shelves.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try contents.write(to: folder.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        return folder
    }

    static func container(_ dir: TempDirectory) throws -> NSPersistentContainer {
        let model = try #require(NSManagedObjectModel(contentsOf: try Self.model(dir)))
        return try PersistentHistoryTests.container(dir, tracking: false, file: "Shelves.sqlite", model: model)
    }

    @Test func anXcodeModelDeclaresItAsAPropertyThatIsNeitherAttributeNorRelationship() throws {
        let dir = TempDirectory("fetched-model")
        let model = try #require(NSManagedObjectModel(contentsOf: try Self.model(dir)))
        let shelf = try #require(model.entitiesByName["Shelf"])
        let fetched = try #require(shelf.propertiesByName["namesakes"] as? NSFetchedPropertyDescription)
        #expect(fetched.fetchRequest?.entityName == "Book")
        #expect(fetched.fetchRequest?.predicate != nil)
        #expect(shelf.attributesByName["namesakes"] == nil && shelf.relationshipsByName["namesakes"] == nil)
        // No column in the store.
        let container = try PersistentHistoryTests.container(dir, tracking: false, file: "Shelves.sqlite", model: model)
        try container.persistentStoreCoordinator.persistentStores.forEach { try container.persistentStoreCoordinator.remove($0) }
        try DatabaseQueue(path: dir.file("Shelves.sqlite").path).read { db in
            let columns = try db.columns(in: "ZSHELF").map(\.name)
            #expect(columns.contains("ZNAME") && !columns.contains { $0.contains("NAMESAKES") || $0.contains("SHELVED") })
        }
    }

    @Test func itFetchesWithTheObjectAsFetchSourceAndKeepsItsResultsUntilTheObjectIsAFault() throws {
        let dir = TempDirectory("fetched-values")
        let context = try Self.container(dir).newBackgroundContext()
        try context.performAndWait {
            let shelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
            shelf.setValue("Dune", forKey: "name")
            for (title, shelved) in [("Dune", true), ("Dune", false), ("Emma", true)] {
                let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
                book.setValue(title, forKey: "title")
                if shelved { book.setValue(shelf, forKey: "shelf") }
            }
            try context.save()
            let namesakes = try #require(shelf.value(forKey: "namesakes") as? [NSManagedObject])
            #expect(namesakes.count == 2 && namesakes.allSatisfy { $0.value(forKey: "title") as? String == "Dune" })
            let shelved = try #require(shelf.value(forKey: "shelved") as? [NSManagedObject])
            #expect(Set(shelved.compactMap { $0.value(forKey: "title") as? String }) == ["Dune", "Emma"])

            // Static: a new namesake is not in the cached results...
            let another = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
            another.setValue("Dune", forKey: "title")
            try context.save()
            #expect((shelf.value(forKey: "namesakes") as? [NSManagedObject])?.count == 2)
            // ...until the object is turned into a fault.
            context.refresh(shelf, mergeChanges: false)
            #expect((shelf.value(forKey: "namesakes") as? [NSManagedObject])?.count == 3)
        }
    }

    @Test func aPredicateThatDoesNotParseIsRefusedAtItsLine() throws {
        let dir = TempDirectory("fetched-bad")
        let bad = Self.contents.replacingOccurrences(of: "title == $FETCH_SOURCE.name", with: "title ==")
        let folder = try Self.model(dir, contents: bad)
        do {
            _ = try XcodeModelReader.load(from: folder)
            Issue.record("the model loaded")
        } catch {
            #expect(error.kind == .invalidValue)
            #expect(error.message.contains("Shelf.namesakes"))
            #expect(error.line == 6)
        }
    }

    @Test func aDestinationTheModelDoesNotHaveIsRefusedAtItsLine() throws {
        let dir = TempDirectory("fetched-missing")
        let bad = Self.contents.replacingOccurrences(of: "entity=\"Book\" predicateString=\"shelf", with: "entity=\"Novel\" predicateString=\"shelf")
        let folder = try Self.model(dir, contents: bad)
        do {
            _ = try XcodeModelReader.load(from: folder)
            Issue.record("the model loaded")
        } catch {
            #expect(error.kind == .missingEntity)
            #expect(error.message.contains("Shelf.shelved") && error.message.contains("Novel"))
            #expect(error.line == 9)
        }
    }

    @Test func aDescriptionMadeInCodeFetchesToo() throws {
        let dir = TempDirectory("fetched-code")
        let model = try #require(NSManagedObjectModel(contentsOf: try Self.model(dir)))
        let shelf = try #require(model.entitiesByName["Shelf"])
        let titled = NSFetchedPropertyDescription()
        titled.name = "titled"
        let request = NSFetchRequest<any NSFetchRequestResult>(entityName: "Book")
        request.predicate = NSPredicate(format: "title != nil AND title != $FETCH_SOURCE.name")
        titled.fetchRequest = request
        shelf.properties = shelf.properties + [titled]
        let context = try PersistentHistoryTests.container(dir, tracking: false, file: "Shelves.sqlite", model: model).newBackgroundContext()
        try context.performAndWait {
            let s = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
            s.setValue("Dune", forKey: "name")
            for title in ["Dune", "Emma", "Persuasion"] {
                NSEntityDescription.insertNewObject(forEntityName: "Book", into: context).setValue(title, forKey: "title")
            }
            #expect((s.value(forKey: "titled") as? [NSManagedObject])?.count == 2)
            // The same read of a key path from a value put in, as an argument: the store runs it.
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.predicate = NSPredicate(format: "title == %@.name", s)
            let found = try context.fetch(request)
            #expect(found.count == 1)
        }
    }
}
