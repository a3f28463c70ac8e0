import CoreData
import Foundation

class JournalEntry: NSManagedObject {
    @NSManaged var date: Date?
    @NSManaged var height: String?
    @NSManaged var location: String?
    @NSManaged var rating: Int16

    func csv() -> String {
        let coalescedHeight = height ?? ""
        let coalescedLocation = location ?? ""
        return "\(date.map(String.init(describing:)) ?? ""),\(coalescedHeight),\(coalescedLocation),\(rating)\n"
    }
}
