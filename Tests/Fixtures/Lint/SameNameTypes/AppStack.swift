import CoreData

final class AppStack {
    static let shared = AppStack()
    let container = NSPersistentContainer(name: "Notes")
}

@objc(Note)
final class Note: NSManagedObject {
    @NSManaged var title: String?
}

/// Anything that holds a context: a use through it cannot tell which type's `context`
/// it reaches.
protocol ContextHolder: AnyObject {
    var context: NSManagedObjectContext { get }
}
