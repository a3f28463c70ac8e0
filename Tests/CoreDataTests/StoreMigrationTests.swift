import Foundation
import GRDB
import Testing
import TestSupport

@_spi(CoreData) import ManagedContext
@testable import CoreData

/// A store that does not fit the model. Core Data refuses it with
/// NSPersistentStoreIncompatibleVersionHashError (134100, "The model used to open the
/// store is incompatible with the one used to create the store") unless automatic
/// migration is on; with `shouldMigrateStoreAutomatically` and
/// `shouldInferMappingModelAutomatically` (NSPersistentStoreDescription; the
/// container's default) it infers a lightweight migration for "addition of an
/// attribute", "removal of an attribute", added and removed entities and relationships
/// (Apple, "Migrating your data model automatically",
/// https://developer.apple.com/documentation/coredata/migrating-your-data-model-automatically),
/// and fails with a migration error (134110) otherwise. The runtime's codes are
/// `.schemaMismatch` and `.migrationFailed`; the CoreData layer maps them.
@Suite struct StoreMigrationTests {
    static func notebook(_ version: String) throws -> NSManagedObjectModel {
        let path = version == "v1" ? "Notebook.xcdatamodeld/Notebook.xcdatamodel" : "Notebook.xcdatamodeld/Notebook 2.xcdatamodel"
        return try #require(NSManagedObjectModel(contentsOf: Fixtures.url(path)))
    }

