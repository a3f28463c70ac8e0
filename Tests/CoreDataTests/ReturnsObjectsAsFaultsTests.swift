import Foundation
import GRDB
import Testing
import TestSupport

@testable import CoreData

/// Counts its `awakeFromFetch` calls: Apple's "Provides an opportunity to add code into
/// the life cycle of the managed object when fulfilling it from a fault".
final class AwakeCountingNote: NSManagedObject {
    var awakenings = 0
    override func awakeFromFetch() {
        super.awakeFromFetch()
        awakenings += 1
    }
}

/// `NSFetchRequest.returnsObjectsAsFaults`, as Apple documents it: "The default value is
/// true. This setting is not used if the result type … is NSManagedObjectIDResultType";
/// with true, "Core Data fetches the object data for the matching records, fills the row
/// cache with the information, and returns managed object as faults … When the fault is
/// fired, Core Data retrieves the data from the row cache"; set it to false "if you know
/// you will need to access the property values from the returned objects".
@Suite struct ReturnsObjectsAsFaultsTests {
    static func store(_ dir: TempDirectory, titles: [String]) throws -> NSPersistentContainer {
        let container = try NotesModel.container(in: dir, model: NotesModel.make(noteClassName: "AwakeCountingNote"))
        let c = container.newBackgroundContext()
        try c.performAndWait {
            for t in titles {
                NSEntityDescription.insertNewObject(forEntityName: "Note", into: c).setValue(t, forKey: "title")
            }
            try c.save()
        }
        return container
    }

    static func request(asFaults: Bool? = nil) -> NSFetchRequest<NSManagedObject> {
        let r = NSFetchRequest<NSManagedObject>(entityName: "Note")
        r.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        if let asFaults { r.returnsObjectsAsFaults = asFaults }
        return r
    }

    @Test func fetchedObjectsAreFaultsUntilFirstUse() throws {
        let dir = TempDirectory("faults-default")
        let container = try Self.store(dir, titles: ["a", "b"])
        let c = container.newBackgroundContext()
        try c.performAndWait {
            #expect(Self.request().returnsObjectsAsFaults)
            let notes = try c.fetch(Self.request())
            #expect(notes.count == 2 && notes.allSatisfy(\.isFault))
            let first = try #require(notes.first as? AwakeCountingNote)
            #expect(first.awakenings == 0)
            #expect(first.value(forKey: "title") as? String == "a")
            #expect(!first.isFault && first.awakenings == 1)
            #expect(notes[1].isFault)
        }
    }

    @Test func falseRealizesThemAtTheFetch() throws {
        let dir = TempDirectory("faults-false")
        let container = try Self.store(dir, titles: ["a"])
        let c = container.newBackgroundContext()
        try c.performAndWait {
            let note = try #require(try c.fetch(Self.request(asFaults: false)).first as? AwakeCountingNote)
            #expect(!note.isFault && note.awakenings == 1)
            #expect(note.value(forKey: "title") as? String == "a")
        }
    }

    /// The fault fires from the row the fetch read: a write to the file behind the
    /// stack's back (no save through it) is not seen, as Core Data's row cache does not
    /// see it; a save through the stack after the fetch is.
    @Test func theFaultFiresFromTheRowTheFetchRead() throws {
        let dir = TempDirectory("faults-row-cache")
        let container = try Self.store(dir, titles: ["a", "b"])
        let c = container.newBackgroundContext()
        try c.performAndWait {
            let notes = try c.fetch(Self.request())
            let q = try DatabaseQueue(path: dir.file("Notes.sqlite").path)
            try q.write { db in try db.execute(sql: "UPDATE ZNOTE SET ZTITLE = 'outside' WHERE ZTITLE = 'a'") }
            try q.close()
            #expect(notes[0].value(forKey: "title") as? String == "a")
        }
        // A save through the stack moves Core Data's row cache on: the fault reads it.
        let fresh = container.newBackgroundContext()
        let other = container.newBackgroundContext()
        try fresh.performAndWait {
            let notes = try fresh.fetch(Self.request())
            #expect(notes.count == 2 && notes.allSatisfy(\.isFault))
            try other.performAndWait {
                let b = try other.fetch(Self.request(asFaults: false)).first { $0.value(forKey: "title") as? String == "b" }
                b?.setValue("b2", forKey: "title")
                try other.save()
            }
            #expect(notes[0].value(forKey: "title") as? String == "b2")
        }
    }

    /// Objects the context already held realized, or changed, come back as they are.
    @Test func heldObjectsStayAsTheyAre() throws {
        let dir = TempDirectory("faults-held")
        let container = try Self.store(dir, titles: ["a", "b"])
        let c = container.newBackgroundContext()
        try c.performAndWait {
            let realized = try c.fetch(Self.request(asFaults: false))
            realized[1].setValue("changed", forKey: "title")
            let again = try c.fetch(Self.request())
            #expect(again.count == 2)
            #expect(again.allSatisfy { !$0.isFault })
            #expect(again.contains { $0 === realized[0] })
        }
    }
}
