import Foundation
import GRDB
import TestSupport
import Testing
@_spi(Runtime) @_spi(CoreData) @testable import ManagedContext

@Suite struct StoreLayoutTests {
    @Test func newStoreHasCoreDataTablesAndWAL() throws {
        let stack = try TestStack()
        try stack.rawRead { db in
            let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type='table'"))
            #expect(tables.isSuperset(of: ["ZSAMPLE", "ZPLACE", "ZVISIT", "ZPERSON", "Z_PRIMARYKEY", "Z_METADATA"]))
            let columns = try db.columns(in: "ZVISIT").map(\.name)
            #expect(columns == ["Z_PK", "Z_ENT", "Z_OPT", "ZPLACE", "ZNOTE", "ZRATING"])
            let types = Dictionary(uniqueKeysWithValues: try db.columns(in: "ZSAMPLE").map { ($0.name, $0.type) })
            #expect(types["ZWHEN"] == "TIMESTAMP")
            #expect(types["ZNAME"] == "VARCHAR")
            #expect(types["ZRATIO"] == "FLOAT")
            #expect(types["ZBLOB"] == "BLOB")
            let keys = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
            #expect(keys.map { $0["Z_NAME"] as String } == ["Person", "Place", "Sample", "Visit"])
            #expect(keys.map { $0["Z_ENT"] as Int } == [1, 2, 3, 4])
            let meta = try Row.fetchOne(db, sql: "SELECT Z_VERSION, Z_UUID, Z_PLIST FROM Z_METADATA")!
            #expect(meta["Z_UUID"] as String == stack.coordinator.storeUUID)
            let plist = try PropertyListSerialization.propertyList(from: meta["Z_PLIST"] as Data, format: nil) as! [String: Any]
            #expect(plist["NSStoreType"] as? String == "SQLite")
            #expect(plist["NSStoreUUID"] as? String == stack.coordinator.storeUUID)
            let fetched1 = try String.fetchOne(db, sql: "PRAGMA journal_mode")
            #expect(fetched1 == "wal")
        }
    }

