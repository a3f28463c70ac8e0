import CoreData
import Foundation

final class Mood: NSManagedObject {
    @NSManaged var colors: Data
    @NSManaged var pendingUpload: Bool
}

extension Mood {
    /// How many moods wait for an upload, counted on the context handed in: the caller
    /// must be on that context's queue.
    static func count(in context: NSManagedObjectContext) -> Int {
        let request = NSFetchRequest<Mood>(entityName: "Mood")
        request.predicate = NSPredicate(format: "pendingUpload == YES")
        return (try? context.count(for: request)) ?? 0
    }
}
