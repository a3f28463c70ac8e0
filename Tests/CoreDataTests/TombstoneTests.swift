import CoreData
import Foundation
import GRDB
import TestSupport
import Testing

/// Tombstones: a delete's preserved attributes in its history change. Apple: "tombstone —
/// A dictionary of attributes marked for preservation after deletion, and their values
/// when deleted. This value is expected on changes of type NSPersistentHistoryChangeType.delete"
/// (developer.apple.com/documentation/coredata/nspersistenthistorychange/tombstone);
/// `preservesValueInHistoryOnDeletion` marks them ("whether the attribute records its
/// value in the persistent history transaction for a managed object's deletion"), Xcode's
/// "Preserve After Deletion" (`preserveAfterDeletion="YES"`). The store keeps them in
/// `ACHANGE.ZTOMBSTONE0…`, as real stores of Apple's (Photos.sqlite) do.
@Suite struct TombstoneTests {
    /// `Item` preserves `uid` and `count`, not `title`; `Tag` preserves nothing.
    static func model() -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType, preserved: Bool) -> NSAttributeDescription {
            let a = StoreSpecificMigrationTests.attribute(name, type)
            a.preservesValueInHistoryOnDeletion = preserved
            return a
        }
        let item = NSEntityDescription()
        item.name = "Item"
        item.managedObjectClassName = "NSManagedObject"
        item.properties = [
            attribute("title", .stringAttributeType, preserved: false), attribute("uid", .stringAttributeType, preserved: true),
            attribute("count", .integer16AttributeType, preserved: true),
        ]
        let tag = NSEntityDescription()
        tag.name = "Tag"
        tag.managedObjectClassName = "NSManagedObject"
        tag.properties = [attribute("name", .stringAttributeType, preserved: false)]
        let model = NSManagedObjectModel()
        model.entities = [item, tag]
        return model
    }

    private func changes(_ context: NSManagedObjectContext) throws -> [NSPersistentHistoryChange] {
        try context.performAndWait {
            let result = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)) as? NSPersistentHistoryResult
            return (result?.result as? [NSPersistentHistoryTransaction] ?? []).flatMap { $0.changes ?? [] }
        }
    }

    @Test func aDeleteKeepsThePreservedAttributesInItsChange() throws {
        let dir = TempDirectory("tombstones")
        let container = try PersistentHistoryTests.container(dir, file: "Items.sqlite", model: Self.model())
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            item.setValue("first", forKey: "title")
            item.setValue("A-1", forKey: "uid")
            item.setValue(7, forKey: "count")
            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            tag.setValue("red", forKey: "name")
            try context.save()
            item.setValue(9, forKey: "count")  // the value at deletion is kept, not the first
            try context.save()
            context.delete(item)
            context.delete(tag)
            try context.save()
        }
        let all = try changes(container.newBackgroundContext())
        #expect(all.map(\.changeType) == [.insert, .insert, .update, .delete, .delete])
        #expect(all.prefix(3).allSatisfy { $0.tombstone == nil })
        let itemDelete = try #require(all.first { $0.changeType == .delete && $0.changedEntityName == "Item" })
        let tombstone = try #require(itemDelete.tombstone)
        #expect(Set(tombstone.keys.compactMap { $0 as? String }) == ["uid", "count"])
        #expect(tombstone["uid"] as? String == "A-1")
        #expect(tombstone["count"] as? Int == 9)
        // An entity that preserves nothing has no tombstone.
        #expect(all.first { $0.changeType == .delete && $0.changedEntityName == "Tag" }?.tombstone == nil)

        // As the store keeps it: the preserved values in ZTOMBSTONE0, ZTOMBSTONE1.
        let q = try DatabaseQueue(path: dir.file("Items.sqlite").path)
        try q.read { db in
            let row = try #require(try Row.fetchOne(db, sql: """
                SELECT ZTOMBSTONE0, ZTOMBSTONE1 FROM ACHANGE \
                WHERE ZCHANGETYPE = 2 AND ZENTITY = (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Item')
                """))
            #expect(row[0] as String? == "A-1")
            #expect(row[1] as Int? == 9)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ACHANGE WHERE ZTOMBSTONE0 IS NOT NULL") == 1)
        }
    }

    @Test func anXcodeModelMarksAPreservedAttribute() throws {
        let dir = TempDirectory("tombstone-model")
        let folder = dir.file("Items.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Item" representedClassName="Item" syncable="YES">
                <attribute name="uid" optional="YES" attributeType="String" preserveAfterDeletion="YES"/>
                <attribute name="title" optional="YES" attributeType="String"/>
            </entity>
        </model>
        """.write(to: folder.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let model = try #require(NSManagedObjectModel(contentsOf: folder))
        let attributes = try #require(model.entitiesByName["Item"]?.attributesByName)
        #expect(attributes["uid"]?.preservesValueInHistoryOnDeletion == true)
        #expect(attributes["title"]?.preservesValueInHistoryOnDeletion == false)
    }

    @Test func aStoreWithoutTombstoneColumnsGetsThemWhenTheModelPreserves() throws {
        let dir = TempDirectory("tombstone-columns")
        // First opened with a model that preserves nothing: no tombstone column.
        let plain = Self.model()
        for e in plain.entities { for case let a as NSAttributeDescription in e.properties { a.preservesValueInHistoryOnDeletion = false } }
        let first = try PersistentHistoryTests.container(dir, file: "Items.sqlite", model: plain)
        let c = first.newBackgroundContext()
        try c.performAndWait {
            _ = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: c)
            try c.save()
        }
        try first.persistentStoreCoordinator.persistentStores.forEach { try first.persistentStoreCoordinator.remove($0) }
        try DatabaseQueue(path: dir.file("Items.sqlite").path).read { db in
            let names = try db.columns(in: "ACHANGE").map(\.name)
            #expect(!names.contains("ZTOMBSTONE0"))
        }
        // Reopened with the preserving model: the columns are added, the history kept.
        let second = try PersistentHistoryTests.container(dir, file: "Items.sqlite", model: Self.model())
        try DatabaseQueue(path: dir.file("Items.sqlite").path).read { db in
            let names = try db.columns(in: "ACHANGE").map(\.name)
            #expect(names.contains("ZTOMBSTONE0") && names.contains("ZTOMBSTONE1") && !names.contains("ZTOMBSTONE2"))
        }
        #expect(try changes(second.newBackgroundContext()).count == 1)
    }
}
