import CoreData

/// The first pass reads capture lists as the rules do: a capture named like a
/// parameter is not that parameter.
enum RecordCounter {
    /// Counts the archive's records; the capture `context` is the archive, not the
    /// context parameter, which is only kept for the log.
    static func count(in context: NSManagedObjectContext, archive: NSManagedObjectContext) -> Int {
        let counted = Result { [context = archive] in
            try context.count(for: NSFetchRequest<SyncRecord>(entityName: "SyncRecord"))
        }
        print(context.name ?? "")
        return (try? counted.get()) ?? 0
    }

    /// Counts the context it is handed, straight: its caller's queue.
    static func countStraight(in context: NSManagedObjectContext) -> Int {
        (try? context.count(for: NSFetchRequest<SyncRecord>(entityName: "SyncRecord"))) ?? 0
    }
}

final class ArchiveReport {
    let container: NSPersistentContainer
    let archiveContext: NSManagedObjectContext

    init(container: NSPersistentContainer) {
        self.container = container
        archiveContext = container.newBackgroundContext()
    }

    // Silent: the helper counts in the archive context, not in the scratch one.
    func archivedCount() -> Int {
        let scratch = container.newBackgroundContext()
        var count = 0
        archiveContext.performAndWait {
            count = RecordCounter.count(in: scratch, archive: archiveContext)
        }
        return count
    }

    // context-without-perform, the bug: the helper counts the scratch context straight.
    func scratchCount() -> Int {
        let scratch = container.newBackgroundContext()
        return RecordCounter.countStraight(in: scratch) // expect: context-without-perform
    }
}
