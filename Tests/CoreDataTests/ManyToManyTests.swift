import Foundation
import GRDB
import Testing
import TestSupport

@_spi(CoreData) import ManagedContext
@testable import CoreData

final class BlogPost: NSManagedObject {}
final class BlogTag: NSManagedObject {}

/// Many-to-many relationships, stored as Core Data's SQLite store keeps them.
///
/// Core Data: "You define a many-to-many relationship using two to-many relationships"
/// (Core Data Programming Guide, "Creating Managed Object Relationships",
/// https://developer.apple.com/library/archive/documentation/Cocoa/Conceptual/CoreData/HowManagedObjectsarerelated.html);
/// each side's value is an `NSSet`, and changing one side changes the other. In the
/// SQLite store the links are rows of a join table named `Z_<n><NAME>` after the
/// relationship of the entity numbered lower, with a column `Z_<n><INVERSE>` per side
/// holding that side's `Z_PK`, as stores written by Core Data show (`Z_1SONGS
/// (Z_1COLLECTIONS, Z_4SONGS, PRIMARY KEY (Z_1COLLECTIONS, Z_4SONGS))`,
/// `Z_12CATEGORIES (Z_12RECIPES, Z_13CATEGORIES)` with the index
/// `Z_12CATEGORIES_Z_13CATEGORIES_INDEX (Z_13CATEGORIES, Z_12RECIPES)`).
@Suite struct ManyToManyTests {
    static func container(_ url: URL, migrate: Bool = false) throws -> NSPersistentContainer {
        let model = try #require(NSManagedObjectModel(contentsOf: Fixtures.url("Blog.xcdatamodel")))
        let container = NSPersistentContainer(name: "Blog", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        description.shouldMigrateStoreAutomatically = migrate
        description.shouldInferMappingModelAutomatically = migrate
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    static func names(_ value: Any?, _ key: String) -> Set<String> {
        Set(((value as? NSSet)?.allObjects ?? []).compactMap { ($0 as? NSManagedObject)?.value(forKey: key) as? String })
    }

    static func links(_ url: URL) throws -> [String] {
        let q = try DatabaseQueue(path: url.path)
        defer { try? q.close() }
        return try q.read { db in
            try Row.fetchAll(db, sql: "SELECT Z_1POSTS, Z_2TAGS FROM Z_1TAGS ORDER BY 1, 2").map { "\($0[0] as Int64)-\($0[1] as Int64)" }
        }
    }

    /// Both sides see a link as soon as it is made; the save writes it into the join
    /// table (checked in SQLite); a reopen from a copy of the open store's three files
    /// reads it back on both sides.
    @Test func linksShowOnBothSidesAndSurviveAReopen() throws {
        let dir = TempDirectory("m2m-keep")
        let scratch = dir.file("scratch.sqlite")
        let container = try Self.container(scratch)
        let c = container.newBackgroundContext()
        try c.performAndWait {
            let a = NSEntityDescription.insertNewObject(forEntityName: "Post", into: c)
            a.setValue("a", forKey: "title")
            let b = NSEntityDescription.insertNewObject(forEntityName: "Post", into: c)
            b.setValue("b", forKey: "title")
            let swift = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: c)
            swift.setValue("swift", forKey: "name")
            let linux = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: c)
            linux.setValue("linux", forKey: "name")
            a.mutableSetValue(forKey: "tags").add(swift)
            a.mutableSetValue(forKey: "tags").add(linux)
            b.setValue(NSSet(array: [swift]), forKey: "tags")
            #expect(Self.names(swift.value(forKey: "posts"), "title") == ["a", "b"])
            #expect(Self.names(linux.value(forKey: "posts"), "title") == ["a"])
            try c.save()
            #expect(Self.names(a.value(forKey: "tags"), "name") == ["swift", "linux"])
        }
        let url = dir.file("Blog.sqlite")
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: scratch.path + suffix) {
            try FileManager.default.copyItem(atPath: scratch.path + suffix, toPath: url.path + suffix)
        }
        let q = try DatabaseQueue(path: url.path)
        let (tables, columns, index) = try q.read { db in
            (
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"),
                try db.columns(in: "Z_1TAGS").map { "\($0.name) \($0.type)" },
                try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'Z_1TAGS_Z_2TAGS_INDEX'")
            )
        }
        try q.close()
        #expect(tables == ["ZPOST", "ZTAG", "Z_1TAGS", "Z_METADATA", "Z_PRIMARYKEY"])
        #expect(columns == ["Z_1POSTS INTEGER", "Z_2TAGS INTEGER"])
        #expect(index?.contains("(Z_2TAGS, Z_1POSTS)") == true)
        #expect(try Self.links(url) == ["1-1", "1-2", "2-1"])

