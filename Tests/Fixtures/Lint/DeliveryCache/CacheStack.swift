import CoreData

/// A stack whose saving context is a new background context at every read.
final class CacheStack {
    lazy var container: NSPersistentContainer = {
        let container = NSPersistentContainer(name: "Deliveries")
        container.loadPersistentStores { _, error in
            if let error { fatalError("\(error)") }
        }
        return container
    }()

    var savingContext: NSManagedObjectContext {
        container.newBackgroundContext()
    }

    /// Not a new context at each read: one context, made once and kept.
    private var cachedContext: NSManagedObjectContext?
    var sharedContext: NSManagedObjectContext {
        if let cachedContext { return cachedContext }
        let context = container.newBackgroundContext()
        cachedContext = context
        return context
    }
}

@objc(DeliveryRecord)
final class DeliveryRecord: NSManagedObject {
    @NSManaged var code: String?
}
