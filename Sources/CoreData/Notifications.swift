@_spi(CoreData) public import ManagedContext

/// Core Data's notification `userInfo` keys. Object sets are `Set<NSManagedObject>`
/// (cast them as Core Data code does: `as? Set<NSManagedObject>`).
public let NSInsertedObjectsKey = ManagedObjectContext.NotificationKey.insertedObjects.rawValue
public let NSUpdatedObjectsKey = ManagedObjectContext.NotificationKey.updatedObjects.rawValue
public let NSDeletedObjectsKey = ManagedObjectContext.NotificationKey.deletedObjects.rawValue
public let NSRefreshedObjectsKey = ManagedObjectContext.NotificationKey.refreshedObjects.rawValue
public let NSInvalidatedAllObjectsKey = ManagedObjectContext.NotificationKey.invalidatedAllObjects.rawValue
public let NSInvalidatedObjectsKey = ManagedObjectContext.NotificationKey.invalidatedObjects.rawValue
public let NSInsertedObjectIDsKey = ManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue
public let NSUpdatedObjectIDsKey = ManagedObjectContext.NotificationKey.updatedObjectIDs.rawValue
public let NSDeletedObjectIDsKey = ManagedObjectContext.NotificationKey.deletedObjectIDs.rawValue
public let NSRefreshedObjectIDsKey = ManagedObjectContext.NotificationKey.refreshedObjectIDs.rawValue
public let NSInvalidatedObjectIDsKey = ManagedObjectContext.NotificationKey.invalidatedObjectIDs.rawValue
public let NSManagedObjectContextQueryGenerationKey = ManagedObjectContext.NotificationKey.queryGeneration.rawValue
/// Core Data's key of the persistent history token in a remote-change notification.
public let NSPersistentHistoryTokenKey = "historyToken"
/// Core Data's key of the store URL in a remote-change notification.
public let NSPersistentStoreURLKey = "storeURL"

extension Notification.Name {
    /// Core Data's `NSManagedObjectContextObjectsDidChange`.
    public static let NSManagedObjectContextObjectsDidChange = ManagedObjectContext.didChangeObjectsNotification
    /// Core Data's `NSManagedObjectContextWillSave`.
    public static let NSManagedObjectContextWillSave = ManagedObjectContext.willSaveObjectsNotification
    /// Core Data's `NSManagedObjectContextDidSave`.
    public static let NSManagedObjectContextDidSave = ManagedObjectContext.didSaveObjectsNotification
    /// Core Data's `NSManagedObjectContextDidSaveObjectIDs`.
    public static let NSManagedObjectContextDidSaveObjectIDs = ManagedObjectContext.didSaveObjectIDsNotification
    /// Core Data's `NSManagedObjectContextDidMergeChangesObjectIDs`.
    public static let NSManagedObjectContextDidMergeChangesObjectIDs = ManagedObjectContext.didMergeChangesObjectIDsNotification
    /// Core Data's `NSPersistentStoreRemoteChange`: posted on a private thread, with the
    /// coordinator as its object, after each write to a store added with
    /// `NSPersistentStoreRemoteChangeNotificationPostOptionKey` (and history tracking), by
    /// this process or another; `userInfo` holds `NSPersistentStoreURLKey`,
    /// `NSStoreUUIDKey` and `NSPersistentHistoryTokenKey`.
    public static let NSPersistentStoreRemoteChange = PersistentStoreCoordinator.remoteChangeNotification
    /// Core Data's `NSPersistentStoreCoordinatorStoresDidChange`: posted by a coordinator
    /// (the object) after a store is added or removed, with `NSAddedPersistentStoresKey` or
    /// `NSRemovedPersistentStoresKey` holding the stores.
    public static let NSPersistentStoreCoordinatorStoresDidChange = Notification.Name("NSPersistentStoreCoordinatorStoresDidChangeNotification")
    /// Core Data's `NSPersistentStoreCoordinatorWillRemoveStore`: posted with the store
    /// being removed as its object, before it goes.
    public static let NSPersistentStoreCoordinatorWillRemoveStore = Notification.Name("NSPersistentStoreCoordinatorWillRemoveStoreNotification")
    /// Core Data's `NSPersistentStoreCoordinatorStoresWillChange`: Core Data posts it only
    /// when iCloud's ubiquitous stores change, which Linux has none of, so it is never posted.
    public static let NSPersistentStoreCoordinatorStoresWillChange = Notification.Name("NSPersistentStoreCoordinatorStoresWillChangeNotification")
    /// Core Data's `NSPersistentStoreDidImportUbiquitousContentChanges` (deprecated with
    /// iCloud's ubiquitous stores): Linux has no ubiquitous store, so it is never posted;
    /// declared so that stacks that observe it (AERecord's) compile.
    public static let NSPersistentStoreDidImportUbiquitousContentChanges = Notification.Name("NSPersistentStoreDidImportUbiquitousContentChangesNotification")
}

