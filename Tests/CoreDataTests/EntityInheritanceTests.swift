import Foundation
import GRDB
import GRDBSQLite
import Testing
import TestSupport

@_spi(CoreData) import ManagedContext
@testable import CoreData

// Entity classes as Xcode generates them for a model with inheritance: a subentity's
// class inherits from its parent entity's class.
class LibItem: NSManagedObject {
    var title: String? {
        get { value(forKey: "title") as? String }
        set { setValue(newValue, forKey: "title") }
    }
    var shelf: LibShelf? {
        get { value(forKey: "shelf") as? LibShelf }
        set { setValue(newValue, forKey: "shelf") }
    }
}

class LibBook: LibItem {
    var author: String? {
        get { value(forKey: "author") as? String }
        set { setValue(newValue, forKey: "author") }
    }
    var pages: Int32 {
        get { value(forKey: "pages") as? Int32 ?? 0 }
        set { setValue(newValue, forKey: "pages") }
    }
}

final class LibEbook: LibBook {}
final class LibMagazine: LibItem {}
final class LibShelf: NSManagedObject {}
final class LibReview: NSManagedObject {}

/// Entity inheritance, stored as Core Data's SQLite store keeps it.
///
/// Core Data: "Entity inheritance works in a similar way to class inheritance"; "you can
/// specify that an entity is abstract … you will not create any instances of that entity"
/// (Core Data Programming Guide, "Managed Object Models",
/// https://developer.apple.com/library/archive/documentation/Cocoa/Conceptual/CoreData/Articles/cdMOM.html;
/// NSEntityDescription.isAbstract). In the SQLite store "all entities involved in a
/// parent-child hierarchy reside in the same table" (Learning Core Data for iOS, "Entity
/// Inheritance"), the root entity's `Z<ROOT>` with the columns of every subentity ("one
/// large table that includes all the properties for the parent entity as well as its
/// children", albertmata.com, "Entity inheritance in Core Data"); each row's `Z_ENT` is its
/// entity's number in `Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX)`, where `Z_SUPER` is
/// the parent's number (fatbobman.com, "How Core Data Saves Data in SQLite"). A fetch
/// includes subentities unless `includesSubentities` is false (NSFetchRequest, Apple's
/// documentation: "The default is true").
@Suite struct EntityInheritanceTests {
    static func model() throws -> NSManagedObjectModel {
        try #require(NSManagedObjectModel(contentsOf: Fixtures.url("Library.xcdatamodel")))
    }

