@testable import CoreData
import Foundation
import Testing
import TestSupport

/// Key-value coding of a property the model does not have. On Apple platforms
/// `value(forKey:)` finds any `@objc` property through the Objective-C runtime (Key-Value
/// Coding Programming Guide, "Accessor Search Patterns": `valueForKey:` "searches the
/// instance for the first accessor method found with a name like get<Key>, <key>, is<Key>,
/// or _<key>"), so a computed property serves as an `NSFetchedResultsController`'s
/// `sectionNameKeyPath` (bignerdranch/CoreDataStack's Books example sections by
/// `Book.firstInitial`). `ctxdebug port` writes an accessor enum beside each such
/// property (PortRewriter+KeyValueAccessors.swift); these classes carry them as the port
/// writes them.
class KVCNote: NSManagedObject {
    var cachedSummary: String? = nil
    enum __PortedKey_cachedSummary: PortedKeyValueAccessor {
        static func portedValue(of object: Any) -> Any? { (object as! KVCNote).cachedSummary as Any? }
        static func setPortedValue(_ value: Any?, of object: Any) -> Bool { (object as! KVCNote).cachedSummary = value as! String?; return true }
    }
}

extension KVCNote {
    var initial: String? { (value(forKey: "title") as? String)?.first.map(String.init) }
    enum __PortedKey_initial: PortedKeyValueAccessor {
        static func portedValue(of object: Any) -> Any? { (object as! KVCNote).initial as Any? }
    }
}

final class KVCDraft: KVCNote {}

@Suite struct PortedKeyValueTests {
    static func notes(in dir: TempDirectory) throws -> NSManagedObjectContext {
        try NotesModel.container(in: dir, model: NotesModel.make(noteClassName: String(reflecting: KVCNote.self))).viewContext
    }

    @Test func aComputedPropertyIsReadByKey() throws {
        let context = try Self.notes(in: TempDirectory("ported-kvc-read"))
        try context.performAndWait {
            let note = try #require(NSEntityDescription.insertNewObject(forEntityName: "Note", into: context) as? KVCNote)
            note.setValue("Bread", forKey: "title")
            #expect(note.value(forKey: "initial") as? String == "B")
            #expect(note.value(forKeyPath: "initial") as? String == "B")
            #expect(NSPredicate(format: "initial == 'B'").evaluate(with: note))
            note.setValue(nil, forKey: "title")
            #expect(note.value(forKey: "initial") == nil)
            #expect(note.dictionaryWithValues(forKeys: ["initial"])["initial"] is NSNull)
        }
    }

    @Test func aStoredPropertyIsSetByKey() throws {
        let context = try Self.notes(in: TempDirectory("ported-kvc-set"))
        context.performAndWait {
            let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context) as! KVCNote
            note.setValue("short", forKey: "cachedSummary")
            #expect(note.cachedSummary == "short")
            note.setValuesForKeys(["cachedSummary": NSNull()])
            #expect(note.cachedSummary == nil)
        }
    }

    /// A subclass has its superclass's properties; a key no class declares has none.
    @Test func accessorsAreFoundAlongTheSuperclassChain() {
        #expect(PortedKeys.accessor(forKey: "initial", of: KVCDraft.self) == KVCNote.__PortedKey_initial.self)
        #expect(PortedKeys.accessor(forKey: "missing", of: KVCDraft.self) == nil)
        #expect(PortedKeys.accessor(forKey: "initial", of: NSManagedObject.self) == nil)
    }

    @Test func aFetchedResultsControllerSectionsByAComputedProperty() throws {
        let context = try Self.notes(in: TempDirectory("ported-kvc-frc"))
        try context.performAndWait {
            for title in ["Apple", "Bread", "Avocado", "Cheese"] {
                NSEntityDescription.insertNewObject(forEntityName: "Note", into: context).setValue(title, forKey: "title")
            }
            try context.save()
            let request = NSFetchRequest<KVCNote>(entityName: "Note")
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "initial", cacheName: nil)
            try controller.performFetch()
            #expect(controller.sections?.map(\.name) == ["A", "B", "C"])
            #expect(controller.sections?.map(\.numberOfObjects) == [2, 1, 1])
        }
    }
}