        let reopened = try Self.container(url)
        try reopened.viewContext.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Tag")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let tags = try reopened.viewContext.fetch(request)
            #expect(tags.map { Self.names($0.value(forKey: "posts"), "title") } == [["a"], ["a", "b"]])
        }
    }

    /// Removing a link removes its row; deleting an object (Nullify) removes it from the
    /// other side's set and its rows from the join table; the other objects stay.
    @Test func unlinkingAndDeletingRemoveJoinRows() throws {
        let dir = TempDirectory("m2m-remove")
        let url = dir.file("Blog.sqlite")
        let container = try Self.container(url)
        let c = container.viewContext
        try c.performAndWait {
            let a = NSEntityDescription.insertNewObject(forEntityName: "Post", into: c)
            let b = NSEntityDescription.insertNewObject(forEntityName: "Post", into: c)
            let swift = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: c)
            let linux = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: c)
            a.setValue(NSSet(array: [swift, linux]), forKey: "tags")
            b.setValue(NSSet(array: [swift]), forKey: "tags")
            try c.save()
            a.mutableSetValue(forKey: "tags").remove(linux)
            #expect((linux.value(forKey: "posts") as? NSSet)?.count == 0)
            #expect(linux.changedValues().keys.contains("posts"))
            try c.save()
            #expect(try Self.links(url) == ["1-1", "2-1"])
            c.delete(b)
            #expect((swift.value(forKey: "posts") as? NSSet)?.count == 1)
            try c.save()
            #expect(try Self.links(url) == ["1-1"])
            #expect(try c.count(for: NSFetchRequest<NSManagedObject>(entityName: "Tag")) == 2)
            // Rolled back, a link made is gone.
            a.mutableSetValue(forKey: "tags").add(linux)
            c.rollback()
            #expect((a.value(forKey: "tags") as? NSSet)?.count == 1)
            // Refreshed without merging, so is a link made to it.
            a.mutableSetValue(forKey: "tags").add(linux)
            #expect((linux.value(forKey: "posts") as? NSSet)?.count == 1)
            c.refresh(a, mergeChanges: false)
            #expect((a.value(forKey: "tags") as? NSSet)?.count == 1)
            #expect((linux.value(forKey: "posts") as? NSSet)?.count == 0)
        }
    }

    /// `ANY tags.name == %@` and `tags.@count` through the join table, in SQL and over
    /// unsaved links.
    @Test func predicatesGoThroughTheJoinTable() throws {
        let dir = TempDirectory("m2m-predicate")
        let container = try Self.container(dir.file("Blog.sqlite"))
        let c = container.viewContext
        try c.performAndWait {
            func post(_ title: String) -> NSManagedObject {
                let p = NSEntityDescription.insertNewObject(forEntityName: "Post", into: c)
                p.setValue(title, forKey: "title")
                return p
            }
            func tag(_ name: String) -> NSManagedObject {
                let t = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: c)
                t.setValue(name, forKey: "name")
                return t
            }
            let (a, b, d) = (post("a"), post("b"), post("d"))
            let (swift, linux) = (tag("swift"), tag("linux"))
            a.setValue(NSSet(array: [swift, linux]), forKey: "tags")
            b.setValue(NSSet(array: [swift]), forKey: "tags")
            try c.save()
            func titles(_ format: String, _ args: Any...) throws -> [String] {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Post")
                request.predicate = NSPredicate(format: format, argumentArray: args)
                request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
                return try c.fetch(request).map { $0.value(forKey: "title") as? String ?? "?" }
            }
            #expect(try titles("ANY tags.name == %@", "swift") == ["a", "b"])
            #expect(try titles("tags.@count >= 2") == ["a"])
            #expect(try titles("tags.@count == 0") == ["d"])
            // Unsaved: d gains linux, b loses swift.
            d.mutableSetValue(forKey: "tags").add(linux)
            b.mutableSetValue(forKey: "tags").remove(swift)
            #expect(try titles("ANY tags.name == %@", "linux") == ["a", "d"])
            #expect(try titles("tags.@count == 0") == ["b"])
            let tags = NSFetchRequest<NSManagedObject>(entityName: "Tag")
            tags.predicate = NSPredicate(format: "posts.@count == 2")
            #expect(try c.fetch(tags).compactMap { $0.value(forKey: "name") as? String } == ["linux"])
        }
    }

    /// A child context's links reach its parent when it saves, and the store when the
    /// parent saves.
    @Test func aChildContextsLinksReachTheStoreThroughItsParent() throws {
        let dir = TempDirectory("m2m-child")
        let url = dir.file("Blog.sqlite")
        let container = try Self.container(url)
        let parent = container.viewContext
        let (postID, tagID) = try parent.performAndWait {
            let p = NSEntityDescription.insertNewObject(forEntityName: "Post", into: parent)
            let t = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: parent)
            try parent.save()
            return (p.objectID, t.objectID)
        }
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        try child.performAndWait {
            let p = child.object(with: postID) as! NSManagedObject
            p.mutableSetValue(forKey: "tags").add(child.object(with: tagID))
            try child.save()
        }
        try parent.performAndWait {
            #expect(((parent.object(with: tagID) as! NSManagedObject).value(forKey: "posts") as? NSSet)?.count == 1)
            #expect(try Self.links(url).isEmpty)
            try parent.save()
        }
        #expect(try Self.links(url) == ["1-1"])
    }

    /// A store in Core Data's layout opens and its links read; a store that lacks the join
    /// table is refused with 134100 and left untouched, or gets the table by a
    /// lightweight migration.
    @Test func aStoreWithAJoinTableOpensAndOneWithoutIsRefusedOrMigrated() throws {
        let dir = TempDirectory("m2m-coredata")
        /// `first` is Post's number (Tag's is one more).
        func write(_ url: URL, join: Bool, first: Int = 1) throws {
            let (p, t) = (first, first + 1)
            let q = try DatabaseQueue(path: url.path)
            try q.write { db in
                try db.execute(sql: "CREATE TABLE ZPOST ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTITLE VARCHAR )")
                try db.execute(sql: "CREATE TABLE ZTAG ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )")
                if join {
                    try db.execute(sql: "CREATE TABLE Z_\(p)TAGS ( Z_\(p)POSTS INTEGER, Z_\(t)TAGS INTEGER, PRIMARY KEY (Z_\(p)POSTS, Z_\(t)TAGS) )")
                    try db.execute(sql: "INSERT INTO Z_\(p)TAGS VALUES (7, 3), (8, 3)")
                }
                try db.execute(sql: "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
                try db.execute(sql: "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
                try db.execute(sql: "INSERT INTO Z_PRIMARYKEY VALUES (\(p), 'Post', 0, 8), (\(t), 'Tag', 0, 3)")
                try db.execute(sql: "INSERT INTO Z_METADATA VALUES (1, '7B1C2D3E-4F5A-4B6C-8D7E-9F0A1B2C3D4E', x'')")
                try db.execute(sql: "INSERT INTO ZPOST VALUES (7, \(p), 1, 'x'), (8, \(p), 1, 'y')")
                try db.execute(sql: "INSERT INTO ZTAG VALUES (3, \(t), 1, 'swift')")
            }
            try q.close()
        }
        let url = dir.file("Blog.sqlite")
        try write(url, join: true)
        let container = try Self.container(url)
        try container.viewContext.performAndWait {
            let tag = try #require(try container.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag")).first)
            #expect(Self.names(tag.value(forKey: "posts"), "title") == ["x", "y"])
        }

        let bare = dir.file("Bare.sqlite")
        try write(bare, join: false)
        let before = FileManager.default.contents(atPath: bare.path)
        do {
            _ = try Self.container(bare)
            Issue.record("a store without the join table opened")
        } catch {
            #expect((error as NSError).code == 134100)
            #expect("\(error)".contains("join table Z_1TAGS"), "\(error)")
        }
        #expect(FileManager.default.contents(atPath: bare.path) == before)
        let migrated = try Self.container(bare, migrate: true)
        try migrated.viewContext.performAndWait {
            let c = migrated.viewContext
            let tag = try #require(try c.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag")).first)
            tag.mutableSetValue(forKey: "posts").addObjects(from: try c.fetch(NSFetchRequest<NSManagedObject>(entityName: "Post")))
            try c.save()
        }
        let q = try DatabaseQueue(path: bare.path)
        #expect(try q.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Z_1TAGS") } == 2)
        try q.close()

        // Numbered otherwise (Post 5, Tag 6): its links are in Z_5TAGS, which is not
        // renamed; refused either way, untouched.
        let renumbered = dir.file("Renumbered.sqlite")
        try write(renumbered, join: true, first: 5)
        let original = FileManager.default.contents(atPath: renumbered.path)
        for migrate in [false, true] {
            do {
                _ = try Self.container(renumbered, migrate: migrate)
                Issue.record("a store with its join table under other numbers opened")
            } catch {
                #expect((error as NSError).code == (migrate ? 134110 : 134100))
                #expect("\(error)".contains("Z_5TAGS"), "\(error)")
            }
        }
        #expect(FileManager.default.contents(atPath: renumbered.path) == original)
    }

    /// A many-to-many relationship to an abstract parent entity, in a model built in
    /// code: each linked object comes back as its own subentity, and a predicate through
    /// the join table reads the subentities' rows in the parent's table.
    @Test func linksToAParentEntityReturnEachSubentity() throws {
        func attribute(_ name: String) -> NSAttributeDescription {
            let a = NSAttributeDescription()
            a.name = name
            a.attributeType = .stringAttributeType
            return a
        }
        let shelf = NSEntityDescription()
        shelf.name = "Shelf"
        let item = NSEntityDescription()
        item.name = "Item"
        item.isAbstract = true
        let book = NSEntityDescription()
        book.name = "Book"
        let disc = NSEntityDescription()
        disc.name = "Disc"
        item.subentities = [book, disc]
        let items = NSRelationshipDescription()
        items.name = "items"
        items.maxCount = 0
        items.destinationEntity = item
        let shelves = NSRelationshipDescription()
        shelves.name = "shelves"
        shelves.maxCount = 0
        shelves.destinationEntity = shelf
        items.inverseRelationship = shelves
        shelves.inverseRelationship = items
        shelf.properties = [attribute("label"), items]
        item.properties = [attribute("title"), shelves]
        book.properties = [attribute("isbn")]
        disc.properties = [attribute("format")]
        let model = NSManagedObjectModel()
        model.entities = [shelf, item, book, disc]

        let dir = TempDirectory("m2m-parent")
        let url = dir.file("Shelves.sqlite")
        func open() throws -> NSPersistentContainer {
            let container = NSPersistentContainer(name: "Shelves", managedObjectModel: model)
            container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
            var loadError: (any Error)?
            container.loadPersistentStores { _, error in loadError = error }
            if let loadError { throw loadError }
            return container
        }
        let container = try open()
        try container.viewContext.performAndWait {
            let c = container.viewContext
            let s = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: c)
            s.setValue("top", forKey: "label")
            let b = NSEntityDescription.insertNewObject(forEntityName: "Book", into: c)
            b.setValue("Dune", forKey: "title")
            let d = NSEntityDescription.insertNewObject(forEntityName: "Disc", into: c)
            d.setValue("Kind of Blue", forKey: "title")
            d.setValue("LP", forKey: "format")
            s.mutableSetValue(forKey: "items").addObjects(from: [b, d])
            try c.save()
        }
        let reopened = try open()
        try reopened.viewContext.performAndWait {
            let c = reopened.viewContext
            let s = try #require(try c.fetch(NSFetchRequest<NSManagedObject>(entityName: "Shelf")).first)
            let linked = ((s.value(forKey: "items") as? NSSet)?.allObjects as? [NSManagedObject]) ?? []
            #expect(Set(linked.map { "\($0.entity.name ?? "?"):\($0.value(forKey: "title") as? String ?? "?")" }) == ["Book:Dune", "Disc:Kind of Blue"])
            let request = NSFetchRequest<NSManagedObject>(entityName: "Shelf")
            request.predicate = NSPredicate(format: "ANY items.title == %@", "Kind of Blue")
            #expect(try c.count(for: request) == 1)
            let discs = NSFetchRequest<NSManagedObject>(entityName: "Disc")
            discs.predicate = NSPredicate(format: "ANY shelves.label == %@", "top")
            #expect(try c.fetch(discs).compactMap { $0.value(forKey: "format") as? String } == ["LP"])
        }
        // Numbered parents first (Item 1, Book 2, Disc 3, Shelf 4): Item declares shelves,
        // Shelf declares items, so the table is Z_1SHELVES (Z_1ITEMS, Z_4SHELVES).
        let q = try DatabaseQueue(path: url.path)
        defer { try? q.close() }
        #expect(try q.read { db in try db.columns(in: "Z_1SHELVES").map(\.name) } == ["Z_1ITEMS", "Z_4SHELVES"])
    }
}