    /// A model without inheritance, ordered or many-to-many relationships keeps its
    /// store's schema statement for statement as before those were stored: one table per
    /// entity (to-one keys, then attributes), an index per to-one key, no Z_ENT index, no
    /// join table, Z_SUPER 0. Written out by hand from the layout, not read from the code.
    @Test func aModelWithoutTheNewFeaturesKeepsItsSchemaExactly() throws {
        let stack = try TestStack()
        let (schema, supers) = try stack.rawRead { db in
            (
                try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name"),
                try Int64.fetchAll(db, sql: "SELECT DISTINCT Z_SUPER FROM Z_PRIMARYKEY")
            )
        }
        #expect(
            schema == [
                "CREATE TABLE ZPERSON ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZHOME INTEGER, ZNAME VARCHAR )",
                "CREATE INDEX ZPERSON_ZHOME_INDEX ON ZPERSON (ZHOME)",
                "CREATE TABLE ZPLACE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZOWNER INTEGER, ZTITLE VARCHAR )",
                "CREATE INDEX ZPLACE_ZOWNER_INDEX ON ZPLACE (ZOWNER)",
                "CREATE TABLE ZSAMPLE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR, ZSMALL INTEGER, ZMEDIUM INTEGER, ZLARGE INTEGER, ZRATIO FLOAT, ZFLAG INTEGER, ZWHEN TIMESTAMP, ZBLOB BLOB )",
                "CREATE TABLE ZVISIT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPLACE INTEGER, ZNOTE VARCHAR, ZRATING INTEGER )",
                "CREATE INDEX ZVISIT_ZPLACE_INDEX ON ZVISIT (ZPLACE)",
                "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
                "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
            ])
        #expect(supers == [0])
    }

    @Test func saveWritesRowsVersionsAndPrimaryKeys() throws {
        let stack = try TestStack()
        let context = stack.privateContext()
        let when = Date(timeIntervalSince1970: 1_409_293_300)  // 2014-08-29T06:21:40Z
        try context.performAndWait {
            let s = Sample(context: context)
            s.name = "Rincon"
            s.when = when
            try context.save()
            #expect(!s.objectID.isTemporaryID)
            #expect(s.objectID.primaryKey == 1)
        }
        try stack.rawRead { db in
            let row = try Row.fetchOne(db, sql: "SELECT Z_PK, Z_ENT, Z_OPT, ZNAME, ZWHEN, ZSMALL FROM ZSAMPLE")!
            #expect(row["Z_PK"] as Int64 == 1)
            #expect(row["Z_ENT"] as Int64 == 3)
            #expect(row["Z_OPT"] as Int64 == 1)
            #expect(row["ZNAME"] as String == "Rincon")
            // Seconds since 2001-01-01 UTC.
            #expect(row["ZWHEN"] as Double == when.timeIntervalSince1970 - 978_307_200)
            #expect(row["ZSMALL"] as Int64 == 7)
            let fetched2 = try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME='Sample'")
            #expect(fetched2 == 1)
        }
        try context.performAndWait {
            let s = try context.fetch(FetchRequest<Sample>()).first!
            s.name = "Rincon Point"
            try context.save()
            s.small = 8
            try context.save()
        }
        try stack.rawRead { db in
            let fetched3 = try Int64.fetchOne(db, sql: "SELECT Z_OPT FROM ZSAMPLE WHERE Z_PK = 1")
            #expect(fetched3 == 3)
        }
    }

    /// A store written with the SQLite C API in Core Data's layout, every row left
    /// in its -wal file, as a seeded Core Data store ships.
    @Test func coreDataStoreWithRowsInWALOpensAndReadsBack() throws {
        let dir = TempDirectory()
        let url = dir.file("Seed.sqlite")
        let reference = Date(timeIntervalSinceReferenceDate: 431_000_000.5)
        try CoreDataFixture.write(at: url.path, rows: 250, reference: reference)
        let walSize = fileBytes(URL(fileURLWithPath: url.path + "-wal")).count
        #expect(walSize > 0, "the fixture must leave its rows in the -wal")
        #expect(!fileBytes(url).contains(Data("Spot-017".utf8)), "rows must not be in the main file yet")

        let coordinator = PersistentStoreCoordinator(managedObjectModel: testModel)
        try coordinator.addPersistentStore(at: url)
        #expect(coordinator.storeUUID == CoreDataFixture.uuid)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let all = try context.fetch(FetchRequest<Sample>(sortDescriptors: [FetchSortDescriptor(\Sample.large)]))
            #expect(all.count == 250)
            for (i, s) in all.enumerated() {
                #expect(s.name == "Spot-\(String(format: "%03d", i))")
                #expect(s.small == Int16(i % 5 + 1))
                #expect(s.medium == Int32(i) * 1000)
                #expect(s.large == Int64(i) * 1_000_000_000)
                #expect(s.ratio == Double(i) / 4)
                #expect(s.flag == (i % 2 == 0))
                #expect(s.when == reference.addingTimeInterval(Double(i) * 60))
                #expect(s.blob == Data([UInt8(i % 256), 0, 255]))
                #expect(s.objectID.primaryKey == Int64(i + 10))
            }
            // The table Core Data (or someone) added beside the entities' survives a save.
            all[0].name = "changed"
            _ = Sample(context: context)
            try context.save()
        }
        let queue = try DatabaseQueue(path: url.path)
        try queue.read { db in
            let fetched4 = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Z_MODELCACHE")
            #expect(fetched4 == 1)
            // Core Data numbered Sample 7 in this store; new rows follow that.
            let fetched6 = try Int.fetchOne(db, sql: "SELECT Z_ENT FROM ZSAMPLE WHERE Z_PK = 260")
            #expect(fetched6 == 7)
            let fetched7 = try Int.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 7")
            #expect(fetched7 == 260)
        }
    }

    /// A store made with a model that had one more attribute (ZSAMPLE.ZEXTRA) does not
    /// fit the test model: Core Data compares the entities' version hashes, which the
    /// extra attribute changes, and refuses the store (134100) unless automatic
    /// lightweight migration is on; then the attribute is removed ("Removal of an
    /// attribute", Apple's "Migrating your data model automatically").
    @Test func aStoreWithAColumnTheModelLacksIsRefusedOrMigrated() throws {
        let dir = TempDirectory()
        let url = dir.file("Seed.sqlite")
        try CoreDataFixture.write(at: url.path, rows: 20, reference: Date(timeIntervalSinceReferenceDate: 0), extraColumn: true)
        let before = ["", "-wal", "-shm"].map { FileManager.default.contents(atPath: url.path + $0) }
        let refusing = PersistentStoreCoordinator(managedObjectModel: testModel)
        do {
            try refusing.addPersistentStore(at: url)
            Issue.record("a store with a column the model lacks opened")
        } catch {
            #expect(error.code == .schemaMismatch)
            #expect(error.message.contains("ZSAMPLE.ZEXTRA"), "\(error)")
        }
        #expect(["", "-wal", "-shm"].map { FileManager.default.contents(atPath: url.path + $0) } == before, "the refused store is untouched")

        let migrating = PersistentStoreCoordinator(managedObjectModel: testModel)
        var options = StoreOptions()
        options.shouldMigrateStoreAutomatically = true
        options.shouldInferMappingModelAutomatically = true
        try migrating.addPersistentStore(at: url, options: options)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = migrating
        let names = try context.performAndWait { try context.fetch(FetchRequest<Sample>(sortDescriptors: [FetchSortDescriptor(\Sample.large)])).map(\.name) }
        #expect(names == (0..<20).map { "Spot-\(String(format: "%03d", $0))" })
        migrating.removePersistentStore()
        let queue = try DatabaseQueue(path: url.path)
        let (columns, entityNumbers, zmax) = try queue.read { db in
            (
                try db.columns(in: "ZSAMPLE").map(\.name), try Int.fetchAll(db, sql: "SELECT DISTINCT Z_ENT FROM ZSAMPLE"),
                try Int.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Sample'")
            )
        }
        #expect(!columns.contains("ZEXTRA"))
        // Renumbered in the model's order, as a new store numbers its entities.
        #expect(entityNumbers == [3])
        #expect(zmax == 29)
        try queue.close()
    }
}
