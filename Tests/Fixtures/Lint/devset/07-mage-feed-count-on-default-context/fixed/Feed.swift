// The fixed twin of ../bug/Feed.swift.txt (ngageoint/mage-ios 0fa43347): the helper
// counts on the context it was handed, on that context's queue.
import CoreData
import Foundation

final class Persistence {
    static let shared = Persistence()
    let container = NSPersistentContainer(name: "Mage")
    var viewContext: NSManagedObjectContext { container.viewContext }
}

final class Feed: NSManagedObject {
    @NSManaged var remoteID: String?
    @NSManaged var eventID: Int64
    @NSManaged var tag: Int64
}

extension Feed {
    static func populate(_ feeds: [[String: Any]], eventID: Int64, in context: NSManagedObjectContext) -> [String] {
        var count = (try? context.count(for: NSFetchRequest<Feed>(entityName: "Feed"))) ?? 0
        var ids: [String] = []
        for json in feeds {
            guard let id = json["id"] as? String else { continue }
            ids.append(id)
            let feed = Feed(context: context)
            feed.remoteID = id
            feed.eventID = eventID
            feed.tag = Int64(count)
            count += 1
        }
        return ids
    }
}

final class FeedRefresher {
    func refresh(eventID: Int64, feeds: [[String: Any]]) {
        Persistence.shared.container.performBackgroundTask { context in
            _ = Feed.populate(feeds, eventID: eventID, in: context)
            try? context.save()
        }
    }
}