/// Core Data's `NSManagedObjectContextDidSave` global, as older code spells it.
public let NSManagedObjectContextDidSave = ManagedObjectContext.didSaveObjectsNotification
/// Core Data's `NSManagedObjectContextObjectsDidChange` global.
public let NSManagedObjectContextObjectsDidChange = ManagedObjectContext.didChangeObjectsNotification
/// Core Data's `NSManagedObjectContextWillSave` global.
public let NSManagedObjectContextWillSave = ManagedObjectContext.willSaveObjectsNotification

extension ManagedObjectContext {
    /// Core Data's `mergeChanges(fromRemoteContextSave:into:)`: merges the changes
    /// `changeNotificationData` describes (keys `NSInsertedObjectsKey`, … holding
    /// objects, objectIDs or their URIs) into each context, on its queue.
    public static func mergeChanges(fromRemoteContextSave changeNotificationData: [AnyHashable: Any], into contexts: [NSManagedObjectContext]) {
        for context in contexts {
            func ids(_ key: String) -> Set<ManagedObjectID> {
                guard let value = changeNotificationData[key] else { return [] }
                let items: [Any]
                switch value {
                case let set as Set<ManagedObjectID>: return set
                case let array as [ManagedObjectID]: return Set(array)
                case let set as Set<ManagedObject>: return Set(set.map(\.objectID))
                case let set as NSSet: items = set.allObjects
                case let array as [Any]: items = array
                default: return []
                }
                return Set(items.compactMap { item -> ManagedObjectID? in
                    if let id = item as? ManagedObjectID { return id }
                    if let object = item as? ManagedObject { return object.objectID }
                    if let url = item as? URL { return context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: url) }
                    return nil
                })
            }
            let changes = SaveChanges(inserted: ids(NSInsertedObjectsKey), updated: ids(NSUpdatedObjectsKey), deleted: ids(NSDeletedObjectsKey))
            context.performAndWait { context.mergeChanges(changes) }
        }
    }
}

/// `IndexPath`'s `section`, `item` and `row`, which UIKit and AppKit add on Apple
/// platforms, for the fetched results controller.
extension IndexPath {
    public init(item: Int, section: Int) { self.init(indexes: [section, item]) }
    public init(row: Int, section: Int) { self.init(indexes: [section, row]) }
    public var section: Int { self[0] }
    public var item: Int { self[1] }
    public var row: Int { self[1] }
}

/// Core Data's `entity` API on the runtime's entity, through its model description
/// (an object's `entity` is the runtime's `EntityDescription`).
extension EntityDescription {
    /// The class name the model gives (`representedClassName`).
    public var managedObjectClassName: String! { NSManagedObjectModel.description(of: self).managedObjectClassName }
    public var attributesByName: [String: NSAttributeDescription] { NSManagedObjectModel.description(of: self).attributesByName }
    public var relationshipsByName: [String: NSRelationshipDescription] { NSManagedObjectModel.description(of: self).relationshipsByName }
    public var propertiesByName: [String: NSPropertyDescription] { NSManagedObjectModel.description(of: self).propertiesByName }
    public var userInfo: [AnyHashable: Any]? { NSManagedObjectModel.description(of: self).userInfo }
}
