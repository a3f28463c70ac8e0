import Foundation
import GRDB
import GRDBSQLite
import Testing
import TestSupport

@_spi(CoreData) import ManagedContext
@testable import CoreData

final class Playlist: NSManagedObject {}
final class Track: NSManagedObject {
    var title: String? {
        get { value(forKey: "title") as? String }
        set { setValue(newValue, forKey: "title") }
    }
}

/// Ordered to-many relationships, stored as Core Data's SQLite store keeps them.
///
/// Core Data: an ordered relationship's value is an `NSOrderedSet`, and
/// `mutableOrderedSetValue(forKey:)` returns "a mutable ordered set that provides
/// read-write access to the ordered to-many relationship specified by a given key"
/// (NSManagedObject / NSKeyValueCoding, Apple's documentation;
/// NSRelationshipDescription.isOrdered: "whether the relationship preserves an ordering
/// of objects"). In the SQLite store the order is a column of the destination's table
/// named `Z_FOK_` and the inverse relationship's name (`ZTRANSACTIONSPLIT.Z_FOK_TRANSACTION`
/// beside `ZTRANSACTION`; Photos' `ZGENERICALBUM.Z_FOK_PARENTFOLDER` beside
/// `ZPARENTFOLDER`, as tools that read those stores query them), an integer that sorts
/// the objects; Core Data leaves gaps between the numbers it writes.
@Suite struct OrderedRelationshipTests {
    static func model() throws -> NSManagedObjectModel {
        try #require(NSManagedObjectModel(contentsOf: Fixtures.url("Playlist.xcdatamodel")))
    }

    static func container(_ url: URL, model: NSManagedObjectModel? = nil) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Playlist", managedObjectModel: try model ?? Self.model())
        let description = NSPersistentStoreDescription(url: url)
        description.shouldMigrateStoreAutomatically = false
        description.shouldInferMappingModelAutomatically = false
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    static func titles(_ value: Any?) -> [String] {
        ((value as? NSOrderedSet)?.array ?? []).map { ($0 as? NSManagedObject)?.value(forKey: "title") as? String ?? "?" }
    }

