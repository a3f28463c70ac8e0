import CoreData
import Foundation

final class Note: NSManagedObject {
    @NSManaged var title: String
    @NSManaged var image: Data?
    @NSManaged var attachments: Set<Attachment>
}

final class Attachment: NSManagedObject {
    @NSManaged var data: Data
    @NSManaged var note: Note?
}
