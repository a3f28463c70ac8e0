@_spi(Runtime) import ConcurrencyDebug
import CtxdebugHelpers
import Foundation

/// Changes: insert, delete, the change sets, rollback, reset and refresh.
extension ManagedObjectContext {
    /// Adds a new object to the context: it is saved by the next `save()`, and is in
    /// `insertedObjects` until then.
    public func insert(_ object: ManagedObject) {
        operation(.insert) { insertChecked(object) }
    }

    private func insertChecked(_ object: ManagedObject) {
        if object.managedObjectContext === self && (object.insertedFlag || registry.object(for: object.objectID) != nil) { return }
        precondition(
            !object.entity.isAbstract,
            "Cannot create an instance of the abstract entity \(object.entity.name). Insert an object of one of its subentities (\(object.entity.subentities.map(\.name).joined(separator: ", "))) instead.")
        precondition(
            object.managedObjectContext == nil,
            "\(object.objectID) already belongs to \(object.managedObjectContext!.debugName); an object can be in one context only. Insert a new object, or use object(with:) on its objectID.")
        if _slowPath(undoRecording != nil) { noteForUndo(object) }
        object.insertedFlag = true
        object.deletedFlag = false
        register(object)
        changeSets.inserted.insert(object)
        changeSets.pendingInserted.insert(object)
        if !object.hasAwoken {
            object.hasAwoken = true
            object.awakeFromInsert()
        }
    }

    /// Marks the object for deletion: the next `save()` deletes its row and applies its
    /// relationships' delete rules; it is in `deletedObjects` until then.
    public func delete(_ object: ManagedObject) {
        operation(.delete) { deleteChecked(object) }
    }

    private func deleteChecked(_ object: ManagedObject) {
        // Deleted and saved already: gone from every context, nothing left to delete.
        if object.isRemovedByDelete { return }
        guard object.managedObjectContext === self else {
            preconditionFailure("delete(_:) was given \(object.objectID), which belongs to \(object.managedObjectContext?.debugName ?? "no context"), not to \(debugName).")
        }
        if object.deletedFlag { return }
        object.fireFaultIfNeeded()
        if _slowPath(object.recordsUndo) { noteForUndo(object) }
        object.prepareForDeletion()
        applyDeleteRules(object)
        if object.insertedFlag {
            object.insertedFlag = false
            changeSets.inserted.remove(object)
            changeSets.pendingInserted.remove(object)
            registry.remove(object.objectID)
            object.deletedFlag = true
            changeSets.deletedInserts.insert(object)
            return
        }
        object.deletedFlag = true
        changeSets.updated.remove(object)
        changeSets.deleted.insert(object)
        changeSets.pendingDeleted.insert(object)
    }

    private func applyDeleteRules(_ object: ManagedObject) {
        for r in object.entity.relationships {
            guard let inverse = r.inverseRelationship else { continue }
            let related = object.relatedObjects(forRelationshipNamed: r.name)
            for other in related where !other.deletedFlag {
                switch r.deleteRule {
                case .cascade:
                    delete(other)
                case .nullify:
                    if !inverse.isToMany { other.setToOne(inverse, to: nil, maintainInverse: false) }
                }
            }
        }
    }

    /// Called by an object the first time it changes.
    func objectDidChange(_ o: ManagedObject) {
        guard !o.insertedFlag, !o.deletedFlag, o.managedObjectContext === self else { return }
        o.updatedFlag = true
        changeSets.updated.insert(o)
        changeSets.pendingUpdated.insert(o)
    }

    final var hasUnsavedChanges: Bool {
        operation(.hasChanges) { changeSets.hasUnsavedChanges }
    }

    /// The objects inserted since the last save.
    public var insertedObjects: Set<ManagedObject> { operation(.changedObjects) { changeSets.inserted } }
    /// The saved objects changed since the last save.
    public var updatedObjects: Set<ManagedObject> { operation(.changedObjects) { changeSets.updated } }
    /// The objects deleted since the last save.
    public var deletedObjects: Set<ManagedObject> { operation(.changedObjects) { changeSets.deleted } }

    final func rollbackChanges() {
        operation(.rollback) { rollbackChecked() }
    }

