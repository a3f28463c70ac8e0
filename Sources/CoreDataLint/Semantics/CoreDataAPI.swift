/// The parts of Apple's Core Data and Dispatch API the rules know by name.
enum CoreDataAPI {
    static let contextType = "NSManagedObjectContext"
    static let managedObjectType = "NSManagedObject"

    /// Context methods that read or change the context's state: they must run on its queue.
    /// Apple's NSManagedObjectContext reference ("Concurrency") names two exceptions only:
    /// setter methods, which are thread-safe, and any method of a main-queue context
    /// called on the main thread.
    static let contextMethods: Set<String> = [
        "fetch", "count", "save", "insert", "delete", "object", "existingObject", "registeredObject", "reset",
        "rollback", "refresh", "refreshAllObjects", "obtainPermanentIDs", "execute", "processPendingChanges",
        "undo", "redo", "mergeChanges", "assign", "setQueryGenerationFrom", "detectConflicts", "shouldHandleInaccessibleFault",
        // Swift 2's spellings of the same (`swift2Names`).
        "executeFetchRequest", "countForFetchRequest", "deleteObject", "insertObject", "objectWithID", "existingObjectWithID",
        "objectRegisteredForID", "obtainPermanentIDsForObjects", "refreshObject", "mergeChangesFromContextDidSaveNotification",
    ]

    /// Context properties whose getter reads its state: a use on its queue. Their setters
    /// are Apple's documented exception (thread-safe), and `name`, `parent` and
    /// `concurrencyType` (and `persistentStoreCoordinator`, which only a setup reads) are
    /// not here: the runtime's checker exempts them too.
    static let contextStateProperties: Set<String> = [
        "hasChanges", "insertedObjects", "updatedObjects", "deletedObjects", "registeredObjects", "userInfo", "undoManager",
        "mergePolicy", "stalenessInterval", "automaticallyMergesChangesFromParent", "retainsRegisteredObjects",
        "shouldDeleteInaccessibleFaults", "propagatesDeletesAtEndOfEvent", "queryGenerationToken", "transactionAuthor",
    ]

    /// Members of a managed object that may be read on any queue.
    static let queueFreeObjectMembers: Set<String> = ["objectID", "entity", "managedObjectContext"]

    /// Methods whose closure runs before they return, on the caller's queue.
    static let synchronousClosureMethods: Set<String> = [
        "map", "compactMap", "flatMap", "filter", "forEach", "reduce", "sorted", "sort", "first", "last", "contains",
        "allSatisfy", "min", "max", "removeAll", "firstIndex", "lastIndex", "partition", "autoreleasepool",
        "withExtendedLifetime", "drop", "prefix",
    ]

    /// Collection methods whose result is one element of the collection.
    static let elementMethods: Set<String> = ["first", "last", "min", "max", "randomElement", "removeFirst", "removeLast", "popLast"]

    /// Collection methods whose result is a collection of the same elements.
    static let subsequenceMethods: Set<String> = ["filter", "sorted", "reversed", "prefix", "suffix", "dropFirst", "dropLast"]

    /// The names of the did-save notification (`NSManagedObjectContextDidSaveNotification`
    /// before Swift 3).
    static let didSaveNotifications: Set<String> = ["NSManagedObjectContextDidSave", "didSaveObjectsNotification", "NSManagedObjectContextDidSaveNotification"]

    /// Swift 2's names of Core Data's methods and properties (the Objective-C selectors,
    /// before Swift 3 renamed them: SE-0005, "Better Translation of Objective-C APIs Into
    /// Swift"), by the name Swift 3 gave them: the same API, read as one.
    static let swift2Names: [String: String] = [
        "performBlock": "perform", "performBlockAndWait": "performAndWait", "executeFetchRequest": "fetch",
        "countForFetchRequest": "count", "deleteObject": "delete", "insertObject": "insert", "objectWithID": "object",
        "existingObjectWithID": "existingObject", "objectRegisteredForID": "registeredObject",
        "obtainPermanentIDsForObjects": "obtainPermanentIDs", "refreshObject": "refresh",
        "mergeChangesFromContextDidSaveNotification": "mergeChanges", "parentContext": "parent",
    ]

    /// A member's name as Swift 3 and later spell it: `performBlockAndWait` is `performAndWait`.
    static func modernName(_ name: String) -> String { swift2Names[name] ?? name }

    /// Result types of a fetch request that are not managed objects.
    static let nonObjectResults: Set<String> = ["NSManagedObjectID", "NSDictionary", "NSNumber"]

    /// The queue a token names in a context's setup: `.mainQueueConcurrencyType`,
    /// `viewContext`, `newBackgroundContext()`...
    static func queue(named token: String) -> ContextQueue? {
        switch token {
        case "mainQueueConcurrencyType", "MainQueueConcurrencyType", "viewContext": .main
        case "privateQueueConcurrencyType", "PrivateQueueConcurrencyType", "newBackgroundContext": .private
        default: nil
        }
    }
}