    @discardableResult
    static func open(_ model: NSManagedObjectModel, at url: URL, migrate: Bool = false) throws(ManagedContextError) -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model.runtimeModel)
        var options = StoreOptions()
        options.shouldMigrateStoreAutomatically = migrate
        options.shouldInferMappingModelAutomatically = migrate
        try coordinator.addPersistentStore(at: url, options: options)
        return coordinator
    }

    static func context(_ coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
        let c = ManagedObjectContext(concurrencyType: .privateQueue)
        c.persistentStoreCoordinator = coordinator
        return c
    }

    static func request(_ entity: String, in coordinator: PersistentStoreCoordinator, sortedBy key: String? = nil, ascending: Bool = true) -> ManagedContext.FetchRequest<NSManagedObject> {
        let sorts = key.map { [FetchSortDescriptor<NSManagedObject>(key: $0, ascending: ascending)] } ?? []
        var request = ManagedContext.FetchRequest<NSManagedObject>(sortDescriptors: sorts)
        request.entity = coordinator.managedObjectModel.entity(named: entity)
        return request
    }

    /// A v1 Notebook store with three notes in a folder, left with its -wal and -shm as
    /// a running app leaves them (copied while open), so refusals can be checked on all
    /// three files.
    static func v1Store(in dir: TempDirectory) throws -> URL {
        let scratch = dir.file("scratch.sqlite")
        let coordinator = try open(try notebook("v1"), at: scratch)
        let c = context(coordinator)
        try c.performAndWait {
            let model = coordinator.managedObjectModel
            let folder = NSManagedObject(entity: model.entitiesByName["Folder"]!, insertInto: c)
            folder.setValue("Work", forKey: "name")
            for title in ["a", "b", "c"] {
                let note = NSManagedObject(entity: model.entitiesByName["Note"]!, insertInto: c)
                note.setValue(title, forKey: "title")
                note.setValue(folder, forKey: "folder")
            }
            try c.save()
        }
        let url = dir.file("Notebook.sqlite")
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: scratch.path + suffix) {
            try FileManager.default.copyItem(atPath: scratch.path + suffix, toPath: url.path + suffix)
        }
        coordinator.removePersistentStore()
        return url
    }

    /// The bytes of the store and its -wal and -shm (nil for a missing file).
    static func files(_ url: URL) -> [Data?] {
        ["", "-wal", "-shm"].map { FileManager.default.contents(atPath: url.path + $0) }
    }

    // MARK: A store Apple's Core Data wrote

    /// The chapter's seed store, written by Core Data on a device with the real model,
    /// opens with the model read from its .xcdatamodeld and returns the chapter's
    /// entries, newest first.
    @Test func theSurfJournalSeedStoreOpensWithTheRealModel() throws {
        let dir = TempDirectory("seed")
        let url = dir.file("SurfJournalModel.sqlite")
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: Fixtures.surfJournalSeed.path + suffix) {
            try FileManager.default.copyItem(atPath: Fixtures.surfJournalSeed.path + suffix, toPath: url.path + suffix)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path + suffix)
        }
        let model = try #require(NSManagedObjectModel(contentsOf: Fixtures.surfJournalModel))
        let coordinator = try Self.open(model, at: url)
        let c = Self.context(coordinator)
        let (count, newest, oldest) = try c.performAndWait {
            let entries = try c.fetch(Self.request("JournalEntry", in: coordinator, sortedBy: "date", ascending: false))
            return (entries.count, entries.first?.value(forKey: "date") as? Date, entries.last?.value(forKey: "date") as? Date)
        }
        #expect(count == 5000)
        let (n, o) = (try #require(newest), try #require(oldest))
        #expect(n > o)
        coordinator.removePersistentStore()
    }

    // MARK: Migration off

    @Test func aMismatchWithMigrationOffIsRefusedAndTheStoreIsUntouched() throws {
        let dir = TempDirectory("mismatch")
        let url = try Self.v1Store(in: dir)
        let before = Self.files(url)
        #expect(before[1] != nil && before[2] != nil, "the store has a -wal and a -shm")
        let v2 = try Self.notebook("v2")
        do {
            try Self.open(v2, at: url)
            Issue.record("a v1 store opened with the v2 model")
        } catch {
            #expect(error.code == .schemaMismatch)
            #expect(error.message.contains("incompatible"))
            #expect(error.message.contains("ZNOTE.ZPINNED"), "\(error)")
        }
        #expect(Self.files(url) == before, "the .sqlite, -wal and -shm are byte for byte as they were")
    }

    /// Every kind of difference is seen: an attribute the store lacks, a column the
    /// model lacks, an entity either side lacks.
    @Test func everyKindOfDifferenceIsNamed() throws {
        let dir = TempDirectory("kinds")
        let url = try Self.v1Store(in: dir)
        let model = try Self.notebook("v1")
        let note = try #require(model.entitiesByName["Note"])
        note.properties = note.properties.filter { $0.name != "body" }
        let tag = NSEntityDescription()
        tag.name = "Tag"
        let label = NSAttributeDescription()
        label.name = "label"
        label.attributeType = .stringAttributeType
        tag.properties = [label]
        model.entities = model.entities.filter { $0.name != "Folder" } + [tag]
        note.properties = note.properties.filter { $0.name != "folder" }
        do {
            try Self.open(model, at: url)
            Issue.record("opened")
        } catch {
            #expect(error.code == .schemaMismatch)
            #expect(error.message.contains("the store has the entity Folder"), "\(error)")
            #expect(error.message.contains("the model has the entity Tag"), "\(error)")
            #expect(error.message.contains("the store has ZNOTE.ZBODY"), "\(error)")
            #expect(error.message.contains("the store has ZNOTE.ZFOLDER"), "\(error)")
        }
    }

    // MARK: Lightweight migration

    /// Version 2 adds `identifier` with a default and a uniqueness constraint on it: every
    /// migrated row would get the same identifier, which Core Data refuses
    /// (NSMigrationConstraintViolationError, 134111, "migration failed due to a violated
    /// uniqueness constraint", CoreDataErrors.h). So the store is refused as it was.
    @Test func aMigrationThatBreaksAUniquenessConstraintIsRefusedAndChangesNothing() throws {
        let dir = TempDirectory("migrate")
        let url = try Self.v1Store(in: dir)
        let v2 = try Self.notebook("v2")
        do {
            try Self.open(v2, at: url, migrate: true)
            Issue.record("opened")
        } catch {
            #expect(error.code == .migrationConstraintViolation, "\(error)")
            #expect((error as NSError).code == 134111)
        }
        let v1 = try Self.open(try Self.notebook("v1"), at: url)
        let c = Self.context(v1)
        #expect(try c.performAndWait { try c.count(for: Self.request("Note", in: v1, sortedBy: "title")) } == 3)
    }

    @Test func addedAttributesMigrateWithTheirDefaults() throws {
        let dir = TempDirectory("migrate")
        let url = try Self.v1Store(in: dir)
        // The default identifier would be every row's: the constraint on it is the test above's.
        let v2 = try Self.notebook("v2")
        v2.entitiesByName["Note"]?.uniquenessConstraints = v2.entitiesByName["Note"]?.uniquenessConstraints.filter { ($0 as? [String]) != ["identifier"] && ($0.first as? String) != "identifier" } ?? []
        let coordinator = try Self.open(v2, at: url, migrate: true)
        let c = Self.context(coordinator)
        struct Row: Equatable {
            var title: String?
            var priority: Int16?
            var pinned: Bool?
            var revision: Int64?
            var body: String?
            var folder: String?
        }
        let request = Self.request("Note", in: coordinator, sortedBy: "title")
        let rows: [Row] = try c.performAndWait {
            try c.fetch(request).map { (note: NSManagedObject) -> Row in
                let folder = note.value(forKey: "folder") as? NSManagedObject
                return Row(
                    title: note.value(forKey: "title") as? String, priority: note.value(forKey: "priority") as? Int16,
                    pinned: note.value(forKey: "pinned") as? Bool, revision: note.value(forKey: "revision") as? Int64,
                    body: note.value(forKey: "body") as? String, folder: folder?.value(forKey: "name") as? String)
            }
        }
        #expect(rows == ["a", "b", "c"].map { Row(title: $0, priority: 3, pinned: true, revision: -7, body: nil, folder: "Work") })
        // The store now fits v2: it opens with migration off, and saves.
        coordinator.removePersistentStore()
        let again = try Self.open(v2, at: url)
        let c2 = Self.context(again)
        try c2.performAndWait {
            let note = NSManagedObject(entity: again.managedObjectModel.entity(named: "Note")!, insertInto: c2)
            note.setValue("d", forKey: "title")
            try c2.save()
            #expect(try c2.count(for: Self.request("Note", in: again)) == 4)
        }
        again.removePersistentStore()
        // Z_PRIMARYKEY numbers the entities in the model's order, as a new store does.
        let q = try DatabaseQueue(path: url.path)
        let numbering = try q.read { db in
            try GRDB.Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT").map { (row: GRDB.Row) -> String in
                let ent: Int64 = row[0], name: String = row[1], max: Int64 = row[2]
                return "\(ent) \(name) \(max)"
            }
        }
        #expect(numbering == ["1 Folder 1", "2 Note 4"])
        try q.close()
    }

    /// Removing an entity, a relationship and an attribute, and adding an entity, in
    /// one migration; the rows of what remains keep their values.
    @Test func removedAndAddedEntitiesMigrate() throws {
        let dir = TempDirectory("migrate-remove")
        let url = try Self.v1Store(in: dir)
        let model = try Self.notebook("v1")
        let note = try #require(model.entitiesByName["Note"])
        note.properties = note.properties.filter { $0.name != "body" && $0.name != "folder" }
        let tag = NSEntityDescription()
        tag.name = "Tag"
        let label = NSAttributeDescription()
        label.name = "label"
        label.attributeType = .stringAttributeType
        tag.properties = [label]
        model.entities = model.entities.filter { $0.name != "Folder" } + [tag]
        let coordinator = try Self.open(model, at: url, migrate: true)
        let c = Self.context(coordinator)
        let titles = try c.performAndWait { try c.fetch(Self.request("Note", in: coordinator, sortedBy: "title")).map { $0.value(forKey: "title") as? String } }
        #expect(titles == ["a", "b", "c"])
        coordinator.removePersistentStore()
        let q = try DatabaseQueue(path: url.path)
        let tables = try q.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") }
        let columns = try q.read { db in try db.columns(in: "ZNOTE").map(\.name) }
        try q.close()
        #expect(tables == ["ZNOTE", "ZTAG", "Z_METADATA", "Z_PRIMARYKEY"])
        #expect(columns == ["Z_PK", "Z_ENT", "Z_OPT", "ZCREATED", "ZTITLE"])
    }

    /// A change no inferred mapping bridges (an attribute's type) fails with the
    /// migration error, and the store is untouched.
    @Test func aTypeChangeCannotBeInferred() throws {
        let dir = TempDirectory("migrate-type")
        let url = try Self.v1Store(in: dir)
        let before = Self.files(url)
        let model = try Self.notebook("v1")
        model.entitiesByName["Note"]?.attributesByName["title"]?.attributeType = .integer32AttributeType
        do {
            try Self.open(model, at: url, migrate: true)
            Issue.record("migrated")
        } catch {
            #expect(error.code == .migrationFailed)
            #expect(error.message.contains("Note.title"), "\(error)")
        }
        #expect(Self.files(url) == before)
    }

    /// A new mandatory attribute with no default cannot be filled in rows that exist
    /// (Core Data's migration fails validation, 1570 inside 134110); with no rows there
    /// is nothing to fill and it migrates.
    @Test func aNewMandatoryAttributeNeedsADefaultWhenRowsExist() throws {
        func model() throws -> NSManagedObjectModel {
            let m = try Self.notebook("v1")
            let rank = NSAttributeDescription()
            rank.name = "rank"
            rank.attributeType = .integer32AttributeType
            rank.isOptional = false
            m.entitiesByName["Note"]!.properties += [rank]
            return m
        }
        let dir = TempDirectory("migrate-mandatory")
        let url = try Self.v1Store(in: dir)
        let before = Self.files(url)
        let withRank = try model()
        do {
            try Self.open(withRank, at: url, migrate: true)
            Issue.record("migrated")
        } catch {
            #expect(error.code == .migrationFailed)
            #expect(error.message.contains("Note.rank") && error.message.contains("default"), "\(error)")
        }
        #expect(Self.files(url) == before)

        let empty = dir.file("Empty.sqlite")
        try Self.open(try Self.notebook("v1"), at: empty).removePersistentStore()
        try Self.open(try model(), at: empty, migrate: true).removePersistentStore()
    }

    /// A store whose own numbering disagrees with itself is not migrated, whatever the
    /// options: rows that carry another entity's Z_ENT.
    @Test func inconsistentEntityNumberingIsRefused() throws {
        let dir = TempDirectory("numbering")
        let url = try Self.v1Store(in: dir)
        let q = try DatabaseQueue(path: url.path)
        try q.write { db in try db.execute(sql: "UPDATE ZNOTE SET Z_ENT = 7") }
        try q.close()
        let v1 = try Self.notebook("v1")
        do {
            try Self.open(v1, at: url, migrate: true)
            Issue.record("opened")
        } catch {
            #expect(error.code == .schemaMismatch)
            #expect(error.message.contains("Z_ENT 7"), "\(error)")
        }
    }

    /// A read-only store that needs a migration is refused, not migrated.
    @Test func aReadOnlyStoreIsNotMigrated() throws {
        let dir = TempDirectory("readonly")
        let url = try Self.v1Store(in: dir)
        let before = Self.files(url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.notebook("v2").runtimeModel)
        var options = StoreOptions(readOnly: true)
        options.shouldMigrateStoreAutomatically = true
        options.shouldInferMappingModelAutomatically = true
        #expect(throws: ManagedContextError.self) { try coordinator.addPersistentStore(at: url, options: options) }
        #expect(Self.files(url) == before)
    }

    /// A renaming identifier (Xcode's "Renaming ID", `elementID`) names the attribute's
    /// earlier name; the migration renames its column and the values stay ("Renaming an
    /// entity or property", Apple's "Migrating your data model automatically").
    @Test func aRenamedAttributeKeepsItsValues() throws {
        let dir = TempDirectory("migrate-rename")
        let url = try Self.v1Store(in: dir)
        let model = try Self.notebook("v1")
        let title = try #require(model.entitiesByName["Note"]?.attributesByName["title"])
        title.name = "heading"
        title.renamingIdentifier = "title"
        let coordinator = try Self.open(model, at: url, migrate: true)
        let c = Self.context(coordinator)
        let headings = try c.performAndWait { try c.fetch(Self.request("Note", in: coordinator, sortedBy: "heading")).map { $0.value(forKey: "heading") as? String } }
        #expect(headings == ["a", "b", "c"])
        coordinator.removePersistentStore()
    }

    /// An entity's renaming identifier: its table is renamed, its rows stay, and the
    /// relationships that point at it follow.
    @Test func aRenamedEntityKeepsItsRows() throws {
        let dir = TempDirectory("migrate-rename-entity")
        let url = try Self.v1Store(in: dir)
        let model = try Self.notebook("v1")
        let folder = try #require(model.entitiesByName["Folder"])
        folder.name = "Notebook"
        folder.renamingIdentifier = "Folder"
        let toFolder = try #require(model.entitiesByName["Note"]?.relationshipsByName["folder"])
        toFolder.destinationEntity = folder
        let coordinator = try Self.open(model, at: url, migrate: true)
        let c = Self.context(coordinator)
        let names = try c.performAndWait {
            try c.fetch(Self.request("Note", in: coordinator)).map { ($0.value(forKey: "folder") as? NSManagedObject)?.value(forKey: "name") as? String }
        }
        #expect(names == ["Work", "Work", "Work"])
        coordinator.removePersistentStore()
    }
}
