import CoreData
import Foundation

/// Imports surf reports from a feed into the journal.
final class ImportService {
    let container: NSPersistentContainer

    init(container: NSPersistentContainer) {
        self.container = container
    }

    // context-without-perform, the bug: a background context used straight from the
    // caller's queue.
    func importEntries(_ rows: [[String: String]]) throws {
        let context = container.newBackgroundContext()
        for row in rows {
            let entry = JournalEntry(context: context) // expect: context-without-perform
            entry.location = row["location"] // expect: context-without-perform
            entry.height = row["height"]
        }
        try context.save() // expect: context-without-perform
    }

    // context-without-perform, the correct twin: everything inside perform.
    func importEntriesFixed(_ rows: [[String: String]]) {
        let context = container.newBackgroundContext()
        context.perform {
            for row in rows {
                let entry = JournalEntry(context: context)
                entry.location = row["location"]
                entry.height = row["height"]
            }
            try? context.save()
        }
    }

    // context-without-perform, the bug: an object of performBackgroundTask's context
    // read after the block has returned.
    func latestEntryDate() -> Date? {
        var latest: JournalEntry?
        container.performBackgroundTask { context in
            let request = JournalEntry.fetchRequest()
            request.fetchLimit = 1
            latest = try? context.fetch(request).first
        }
        return latest?.date // expect: context-without-perform
    }

    // context-without-perform, the correct twin: the value is read inside
    // performAndWait, and only the date leaves it.
    func latestEntryDateFixed() -> Date? {
        let context = container.newBackgroundContext()
        var latest: Date?
        context.performAndWait {
            let request = JournalEntry.fetchRequest()
            request.fetchLimit = 1
            latest = try? context.fetch(request).first?.date
        }
        return latest
    }

    // temporary-id-handoff, the bug: the new entry's temporary ID reaches the view
    // context before the background context saves.
    func addEntry(location: String, completion: @escaping (JournalEntry) -> Void) {
        let context = container.newBackgroundContext()
        context.perform {
            let entry = JournalEntry(context: context)
            entry.location = location
            let id = entry.objectID
            DispatchQueue.main.async {
                completion(self.container.viewContext.object(with: id) as! JournalEntry) // expect: temporary-id-handoff
            }
            try? context.save()
        }
    }

    // temporary-id-handoff, the correct twin: the context saves first, so the ID is permanent.
    func addEntryFixed(location: String, completion: @escaping (JournalEntry) -> Void) {
        let context = container.newBackgroundContext()
        context.perform {
            let entry = JournalEntry(context: context)
            entry.location = location
            do {
                try context.save()
            } catch {
                return
            }
            let id = entry.objectID
            DispatchQueue.main.async {
                completion(self.container.viewContext.object(with: id) as! JournalEntry)
            }
        }
    }

    // temporary-id-handoff, another correct twin: obtainPermanentIDs before the handoff.
    func addEntryWithPermanentID(location: String) throws -> NSManagedObjectID {
        let context = container.newBackgroundContext()
        var id: NSManagedObjectID?
        try context.performAndWait {
            let entry = NSEntityDescription.insertNewObject(forEntityName: "JournalEntry", into: context) as! JournalEntry
            entry.location = location
            try context.obtainPermanentIDs(for: [entry])
            id = entry.objectID
            _ = try container.viewContext.existingObject(with: entry.objectID)
        }
        return id!
    }
}
