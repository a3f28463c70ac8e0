@testable import CoreData
@_spi(CoreData) import ManagedContext
import Foundation
import Testing
import TestSupport

/// Issue 46: what real suites read back through key-value coding and predicates.
@Suite struct KeyValueBridgingTests {
    /// CoreDataMigrationRevised-Example's `value(forKey: "index") as! Int` of an Integer 16
    /// attribute, and AERecord's `value(forKey:) as? Int`: Core Data's `value(forKey:)`
    /// returns an `NSNumber` for a number attribute ("Core Data ... represents numeric
    /// attributes as NSNumber", Core Data Programming Guide, "Managed Object Accessor
    /// Methods"), which casts to every integer type. A Swift `Int16` in an `Any` does not
    /// cast to `Int` on Linux.
    @Test func numberAttributesReadAsNSNumbers() throws {
        let dir = TempDirectory("kv-bridging")
        let context = try NotesModel.container(in: dir).viewContext
        try context.performAndWait {
            let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
            note.setValue(Int16(7), forKey: "priority")
            note.setValue(Float(1.5), forKey: "weight")
            note.setValue("t", forKey: "title")
            #expect(note.value(forKey: "priority") as? Int == 7)
            #expect(note.value(forKey: "priority") as? Int16 == 7)
            #expect(note.value(forKey: "priority") as? Int64 == 7)
            #expect(note.value(forKey: "priority") is NSNumber)
            #expect(note.value(forKey: "weight") as? Double == 1.5)
            #expect(note.value(forKey: "weight") as? Float == 1.5)
            #expect(note.value(forKey: "title") as? String == "t")
            #expect(note.primitiveValue(forKey: "priority") as? Int == 7)
            try context.save()
            context.refreshAllObjects()
            #expect(note.value(forKey: "priority") as? Int == 7)
            // The predicate evaluator and fetches still compare numbers by value.
            let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
            request.predicate = NSPredicate(format: "priority == %d", 7)
            #expect(try context.fetch(request).count == 1)
            #expect(NSPredicate(format: "priority > 6").evaluate(with: note))
        }
    }

    /// Kuery's `Query.execute()` calls `NSFetchRequest.execute()` inside
    /// `context.performAndWait`: Core Data's "Executes the fetch request using the current
    /// managed object context. This method must be called from within a block submitted to
    /// a managed object context" (NSFetchRequest.execute() documentation).
    @Test func executeFetchesInTheContextWhoseBlockIsRunning() throws {
        let dir = TempDirectory("kv-execute")
        let container = try NotesModel.container(in: dir)
        let view = container.viewContext
        let background = container.newBackgroundContext()
        try view.performAndWait {
            _ = NSEntityDescription.insertNewObject(forEntityName: "Note", into: view)
            try view.save()
            _ = NSEntityDescription.insertNewObject(forEntityName: "Note", into: view)
            // The view context's unsaved insert is in its own fetch.
            #expect(try NSFetchRequest<NSManagedObject>(entityName: "Note").execute().count == 2)
            // A nested block of another context makes that one current, and the outer
            // one current again after it.
            try background.performAndWait {
                let found = try NSFetchRequest<NSManagedObject>(entityName: "Note").execute()
                #expect(found.count == 1)
                #expect(found.allSatisfy { $0.managedObjectContext === background })
            }
            #expect(try NSFetchRequest<NSManagedObject>(entityName: "Note").execute().count == 2)
        }
        #expect(ManagedObjectContext.current == nil)
    }

    /// AERecord's `predicate.predicateFormat.contains("name == \"Tinna\"")` of a compound
    /// of `%K = %@` predicates: Apple's Foundation writes `=` as `==`, strings quoted, and
    /// subpredicates joined by ` AND `; `ctxdebug port` rewrites `predicateFormat` to this.
    @Test func predicateFormatIsWrittenAsCoreDataWritesIt() {
        let name = NSPredicate(format: "%K = %@", argumentArray: ["name", "Tinna"])
        let color = NSPredicate(format: "%K = %@", argumentArray: ["color", "lightgray"])
        #expect(name.portedPredicateFormat == "name == \"Tinna\"")
        let both = NSCompoundPredicate(type: .and, subpredicates: [name, color])
        #expect(both.portedPredicateFormat == "name == \"Tinna\" AND color == \"lightgray\"")
        let either = NSCompoundPredicate(orPredicateWithSubpredicates: [both, NSPredicate(format: "age >= 3")])
        #expect(either.portedPredicateFormat == "(name == \"Tinna\" AND color == \"lightgray\") OR age >= 3")
        #expect(NSCompoundPredicate(notPredicateWithSubpredicate: name).portedPredicateFormat == "NOT name == \"Tinna\"")
        #expect(NSPredicate(format: "title CONTAINS[cd] %@ AND ANY tags.name IN %@", "a\"b", ["x", "y"]).portedPredicateFormat
            == "title CONTAINS[cd] \"a\\\"b\" AND ANY tags.name IN {\"x\", \"y\"}")
        #expect(NSPredicate(format: "done == %@ AND parent == nil", NSNumber(value: true)).portedPredicateFormat == "done == 1 AND parent == nil")
        #expect(NSPredicate(value: true).portedPredicateFormat == "TRUEPREDICATE")
    }
}
