public import Foundation

/// What a context posts: objects-did-change after `processPendingChanges()` (and at
/// `reset()`), will-save and did-save around a save, each on the context's queue.
extension ManagedObjectContext {
    /// The notifications a context posts, on its own queue.
    public static let didChangeObjectsNotification = Notification.Name("ManagedObjectContextObjectsDidChange")
    /// Before a save writes anything (Core Data's `NSManagedObjectContextWillSave`).
    public static let willSaveObjectsNotification = Notification.Name("ManagedObjectContextWillSave")
    /// After a save, with the saved objects in its user info (Core Data's
    /// `NSManagedObjectContextDidSave`): what `mergeChanges(fromContextDidSave:)` takes.
    public static let didSaveObjectsNotification = Notification.Name("ManagedObjectContextDidSave")
    /// Core Data's `NSManagedObjectContextDidSaveObjectIDs`: after each did-save, the
    /// same save as objectID sets only (`insertedObjectIDs`, `updatedObjectIDs`,
    /// `deletedObjectIDs`), which any queue may read.
    public static let didSaveObjectIDsNotification = Notification.Name("NSManagedObjectContextDidSaveObjectIDsNotification")
    /// Core Data's `NSManagedObjectContextDidMergeChangesObjectIDs`: after a merge into
    /// this context, the merged objectIDs.
    public static let didMergeChangesObjectIDsNotification = Notification.Name("NSManagedObjectContextDidMergeChangesObjectIDsNotification")

    /// Keys of the notifications' `userInfo`. Object sets are `Set<ManagedObject>`,
    /// objectID sets `Set<ManagedObjectID>`; `invalidatedAllObjects`, posted by
    /// `reset()`, holds an array of the forgotten objects' IDs (`[ManagedObjectID]`),
    /// as Core Data's `NSInvalidatedAllObjectsKey` holds an array of objectIDs.
    /// The raw values are Core Data's (`NSInsertedObjectsKey` is "inserted",
    /// `NSInsertedObjectIDsKey` "inserted_objectIDs").
    public enum NotificationKey: String, Sendable {
        /// The objects inserted, updated or deleted (`NSInsertedObjectsKey`,
        /// `NSUpdatedObjectsKey`, `NSDeletedObjectsKey`).
        case insertedObjects = "inserted", updatedObjects = "updated", deletedObjects = "deleted"
        /// The objects refreshed or invalidated; `invalidatedAllObjects`: every object
        /// `reset()` forgot, as IDs.
        case refreshedObjects = "refreshed", invalidatedObjects = "invalidated", invalidatedAllObjects = "invalidatedAll"
        /// The IDs of the objects inserted, updated or deleted (the did-save-object-IDs
        /// notification's keys).
        case insertedObjectIDs = "inserted_objectIDs", updatedObjectIDs = "updated_objectIDs", deletedObjectIDs = "deleted_objectIDs"
        /// The IDs of the objects refreshed or invalidated.
        case refreshedObjectIDs = "refreshed_objectIDs", invalidatedObjectIDs = "invalidated_objectIDs"
        /// The context's query generation (`NSManagedObjectContextQueryGenerationKey`).
        case queryGeneration = "managedObjectContextQueryGeneration"
    }

    /// `processPendingChanges()`, as the runtime calls it (not a subclass's override).
    final func postPendingChanges() {
        // Runs at the end of every perform block: no closure on the unguarded path.
        let contextGuard = self.contextGuard
        if _fastPath(!contextGuard.isGuarded) {
            postPendingChanges(through: contextGuard)
        } else {
            confined { postPendingChanges(through: contextGuard) }
        }
    }

    private func postPendingChanges(through contextGuard: ContextGuard) {
        if _slowPath(undoRecording != nil) { registerUndoBatch() }
        guard changeSets.hasPendingChanges else { return }
        let pending = changeSets.takePending()
        let info: [String: Any] = [
            NotificationKey.insertedObjects.rawValue: pending.inserted,
            NotificationKey.updatedObjects.rawValue: pending.updated,
            NotificationKey.deletedObjects.rawValue: pending.deleted,
            NotificationKey.refreshedObjects.rawValue: pending.refreshed,
        ]
        contextGuard.post(Self.didChangeObjectsNotification, object: self, userInfo: info)
    }
}

extension Notification.Name {
    /// Core Data's `NSManagedObjectContextObjectsDidChange`.
    public static let ManagedObjectContextObjectsDidChange = ManagedObjectContext.didChangeObjectsNotification
    /// Core Data's `NSManagedObjectContextWillSave`.
    public static let ManagedObjectContextWillSave = ManagedObjectContext.willSaveObjectsNotification
    /// Core Data's `NSManagedObjectContextDidSave`.
    public static let ManagedObjectContextDidSave = ManagedObjectContext.didSaveObjectsNotification
}
