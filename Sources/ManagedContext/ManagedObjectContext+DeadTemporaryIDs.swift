import Foundation

extension ManagedObjectContext {
    /// The permanent ID that replaced `id`, when `id` is a temporary ID whose object
    /// was saved (or given a permanent ID) since, and no context of this stack still
    /// has an object under it. Core Data: "If the receiver has not yet been saved,
    /// the object ID is a temporary value that will change when the object is saved"
    /// (NSManagedObject.objectID); the old value names nothing after that. The
    /// runtime's own lookups still follow the coordinator's alias (a child keeps the
    /// temporary ID of an object its parent saved, as in Core Data).
    func deadTemporaryID(_ id: ManagedObjectID) -> ManagedObjectID? {
        guard id.isTemporaryID, let permanent = persistentStoreCoordinator?.alias(of: id) else { return nil }
        return stackHoldsObject(under: id) ? nil : permanent
    }

    /// True when this context has no object under the temporary `id`, which was
    /// saved since (`registeredObject(for:)` looks in this context only).
    func isDeadTemporaryIDHere(_ id: ManagedObjectID) -> Bool {
        id.isTemporaryID && registry.object(for: id) == nil && persistentStoreCoordinator?.alias(of: id) != nil
    }

    /// True when this context or an ancestor has a live object registered under `id`
    /// itself (not under its alias).
    private func stackHoldsObject(under id: ManagedObjectID) -> Bool {
        if registry.object(for: id) != nil { return true }
        guard let parent else { return false }
        return parent.performAndWait { parent.confined { parent.stackHoldsObject(under: id) } }
    }

    /// For `object(with:)` given a dead temporary ID: reports it, and returns an
    /// object that has no values (Core Data returns a fault that raises "could not
    /// fulfill a fault" when it fires). Nil when `id` is not dead.
    func deadTemporaryIDObject(_ id: ManagedObjectID) -> ManagedObject? {
        guard let permanent = deadTemporaryID(id) else { return nil }
        reportDeadTemporaryID(id, permanent: permanent, operation: "object(with:)")
        let o = id.entity.managedObjectClass.init(entity: id.entity, insertInto: nil)
        o.objectID = id
        o.managedObjectContext = self
        o.queueOwner = queueIdentity
        o.contextNumber = number
        o.values = o.entity.attributes.map { _ in .null }
        o.isStale = true
        FileHandle.standardError.write(Data("ctxdebug: object(with:) was given \(id), a temporary objectID that died when its object was saved as \(permanent); the object returned has no values (Core Data raises \"could not fulfill a fault\" when it fires).\n".utf8))
        return o
    }

    /// For `existingObject(with:)`: throws `.objectNotFound` for a dead temporary ID,
    /// as Core Data throws when "the object doesn't exist in both the context and the
    /// persistent store".
    func refuseDeadTemporaryID(_ id: ManagedObjectID) throws(ManagedContextError) {
        guard let permanent = deadTemporaryID(id) else { return }
        reportDeadTemporaryID(id, permanent: permanent, operation: "existingObject(with:)")
        throw ManagedContextError(
            .objectNotFound,
            "No object for \(id): it is a temporary objectID, and its object was saved since as \(permanent). A temporary ID names an object only until the save; use the object's objectID after it.")
    }

    private func reportDeadTemporaryID(_ id: ManagedObjectID, permanent: ManagedObjectID, operation: String) {
        guard Diagnostics.isOn(.temporaryID) else { return }
        Diagnostics.report(
            .temporaryID,
            Diagnostics.describe(
                self, operation: operation, objectID: id,
                hint: "take the objectID after the save (it is \(permanent) now), or call obtainPermanentIDs(for:) before handing it out"),
            "\(operation) was given the temporary objectID \(id), kept from before its object was saved: the save gave the object the permanent ID \(permanent), and, as in Core Data, the temporary ID names nothing after it.")
    }
}
