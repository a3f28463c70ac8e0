// The fixed twin of ../bug/MergePolicyTests.swift.txt (kasianov-mikhail/scout #1040):
// the test uses a private context, only inside its performAndWait.
import CoreData
import Foundation
import Testing

final class EventEntry: NSManagedObject {
    @NSManaged var eventID: UUID?
    @NSManaged var name: String?
}

@Suite("Merge policy")
struct MergePolicyTests {
    @Test("A second insert with the same key replaces the first")
    func duplicateInsertDedupes() throws {
        let container = NSPersistentContainer(name: "Analytics")
        container.loadPersistentStores { _, error in
            precondition(error == nil)
        }
        let context = container.newBackgroundContext()
        let key = UUID()

        let count = try context.performAndWait {
            let first = EventEntry(context: context)
            first.eventID = key
            first.name = "first"
            try context.save()

            let second = EventEntry(context: context)
            second.eventID = key
            second.name = "second"
            try context.save()

            return try context.fetch(NSFetchRequest<EventEntry>(entityName: "EventEntry")).count
        }
        #expect(count == 1)
    }
}