    private func rollbackChecked() {
        Diagnostics.ancestorSaved(self)
        clearUndo()
        for o in changeSets.inserted.union(changeSets.deletedInserts) {
            o.insertedFlag = false
            o.deletedFlag = false
            registry.remove(o.objectID)
            o.managedObjectContext = nil
            o.queueOwner = .none
        }
        for o in changeSets.updated.union(changeSets.deleted) {
            o.updatedFlag = false
            o.deletedFlag = false
            restoreFromSnapshot(o)
        }
        changeSets.dropUnsaved()
        joinChanges = JoinChanges()
    }

    private func restoreFromSnapshot(_ o: ManagedObject) {
        if let s = o.snapshot {
            o.values = s.values
            o.toOne = s.toOne
            o.changedAttributes = ChangeMask()
            o.changedToOne = ChangeMask()
            o.changedToMany = ChangeMask()
        } else {
            o.turnIntoFault()
        }
    }

    /// `reset()`, as the runtime calls it. Objects fetched before are invalid after. Posts
    /// `didChangeObjectsNotification` with `NotificationKey.invalidatedAllObjects` (the
    /// objectIDs of the objects it forgot), as Core Data's `reset()` does with
    /// `NSInvalidatedAllObjectsKey`: how an observer learns that every object is gone.
    final func resetObjects() {
        operation(.reset) { resetChecked() }
    }

    private func resetChecked() {
        Diagnostics.ancestorSaved(self)
        clearUndo()
        if queryGeneration != nil { advanceQueryGeneration() }
        let invalidated = registry.objects
        for o in invalidated {
            o.turnIntoFault()
            o.isInvalidated = true
            o.insertedFlag = false
            o.updatedFlag = false
            o.deletedFlag = false
        }
        registry.removeAll()
        changeSets = ChangeSets()
        joinChanges = JoinChanges()
        contextGuard.post(
            Self.didChangeObjectsNotification, object: self,
            userInfo: [NotificationKey.invalidatedAllObjects.rawValue: invalidated.map(\.objectID)])
    }

    /// Turns `object` back into a fault, dropping its changes (`mergeChanges: false`),
    /// or reloads it from the parent and puts its unsaved changes back on top
    /// (`mergeChanges: true`).
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        schedulingPoint(.refresh)
        operation(.refresh) { refreshChecked(object, mergeChanges: mergeChanges) }
    }

    private func refreshChecked(_ object: ManagedObject, mergeChanges: Bool) {
        guard object.managedObjectContext === self, !object.insertedFlag else { return }
        if !mergeChanges && !joinChanges.isEmpty {
            // Its unsaved many-to-many links are dropped with its other changes.
            joinChanges.links = joinChanges.links.filter { $0.key.first != object.objectID && $0.key.second != object.objectID }
        }
        if !mergeChanges || !object.updatedFlag {
            if object.updatedFlag {
                object.updatedFlag = false
                changeSets.updated.remove(object)
            }
            if !mergeChanges || object.snapshot != nil {
                object.willTurnIntoFault()
                object.turnIntoFault()
                object.didTurnIntoFault()
            }
            changeSets.pendingRefreshed.insert(object)
            return
        }
        let fresh = try? loadSnapshots([object.objectID], skipSelf: true)[object.objectID]
        guard let fresh else { return }
        reapply(object, onto: fresh)
        changeSets.pendingRefreshed.insert(object)
    }

    /// Makes `fresh` the object's committed state and keeps its changed
    /// properties on top, as Core Data's merge and refresh do.
    /// Refreshes every registered object, keeping unsaved changes: Core Data's
    /// `refreshAllObjects()`, which calls `refresh(_:mergeChanges: true)` on each
    /// (unchanged objects become faults and load the store's current values on next
    /// access; changed ones get the store's values under their changes).
    public func refreshAllObjects() {
        operation(.refresh) {
            for object in registry.objects {
                refresh(object, mergeChanges: true)
            }
        }
    }

    func reapply(_ o: ManagedObject, onto fresh: RowSnapshot) {
        var values = fresh.values
        var toOne = fresh.toOne
        for i in 0..<values.count where o.changedAttributes.contains(i) { values[i] = o.values[i] }
        for i in 0..<toOne.count where o.changedToOne.contains(i) { toOne[i] = o.toOne[i] }
        o.values = values
        o.toOne = toOne
        o.snapshot = fresh
        o.isFaultFlag = false
    }
}