    static func container(_ url: URL, model: NSManagedObjectModel? = nil, migrate: Bool = false) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Library", managedObjectModel: try model ?? Self.model())
        let description = NSPersistentStoreDescription(url: url)
        description.shouldMigrateStoreAutomatically = migrate
        description.shouldInferMappingModelAutomatically = migrate
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    /// A shelf with a book, an ebook and a magazine, a review of the ebook; saved, and the
    /// store's three files copied while it is open (its rows still in the -wal).
    static func library(in dir: TempDirectory) throws -> URL {
        let scratch = dir.file("scratch.sqlite")
        let container = try container(scratch)
        let c = container.newBackgroundContext()
        try c.performAndWait {
            let shelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: c)
            shelf.setValue("Fiction", forKey: "name")
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: c) as! LibBook
            book.title = "Solaris"
            book.author = "Lem"
            book.pages = 204
            book.setValue("B-1", forKey: "code")
            book.shelf = shelf as? LibShelf
            let ebook = NSEntityDescription.insertNewObject(forEntityName: "Ebook", into: c) as! LibEbook
            ebook.title = "Stalker"
            ebook.pages = 160
            ebook.setValue(Int64(1_048_576), forKey: "sizeBytes")
            ebook.shelf = shelf as? LibShelf
            let magazine = NSEntityDescription.insertNewObject(forEntityName: "Magazine", into: c) as! LibMagazine
            magazine.title = "Analog"
            magazine.setValue(Int16(7), forKey: "issue")
            magazine.setValue(NSNumber(value: 42), forKey: "code")
            magazine.shelf = shelf as? LibShelf
            let review = NSEntityDescription.insertNewObject(forEntityName: "Review", into: c)
            review.setValue(Int16(5), forKey: "stars")
            review.setValue(ebook, forKey: "item")
            try c.save()
        }
        let url = dir.file("Library.sqlite")
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: scratch.path + suffix) {
            try FileManager.default.copyItem(atPath: scratch.path + suffix, toPath: url.path + suffix)
        }
        return url
    }

    static func files(_ url: URL) -> [Data?] {
        ["", "-wal", "-shm"].map { FileManager.default.contents(atPath: url.path + $0) }
    }

    // MARK: The layout

    /// One table for the tree's root (`ZITEM`), none for Book, Ebook or Magazine; the
    /// columns of every subentity in it (Magazine's `code` is `ZCODE1`, Book's took
    /// `ZCODE`); Z_PRIMARYKEY numbers parents before children with `Z_SUPER`; each row's
    /// Z_ENT is its own entity's; the tree shares one key sequence, kept in the root's Z_MAX.
    @Test func theTreeIsStoredInItsRootTable() throws {
        let dir = TempDirectory("inherit-layout")
        let url = try Self.library(in: dir)
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal"))
        let q = try DatabaseQueue(path: url.path)
        defer { try? q.close() }
        try q.read { db in
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            #expect(tables == ["ZITEM", "ZREVIEW", "ZSHELF", "Z_METADATA", "Z_PRIMARYKEY"])
            let columns = try db.columns(in: "ZITEM").map { "\($0.name) \($0.type)" }
            #expect(
                columns == [
                    "Z_PK INTEGER", "Z_ENT INTEGER", "Z_OPT INTEGER", "ZSHELF INTEGER", "ZACQUIRED TIMESTAMP", "ZTITLE VARCHAR",
                    "ZAUTHOR VARCHAR", "ZCODE VARCHAR", "ZPAGES INTEGER", "ZSIZEBYTES INTEGER", "ZCODE1 INTEGER", "ZISSUE INTEGER",
                ])
            let keys = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT").map { row -> String in
                let ent: Int64 = row[0], name: String = row[1], parent: Int64 = row[2], max: Int64 = row[3]
                return "\(ent) \(name) \(parent) \(max)"
            }
            #expect(keys == ["1 Item 0 3", "2 Book 1 0", "3 Ebook 2 0", "4 Magazine 1 0", "5 Review 0 1", "6 Shelf 0 1"])
            let rows = try Row.fetchAll(db, sql: "SELECT Z_ENT, ZTITLE, ZCODE, ZCODE1, ZSIZEBYTES, ZSHELF FROM ZITEM ORDER BY ZTITLE").map { row -> String in
                "\(row[0] as Int64) \(row[1] as String) \(row[2] as String? ?? "-") \(row[3] as Int64? ?? 0) \(row[4] as Int64? ?? 0) \(row[5] as Int64)"
            }
            #expect(rows == ["4 Analog - 42 0 1", "2 Solaris B-1 0 0 1", "3 Stalker - 0 1048576 1"])
            #expect(try Int64.fetchAll(db, sql: "SELECT Z_PK FROM ZITEM ORDER BY Z_PK") == [1, 2, 3])
            #expect(try Int64.fetchOne(db, sql: "SELECT ZITEM FROM ZREVIEW") == Int64.fetchOne(db, sql: "SELECT Z_PK FROM ZITEM WHERE ZTITLE = 'Stalker'"))
        }
    }

    // MARK: Fetching

    /// A fetch of the abstract parent returns every subentity's objects, each as its own
    /// entity's class; `includesSubentities = false` returns the entity's own objects only.
    @Test func aFetchOfTheParentIncludesSubentitiesAsTheirOwnClasses() throws {
        let dir = TempDirectory("inherit-fetch")
        let container = try Self.container(try Self.library(in: dir))
        let c = container.viewContext
        try c.performAndWait {
            let request = NSFetchRequest<LibItem>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            let items = try c.fetch(request)
            #expect(items.map { $0.title ?? "" } == ["Analog", "Solaris", "Stalker"])
            #expect(items.map { $0.entity.name } == ["Magazine", "Book", "Ebook"])
            #expect(items[0] is LibMagazine && type(of: items[1]) == LibBook.self && items[2] is LibEbook)
            #expect((items[2] as? LibBook)?.pages == 160)
            #expect(items[2].value(forKey: "sizeBytes") as? Int64 == 1_048_576)
            #expect(items[0].value(forKey: "code") as? NSNumber == 42)
            #expect(items[1].value(forKey: "code") as? String == "B-1")
            #expect(try c.count(for: NSFetchRequest<LibItem>(entityName: "Item")) == 3)

            let books = NSFetchRequest<LibBook>(entityName: "Book")
            books.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            #expect(try c.fetch(books).map { $0.title ?? "" } == ["Solaris", "Stalker"])
            books.includesSubentities = false
            #expect(try c.fetch(books).map { $0.title ?? "" } == ["Solaris"])
            #expect(try c.count(for: books) == 1)
            let abstractOnly = NSFetchRequest<LibItem>(entityName: "Item")
            abstractOnly.includesSubentities = false
            #expect(try c.fetch(abstractOnly).isEmpty)
        }
    }

    /// Predicates and sorts on inherited attributes, in SQL and over unsaved changes: an
    /// unsaved magazine matches a fetch of Item by its inherited title.
    @Test func predicatesOnInheritedAttributesMatchSavedAndUnsavedObjects() throws {
        let dir = TempDirectory("inherit-predicate")
        let container = try Self.container(try Self.library(in: dir))
        let c = container.viewContext
        try c.performAndWait {
            let request = NSFetchRequest<LibItem>(entityName: "Item")
            request.predicate = NSPredicate(format: "title BEGINSWITH %@", "S")
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: false)]
            #expect(try c.fetch(request).map { $0.title ?? "" } == ["Stalker", "Solaris"])

            let ebooks = NSFetchRequest<LibEbook>(entityName: "Ebook")
            ebooks.predicate = NSPredicate(format: "pages > %d AND title CONTAINS[c] %@", 100, "STALK")
            #expect(try c.fetch(ebooks).map { $0.title ?? "" } == ["Stalker"])

            let byShelf = NSFetchRequest<LibItem>(entityName: "Item")
            byShelf.predicate = NSPredicate(format: "shelf.name == %@", "Fiction")
            #expect(try c.count(for: byShelf) == 3)

            let unsaved = NSEntityDescription.insertNewObject(forEntityName: "Magazine", into: c) as! LibMagazine
            unsaved.title = "Sky"
            let all = try c.fetch(request)
            #expect(all.map { $0.title ?? "" } == ["Stalker", "Solaris", "Sky"])
            #expect(all[2] === unsaved)
            #expect(try c.count(for: request) == 3)
        }
    }

    /// A relationship whose destination is the parent entity holds any subentity's object;
    /// to-many relationships to the parent hold them all. After a reopen, each related
    /// object is its own entity's class.
    @Test func relationshipsToTheParentHoldSubentitiesAcrossAReopen() throws {
        let dir = TempDirectory("inherit-relationships")
        let url = try Self.library(in: dir)
        let container = try Self.container(url)
        let c = container.newBackgroundContext()
        try c.performAndWait {
            let reviews = try c.fetch(NSFetchRequest<NSManagedObject>(entityName: "Review"))
            let item = try #require(reviews.first?.value(forKey: "item") as? LibItem)
            #expect(item is LibEbook)
            #expect(item.entity.name == "Ebook")
            #expect(item.title == "Stalker")
            let back = try #require(item.value(forKey: "reviews") as? NSSet)
            #expect(back.count == 1)
            let shelf = try #require(item.shelf)
            let held = try #require((shelf.value(forKey: "items") as? NSSet)?.allObjects as? [NSManagedObject])
            #expect(Set(held.map { $0.entity.name }) == ["Book", "Ebook", "Magazine"])

            let byItem = NSFetchRequest<NSManagedObject>(entityName: "Review")
            byItem.predicate = NSPredicate(format: "item == %@", item)
            #expect(try c.count(for: byItem) == 1)

            // A new object of each kind takes the tree's next key; the cascade from the
            // ebook deletes its review.
            let another = NSEntityDescription.insertNewObject(forEntityName: "Book", into: c) as! LibBook
            another.title = "Eden"
            c.delete(item)
            try c.save()
            #expect(try c.count(for: NSFetchRequest<NSManagedObject>(entityName: "Review")) == 0)
        }
        let q = try DatabaseQueue(path: url.path)
        defer { try? q.close() }
        try q.read { (db: Database) throws in
            #expect(try Row.fetchAll(db, sql: "SELECT ZTITLE, Z_ENT FROM ZITEM ORDER BY ZTITLE").map { "\($0[0] as String):\($0[1] as Int64)" } == ["Analog:4", "Eden:2", "Solaris:2"])
            #expect(try Int64.fetchOne(db, sql: "SELECT Z_PK FROM ZITEM WHERE ZTITLE = 'Eden'") == 4)
            #expect(try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Item'") == 4)
        }
    }

    /// "You cannot create instances of an abstract entity" (NSEntityDescription.isAbstract):
    /// inserting one stops at the insert, naming the subentities to use.
    @Test func anAbstractEntityCannotBeInserted() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dir = TempDirectory("inherit-abstract")
            let container = try EntityInheritanceTests.container(dir.file("Library.sqlite"))
            let c = container.viewContext
            c.performAndWait { _ = NSEntityDescription.insertNewObject(forEntityName: "Item", into: c) }
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("Cannot create an instance of the abstract entity Item"))
        #expect(stderr.contains("Book, Magazine"))
    }

    // MARK: A store Apple's Core Data wrote

    /// A store in Core Data's own layout for this model (columns in Core Data's order:
    /// keys and integers, then dates, then strings; entity numbers after other entities
    /// a bigger model had; the rows only in the -wal) opens, and its rows come back as
    /// their entities, numbered as its Z_PRIMARYKEY says; a save numbers new rows so.
    @Test func aStoreInCoreDatasLayoutOpens() throws {
        let dir = TempDirectory("inherit-coredata")
        let url = dir.file("Library.sqlite")
        try LibraryFixture.write(at: url.path)
        let container = try Self.container(url)
        let c = container.newBackgroundContext()
        try c.performAndWait {
            let request = NSFetchRequest<LibItem>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            let items = try c.fetch(request)
            #expect(items.map { "\($0.entity.name ?? "?"):\($0.title!)" } == ["Magazine:Analog", "Book:Solaris", "Ebook:Stalker"])
            #expect((items[2] as? LibEbook)?.value(forKey: "sizeBytes") as? Int64 == 2048)
            let review = try #require(try c.fetch(NSFetchRequest<NSManagedObject>(entityName: "Review")).first)
            #expect((review.value(forKey: "item") as? NSManagedObject)?.entity.name == "Ebook")
            let fresh = NSEntityDescription.insertNewObject(forEntityName: "Magazine", into: c)
            fresh.setValue("Locus", forKey: "title")
            try c.save()
        }
        let q = try DatabaseQueue(path: url.path)
        defer { try? q.close() }
        try q.read { (db: Database) throws in
            #expect(try Int64.fetchOne(db, sql: "SELECT Z_ENT FROM ZITEM WHERE ZTITLE = 'Locus'") == 14)
            #expect(try Int64.fetchOne(db, sql: "SELECT Z_PK FROM ZITEM WHERE ZTITLE = 'Locus'") == 13)
        }
    }

    /// A store whose tree differs from the model's (Book is not Item's subentity there,
    /// or the model lacks a subentity the store has) is refused with 134100 and left
    /// byte for byte as it was, its -wal and -shm included.
    @Test func aStoreWithAnotherTreeIsRefusedUntouched() throws {
        let dir = TempDirectory("inherit-mismatch")
        let url = dir.file("Library.sqlite")
        try LibraryFixture.write(at: url.path, bookParent: 0)
        let before = Self.files(url)
        #expect(before[1] != nil)
        do {
            _ = try Self.container(url)
            Issue.record("a store with another inheritance tree opened")
        } catch {
            let ns = error as NSError
            #expect(ns.domain == NSCocoaErrorDomain)
            #expect(ns.code == 134100)
            #expect("\(ns.userInfo)".contains("Book inherits from no entity in the store but from Item in the model"), "\(ns.userInfo)")
        }
        #expect(Self.files(url) == before)

        // Still refused with migration on: an inferred migration does not reshape a tree.
        do {
            _ = try Self.container(url, migrate: true)
            Issue.record("migrated")
        } catch {
            #expect((error as NSError).code == 134110, "\(error)")
        }
        #expect(Self.files(url) == before)

        // The model without Ebook: the store's Ebook rows would be lost.
        let model = try Self.model()
        model.entities = model.entities.filter { $0.name != "Ebook" }
        model.entitiesByName["Book"]!.subentities = []
        let dir2 = TempDirectory("inherit-mismatch-2")
        let url2 = dir2.file("Library.sqlite")
        try LibraryFixture.write(at: url2.path)
        let before2 = Self.files(url2)
        do {
            _ = try Self.container(url2, model: model)
            Issue.record("a store with a subentity the model lacks opened")
        } catch {
            #expect((error as NSError).code == 134100)
            #expect("\(error)".contains("subentity Ebook"), "\(error)")
        }
        #expect(Self.files(url2) == before2)
    }

    /// A model adding an optional attribute to a subentity migrates in place: the
    /// column is added to the root's table, the rows keep their entities.
    @Test func anAttributeAddedToASubentityMigrates() throws {
        let dir = TempDirectory("inherit-migrate")
        let url = try Self.library(in: dir)
        let model = try Self.model()
        let isbn = NSAttributeDescription()
        isbn.name = "isbn"
        isbn.attributeType = .stringAttributeType
        model.entitiesByName["Book"]!.properties.append(isbn)
        let container = try Self.container(url, model: model, migrate: true)
        let c = container.newBackgroundContext()
        try c.performAndWait {
            let books = NSFetchRequest<LibBook>(entityName: "Book")
            books.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            let found = try c.fetch(books)
            #expect(found.map { $0.entity.name } == ["Book", "Ebook"])
            found[1].setValue("978-0", forKey: "isbn")
            try c.save()
        }
        let q = try DatabaseQueue(path: url.path)
        defer { try? q.close() }
        #expect(try q.read { db in try String.fetchOne(db, sql: "SELECT ZISBN FROM ZITEM WHERE Z_ENT = 3") } == "978-0")
    }
}

