import CoreData
import Foundation

final class FeedItem: NSManagedObject {
    @NSManaged var payload: Data
    @NSManaged var receivedAt: Date
}
