@_spi(Runtime) import ConcurrencyDebug
import CtxdebugHelpers
import Foundation
import Synchronization

/// Registration and lookup: one object per objectID, faults, permanent IDs.
extension ManagedObjectContext {
    func register(_ o: ManagedObject) {
        registry.register(o)
        adopt(o)
    }

    /// Makes `o`, already in the registry, this context's object.
    func adopt(_ o: ManagedObject) {
        o.managedObjectContext = self
        o.queueOwner = queueIdentity
        o.contextNumber = number
        o.recordsUndo = undoRecording != nil
    }

    /// The registered object for `id` or for its other name (temporary/permanent).
    func registered(_ id: ManagedObjectID) -> ManagedObject? {
        if let o = registry.object(for: id) { return o }
        guard let c = persistentStoreCoordinator, let alias = c.alias(of: id) else { return nil }
        return registry.object(for: alias)
    }

    func reKey(_ o: ManagedObject, to newID: ManagedObjectID) {
        registry.remove(o.objectID)
        o.replaceObjectID(with: newID)
        registry.register(o)
    }

    /// Every object the context holds now: fetched, faulted in, inserted or looked up.
    public var registeredObjects: Set<ManagedObject> {
        operation(.registeredObject) { Set(registry.objects) }
    }

    /// The object for `objectID`: the registered one, or a fault that loads its
    /// values on first access.
    public func object(with objectID: ManagedObjectID) -> ManagedObject {
        operation(.objectWithID) {
            if let dead = deadTemporaryIDObject(objectID) { return dead }
            return resolvedObject(with: objectID)
        }
    }

    /// `object(with:)` for the runtime's own lookups: a temporary ID whose object an
    /// ancestor has since saved still resolves, through the coordinator's alias.
    func resolvedObject(with objectID: ManagedObjectID) -> ManagedObject {
        if let o = registered(objectID) { return o }
        diagnoseTemporaryLookup(objectID, "object(with:)")
        return makeFault(objectID)
    }

    func makeFault(_ id: ManagedObjectID) -> ManagedObject {
        let o = id.entity.managedObjectClass.init(entity: id.entity, insertInto: nil)
        o.objectID = id
        o.turnIntoFault()
        register(o)
        return o
    }

    /// The object for `objectID` with its values loaded; throws when its row is gone.
    public func existingObject(with objectID: ManagedObjectID) throws(ManagedContextError) -> ManagedObject {
        try operation(.existingObject) { () throws(ManagedContextError) -> ManagedObject in
            try refuseDeadTemporaryID(objectID)
            return try resolvedExistingObject(with: objectID)
        }
    }

    /// `existingObject(with:)` for the runtime's own lookups (aliases resolve).
    func resolvedExistingObject(with objectID: ManagedObjectID) throws(ManagedContextError) -> ManagedObject {
        if let o = registered(objectID), !o.isFaultFlag, !o.deletedFlag { return o }
        if registered(objectID) == nil { diagnoseTemporaryLookup(objectID, "existingObject(with:)") }
        guard let snapshot = try loadSnapshots([objectID], skipSelf: true)[objectID] else {
            throw ManagedContextError(.objectNotFound, "No object for \(objectID): its row is not in the store (deleted, or never saved).")
        }
        return materialize(objectID, snapshot)
    }

    /// The object registered in this context for `objectID`, or nil.
    public func registeredObject(for objectID: ManagedObjectID) -> ManagedObject? {
        operation(.registeredObject) {
            if isDeadTemporaryIDHere(objectID) { return nil }
            return registered(objectID)
        }
    }

