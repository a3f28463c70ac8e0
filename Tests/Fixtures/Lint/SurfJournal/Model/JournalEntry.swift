import CoreData
import Foundation

@objc(JournalEntry)
public class JournalEntry: NSManagedObject {
    @NSManaged public var date: Date?
    @NSManaged public var height: String?
    @NSManaged public var period: String?
    @NSManaged public var wind: String?
    @NSManaged public var location: String?
    @NSManaged public var rating: Int16
}

extension JournalEntry {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<JournalEntry> {
        NSFetchRequest<JournalEntry>(entityName: "JournalEntry")
    }

    func stringForDate() -> String {
        guard let date = date else { return "" }
        let dateFormatter = DateFormatter()
        dateFormatter.dateStyle = .short
        return dateFormatter.string(from: date)
    }

    func csv() -> String {
        let coalescedHeight = height ?? ""
        let coalescedPeriod = period ?? ""
        let coalescedWind = wind ?? ""
        let coalescedLocation = location ?? ""
        return "\(stringForDate()),\(coalescedHeight),\(coalescedPeriod),\(coalescedWind),\(coalescedLocation),\(rating)\n"
    }
}