/// Writes the Library model's store as Core Data lays it out, through the SQLite C API,
/// every row left in the -wal (copied while the writer is open, nothing checkpointed).
enum LibraryFixture {
    struct Failure: Error, CustomStringConvertible { let description: String }

    /// Numbers: Item 11, Book 12, Ebook 13, Magazine 14, Review 15, Shelf 16 (a model
    /// with ten more entities first). `bookParent` is Book's Z_SUPER.
    static func write(at path: String, bookParent: Int = 11) throws {
        let scratch = path + ".writing"
        var db: OpaquePointer?
        guard sqlite3_open(scratch, &db) == SQLITE_OK, let db else { throw Failure(description: "open failed") }
        defer {
            sqlite3_close(db)
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: scratch + suffix) }
        }
        func exec(_ sql: String) throws {
            var err: UnsafeMutablePointer<CChar>?
            if sqlite3_exec(db, sql, nil, nil, &err) != SQLITE_OK {
                let message = err.map { String(cString: $0) } ?? "?"
                sqlite3_free(err)
                throw Failure(description: "\(message) in \(sql)")
            }
        }
        try exec("PRAGMA journal_mode=WAL")
        try exec("PRAGMA wal_autocheckpoint=0")
        try exec(
            "CREATE TABLE ZITEM ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZSHELF INTEGER, ZPAGES INTEGER, ZSIZEBYTES INTEGER, ZCODE1 INTEGER, ZISSUE INTEGER, ZACQUIRED TIMESTAMP, ZTITLE VARCHAR, ZAUTHOR VARCHAR, ZCODE VARCHAR )")
        try exec("CREATE TABLE ZREVIEW ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZSTARS INTEGER, ZITEM INTEGER )")
        try exec("CREATE TABLE ZSHELF ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )")
        try exec("CREATE INDEX ZITEM_ZSHELF_INDEX ON ZITEM (ZSHELF)")
        try exec("CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
        try exec("CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
        try exec(
            "INSERT INTO Z_PRIMARYKEY VALUES (11, 'Item', 0, 12), (12, 'Book', \(bookParent), 0), (13, 'Ebook', 12, 0), (14, 'Magazine', 11, 0), (15, 'Review', 0, 1), (16, 'Shelf', 0, 1)")
        try exec("INSERT INTO Z_METADATA VALUES (1, '0C1D2E3F-4A5B-4C6D-8E7F-8091A2B3C4D5', x'')")
        try exec("BEGIN")
        try exec("INSERT INTO ZSHELF VALUES (1, 16, 1, 'Fiction')")
        try exec("INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZSHELF, ZPAGES, ZTITLE, ZAUTHOR) VALUES (10, 12, 1, 1, 204, 'Solaris', 'Lem')")
        try exec("INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZSHELF, ZPAGES, ZSIZEBYTES, ZTITLE) VALUES (11, 13, 1, 1, 160, 2048, 'Stalker')")
        try exec("INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZSHELF, ZISSUE, ZCODE1, ZTITLE) VALUES (12, 14, 1, 1, 7, 42, 'Analog')")
        try exec("INSERT INTO ZREVIEW VALUES (1, 15, 1, 5, 11)")
        try exec("COMMIT")
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: scratch + suffix, toPath: path + suffix)
        }
    }
}