    /// The object for a fetched row: the registered one, or a new one. `asFault`
    /// (`returnsObjectsAsFaults`): a fault is left one, holding the row.
    func materialize(_ id: ManagedObjectID, _ snapshot: RowSnapshot?, asFault: Bool = false) -> ManagedObject {
        if let o = registered(id) {
            if let snapshot, !o.isFaultFlag, o.checkedSaveCount != Diagnostics.saveCount {
                diagnoseRemoteChangeUnmerged(o, operation: "fetch", attribute: nil)
                diagnoseMissingMerge(o, storeVersion: snapshot.version, operation: "fetch")
            }
            if o.isFaultFlag, !o.isInvalidated, let snapshot {
                o.values = snapshot.values
                o.toOne = snapshot.toOne
                o.snapshot = snapshot
                if asFault {
                    o.heldRowSaveCount = persistentStoreCoordinator?.savesSoFar.load(ordering: .relaxed) ?? .max
                } else {
                    o.isFaultFlag = false
                    o.awakeFromFetch()
                }
            }
            return o
        }
        let o = id.entity.managedObjectClass.init(entity: id.entity, insertInto: nil)
        o.objectID = id
        o.hasAwoken = true
        if let snapshot {
            o.values = snapshot.values
            o.toOne = snapshot.toOne
            o.snapshot = snapshot
        } else {
            o.turnIntoFault()
        }
        register(o)
        if snapshot != nil {
            if asFault {
                o.isFaultFlag = true
                o.heldRowSaveCount = persistentStoreCoordinator?.savesSoFar.load(ordering: .relaxed) ?? .max
            } else {
                o.awakeFromFetch()
            }
        }
        return o
    }

    /// Loads a fault's values from the parent (or store).
    func fulfillFault(_ o: ManagedObject, byRuntime: Bool = false) {
        if o.isInvalidated || o.objectID.isTemporaryID && o.snapshot == nil && !o.insertedFlag && persistentStoreCoordinator?.alias(of: o.objectID) == nil && parent == nil {
            markStale(o, byRuntime: byRuntime)
            return
        }
        let loaded: RowSnapshot?
        do {
            loaded = try loadSnapshots([o.objectID], skipSelf: true)[o.objectID]
        } catch {
            FileHandle.standardError.write(Data("ctxdebug: could not fulfill a fault for \(o.objectID): \(error)\n".utf8))
            loaded = nil
        }
        guard let loaded else {
            markStale(o, byRuntime: byRuntime)
            return
        }
        o.values = loaded.values
        o.toOne = loaded.toOne
        o.snapshot = loaded
        o.isFaultFlag = false
        o.awakeFromFetch()
    }

    /// A fault with no row behind it. After `reset()` it is stale: values nil. Else the
    /// row was deleted, and with `shouldDeleteInaccessibleFaults` (Core Data's default)
    /// the object becomes deleted, as Core Data documents: "attributes … all set to nil or
    /// 0", "isDeleted … set to true, which adds the object to the context's deletedObjects
    /// set", "exempt from validation rules", discarded at the next save. So inverse
    /// maintenance on it marks nothing updated, and no later save conflicts over it.
    private func markStale(_ o: ManagedObject, byRuntime: Bool) {
        let wasReset = o.isInvalidated
        o.isFaultFlag = false
        o.isStale = true
        if !byRuntime { diagnoseStaleObject(o, reset: wasReset) }
        o.values = o.entity.attributes.map { _ in .null }
        if !wasReset && shouldDeleteInaccessibleFaults && o.managedObjectContext === self && !o.deletedFlag && !o.insertedFlag {
            o.isInaccessibleFault = true
            o.updatedFlag = false
            changeSets.updated.remove(o)
            o.deletedFlag = true
            changeSets.deleted.insert(o)
            return
        }
        FileHandle.standardError.write(Data("ctxdebug: could not fulfill a fault for \(o.objectID): its row is gone (deleted and saved, or its context was reset). Its values read as nil.\n".utf8))
    }

    // MARK: Permanent IDs

    /// Gives each inserted object a permanent ID now, before the save, so its ID
    /// can be handed to other contexts.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws(ManagedContextError) {
        try operation(.obtainPermanentIDs) { () throws(ManagedContextError) in try obtainPermanentIDsChecked(for: objects) }
    }

    private func obtainPermanentIDsChecked(for objects: [ManagedObject]) throws(ManagedContextError) {
        let store = try coordinator.store()
        let temporary = objects.filter { $0.objectID.isTemporaryID }
        var byEntity: [Int: [ManagedObject]] = [:]
        for o in temporary { byEntity[o.entity.index, default: []].append(o) }
        var map: [ManagedObjectID: ManagedObjectID] = [:]
        for (_, group) in byEntity {
            let entity = group[0].entity
            let keys = try store.reservePrimaryKeys(entity: entity, count: group.count)
            for (o, key) in zip(group, keys) {
                let permanent = ManagedObjectID(entity: entity, store: store.identity, primaryKey: key)
                map[o.objectID] = permanent
                reKey(o, to: permanent)
            }
        }
        try coordinator.recordPermanentIDs(map)
    }
}
