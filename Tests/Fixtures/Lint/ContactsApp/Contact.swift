import CoreData

@objc(Contact)
class Contact: NSManagedObject {
    @NSManaged var name: String
    @NSManaged var email: String?
    @NSManaged var favorite: Bool
}