    static func copyOpenStore(_ scratch: URL, to url: URL) throws {
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: scratch.path + suffix) {
            try FileManager.default.copyItem(atPath: scratch.path + suffix, toPath: url.path + suffix)
        }
    }

    /// The order given is the order read back, before and after a save, and after the
    /// store is reopened from a copy of its three files (rows still in the -wal). The
    /// tracks' `Z_FOK_PLAYLIST` holds their places; `changedValues()` and a dictionary
    /// fetch of every property leave that column out.
    @Test func theOrderGivenIsKeptAcrossASaveAndAReopen() throws {
        let dir = TempDirectory("ordered-keep")
        let scratch = dir.file("scratch.sqlite")
        let container = try Self.container(scratch)
        let c = container.newBackgroundContext()
        try c.performAndWait {
            let playlist = NSEntityDescription.insertNewObject(forEntityName: "Playlist", into: c)
            playlist.setValue("Mix", forKey: "name")
            let tracks = ["zebra", "apple", "mango"].map { title -> NSManagedObject in
                let t = NSEntityDescription.insertNewObject(forEntityName: "Track", into: c)
                t.setValue(title, forKey: "title")
                return t
            }
            playlist.setValue(NSOrderedSet(array: tracks), forKey: "tracks")
            #expect(Self.titles(playlist.value(forKey: "tracks")) == ["zebra", "apple", "mango"])
            #expect(playlist.value(forKey: "tracks") is NSOrderedSet)
            let changed = tracks[0].changedValues().keys
            #expect(changed.contains("title") && !changed.contains { $0.hasPrefix("Z_FOK") })
            try c.save()
            #expect(Self.titles(playlist.value(forKey: "tracks")) == ["zebra", "apple", "mango"])
            let all = NSFetchRequest<NSDictionary>(entityName: "Track")
            all.resultType = .dictionaryResultType
            #expect(try c.fetch(all).allSatisfy { ($0.allKeys as? [String])?.contains { $0.hasPrefix("Z_FOK") } == false })
        }
        let url = dir.file("Playlist.sqlite")
        try Self.copyOpenStore(scratch, to: url)
        let reopened = try Self.container(url)
        let c2 = reopened.newBackgroundContext()
        try c2.performAndWait {
            let playlist = try #require(try c2.fetch(NSFetchRequest<Playlist>(entityName: "Playlist")).first)
            #expect(Self.titles(playlist.value(forKey: "tracks")) == ["zebra", "apple", "mango"])
        }
        let q = try DatabaseQueue(path: url.path)
        defer { try? q.close() }
        try q.read { db in
            let columns = try db.columns(in: "ZTRACK").map { "\($0.name) \($0.type)" }
            #expect(columns.contains("Z_FOK_PLAYLIST INTEGER"), "\(columns)")
            let places = try Row.fetchAll(db, sql: "SELECT ZTITLE, Z_FOK_PLAYLIST FROM ZTRACK ORDER BY Z_FOK_PLAYLIST").map { row -> String in
                "\(row[0] as String):\(row[1] as Int64)"
            }
            #expect(places == ["zebra:1", "apple:2", "mango:3"])
        }
    }

    /// `mutableOrderedSetValue(forKey:)`: insert at an index, append, remove, move and
    /// exchange; each change relates, unrelates or reorders, and saves.
    @Test func theMutableOrderedSetInsertsRemovesAndMoves() throws {
        let dir = TempDirectory("ordered-mutable")
        let url = dir.file("Playlist.sqlite")
        let container = try Self.container(url)
        let c = container.viewContext
        try c.performAndWait {
            let playlist = NSEntityDescription.insertNewObject(forEntityName: "Playlist", into: c)
            func track(_ title: String) -> Track {
                let t = NSEntityDescription.insertNewObject(forEntityName: "Track", into: c) as! Track
                t.title = title
                return t
            }
            let a = track("a"), b = track("b"), x = track("x"), y = track("y")
            let set = playlist.mutableOrderedSetValue(forKey: "tracks")
            set.add(a)
            set.add(b)
            set.insert(x, at: 0)
            #expect(Self.titles(playlist.value(forKey: "tracks")) == ["x", "a", "b"])
            #expect(x.value(forKey: "playlist") as? NSManagedObject === playlist)
            try c.save()
            let again = playlist.mutableOrderedSetValue(forKey: "tracks")
            again.exchangeObject(at: 0, withObjectAt: 2)
            #expect(Self.titles(playlist.value(forKey: "tracks")) == ["b", "a", "x"])
            again.removeObject(at: 1)
            #expect(Self.titles(playlist.value(forKey: "tracks")) == ["b", "x"])
            #expect(a.value(forKey: "playlist") == nil)
            again.moveObjects(at: IndexSet(integer: 1), to: 0)
            again.add(y)
            #expect(Self.titles(playlist.value(forKey: "tracks")) == ["x", "b", "y"])
            try c.save()
            // A track given a playlist through its to-one comes last.
            a.setValue(playlist, forKey: "playlist")
            #expect(Self.titles(playlist.value(forKey: "tracks")) == ["x", "b", "y", "a"])
            try c.save()
        }
        let reopened = try Self.container(url)
        try reopened.viewContext.performAndWait {
            let playlist = try #require(try reopened.viewContext.fetch(NSFetchRequest<Playlist>(entityName: "Playlist")).first)
            #expect(Self.titles(playlist.value(forKey: "tracks")) == ["x", "b", "y", "a"])
        }
    }

    /// A store written by Core Data, with its gaps between places (1024, 2048, …) and the
    /// rows in another order than their keys, opens and reads the order it stored.
    @Test func aStoreInCoreDatasLayoutReadsItsOrder() throws {
        let dir = TempDirectory("ordered-coredata")
        let url = dir.file("Playlist.sqlite")
        let q = try DatabaseQueue(path: url.path)
        try q.write { db in
            try db.execute(sql: "CREATE TABLE ZPLAYLIST ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )")
            try db.execute(sql: "CREATE TABLE ZTRACK ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPLAYLIST INTEGER, Z_FOK_PLAYLIST INTEGER, ZTITLE VARCHAR )")
            try db.execute(sql: "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
            try db.execute(sql: "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
            try db.execute(sql: "INSERT INTO Z_PRIMARYKEY VALUES (1, 'Playlist', 0, 1), (2, 'Track', 0, 3)")
            try db.execute(sql: "INSERT INTO Z_METADATA VALUES (1, '5A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D', x'')")
            try db.execute(sql: "INSERT INTO ZPLAYLIST VALUES (1, 1, 1, 'Mix')")
            try db.execute(sql: "INSERT INTO ZTRACK VALUES (1, 2, 1, 1, 3072, 'third'), (2, 2, 1, 1, 1024, 'first'), (3, 2, 1, 1, 2048, 'second')")
        }
        try q.close()
        let container = try Self.container(url)
        try container.viewContext.performAndWait {
            let playlist = try #require(try container.viewContext.fetch(NSFetchRequest<Playlist>(entityName: "Playlist")).first)
            #expect(Self.titles(playlist.value(forKey: "tracks")) == ["first", "second", "third"])
        }
    }

    /// An ordered relationship to an abstract parent entity (the Shapes fixture: a
    /// canvas's ordered shapes, circles and squares): the order column is in the root's
    /// table, and the order and each object's class survive a reopen.
    @Test func anOrderedRelationshipToAParentEntityKeepsItsOrder() throws {
        let dir = TempDirectory("ordered-shapes")
        let url = dir.file("Shapes.sqlite")
        let model = try #require(NSManagedObjectModel(contentsOf: Fixtures.url("Shapes.xcdatamodel")))
        func open() throws -> NSPersistentContainer { try Self.container(url, model: model) }
        let container = try open()
        try container.viewContext.performAndWait {
            let c = container.viewContext
            let canvas = NSEntityDescription.insertNewObject(forEntityName: "Canvas", into: c)
            let shapes = [("Square", "red"), ("Circle", "green"), ("Square", "blue")].map { kind, color -> NSManagedObject in
                let shape = NSEntityDescription.insertNewObject(forEntityName: kind, into: c)
                shape.setValue(color, forKey: "color")
                return shape
            }
            canvas.mutableOrderedSetValue(forKey: "shapes").addObjects(from: shapes)
            try c.save()
        }
        let reopened = try open()
        try reopened.viewContext.performAndWait {
            let canvas = try #require(try reopened.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Canvas")).first)
            let shapes = ((canvas.value(forKey: "shapes") as? NSOrderedSet)?.array as? [NSManagedObject]) ?? []
            #expect(shapes.map { "\($0.entity.name ?? "?") \($0.value(forKey: "color") as? String ?? "?")" } == ["Square red", "Circle green", "Square blue"])
        }
        let q = try DatabaseQueue(path: url.path)
        defer { try? q.close() }
        #expect(try q.read { db in try db.columns(in: "ZSHAPE").map(\.name) }.contains("Z_FOK_CANVAS"))
    }
}
