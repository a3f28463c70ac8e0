@_spi(Runtime) import ConcurrencyDebug
import CtxdebugHelpers
public import Foundation
import Synchronization

/// A child's save, in values only: what crosses to the parent's queue.
struct ChildSavePayload: Sendable {
    struct Object: Sendable {
        let id: ManagedObjectID
        let values: [StoredValue]
        let toOne: [ManagedObjectID?]
        let changedAttributes: ChangeMask
        let changedToOne: ChangeMask
    }
    var inserts: [Object] = []
    var updates: [Object] = []
    var deletes: [ManagedObjectID] = []
    /// Many-to-many links the child added (true) or removed (false).
    var links: [JoinPair: Bool] = [:]
}

extension ManagedObjectContext {
    /// `save()`, as the runtime calls it (not a subclass's override), with its error's type.
    @_spi(CoreData) public final func saveChanges() throws(ManagedContextError) {
        try operation(.save) { () throws(ManagedContextError) in try saveChecked() }
    }

    private func saveChecked() throws(ManagedContextError) {
        let span = ContextInstrumentation.begin(.save, self)
        defer { span.end() }
        postPendingChanges()
        guard !changeSets.inserted.isEmpty || !changeSets.updated.isEmpty || !changeSets.deleted.isEmpty else {
            releaseDeletedInserts()
            // Core Data posts both save notifications for a save with nothing to save, the
            // did-save with empty sets, and tests wait for them. No scheduling point: nothing
            // was written, and an automatic merge skips an empty save.
            NotificationCenter.default.post(name: Self.willSaveObjectsNotification, object: self)
            contextGuard.post(Self.didSaveObjectsNotification, object: self, userInfo: Self.didSaveUserInfo())
            return
        }
        NotificationCenter.default.post(name: Self.willSaveObjectsNotification, object: self)
        try prepareObjectsForSave()
        let saving = changeSets.unsavedObjects
        let started = concurrencyType == .mainQueue ? MonotonicClock.now() : 0
        let rows = changeSets.inserted.count + changeSets.updated.count + changeSets.deleted.count
        diagnoseAbandonedInserts(changeSets.inserted)
        switch parentStore {
        case .none:
            throw ManagedContextError(.noStore, "\(debugName) has neither a parent nor a persistent store coordinator, so there is nowhere to save to.")
        case .coordinator(let c):
            try saveToStore(c)
        case .context(let p):
            try saveToParent(p)
        }
        releaseDeletedInserts()
        for o in saving { o.didSave() }
        Diagnostics.ancestorSaved(self)
        diagnoseMainQueueIO("save", rows: rows, started: started)
    }

    /// Core Data's order: each changed object's `willSave()`, then its validation; a
    /// failed validation stops the save with nothing written.
    private func prepareObjectsForSave() throws(ManagedContextError) {
        for o in changeSets.unsavedObjects { o.willSave() }
        postPendingChanges()
        func validate(_ objects: Set<ManagedObject>, _ check: (ManagedObject) throws -> Void) throws(ManagedContextError) {
            for o in objects.sorted(by: { $0.creationSerial < $1.creationSerial }) {
                do {
                    try check(o)
                } catch let e as ManagedContextError {
                    throw e
                } catch {
                    throw ManagedContextError(
                        .validationFailed, "The validation of \(o.objectID) failed: \(error)", cause: SendableErrorDescription(error),
                        validation: .init(kind: .custom, key: nil, objectID: o.objectID))
                }
            }
        }
        try validate(changeSets.inserted) { try $0.validateForInsert() }
        try validate(changeSets.updated) { try $0.validateForUpdate() }
        try validate(changeSets.deleted.filter { !$0.isInaccessibleFault }) { try $0.validateForDelete() }
    }

    /// A deleted object once its deletion is saved: out of the registry, a fault, and
    /// no longer this context's. Core Data's `managedObjectContext` "may be nil if the
    /// receiver has been deleted from its context", and it is nil from the save on:
    /// apps test `isDeleted || managedObjectContext == nil` for a deleted object.
    /// Its values read as nil from then on, as in Core Data.
    private func removeSavedDeletion(_ o: ManagedObject) {
        registry.remove(o.objectID)
        o.deletedFlag = false
        o.turnIntoFault()
        o.values = o.entity.attributes.map { _ in .null }  // nil, not the model's defaults
        o.managedObjectContext = nil
        o.isRemovedByDelete = true
    }

    /// Objects inserted and deleted before this save were never saved anywhere; the
    /// save ends their membership (in Core Data their `managedObjectContext` stays set
    /// until the context saves).
    private func releaseDeletedInserts() {
        for o in changeSets.deletedInserts {
            o.deletedFlag = false
            o.managedObjectContext = nil
            o.isRemovedByDelete = true
        }
        changeSets.deletedInserts = []
    }

    /// A save into the store: the changes as the store takes them, one transaction,
    /// the diagnoses of what it did, then the objects brought in step with what was written.
    private func saveToStore(_ c: PersistentStoreCoordinator) throws(ManagedContextError) {
        let store = try c.store()
        var inserted = changeSets.inserted, updated = changeSets.updated, deleted = changeSets.deleted
        var changes = storeChanges(inserted: inserted, updated: updated, deleted: deleted, coordinator: c)
        schedulingPoint(.storeWrite)
        let result: StoreSaveResult
        let policy = mergePolicy
        if policy.resolvesConflictsItself {
            // A subclass's resolution needs the conflicts before anything is written: the
            // write is tried under the error type (it commits when nothing conflicts),
            // then repeated, under the policy's own type, with what the policy changed.
            changes.mergeType = .errorMergePolicyType
            do {
                result = try write(changes, to: store)
            } catch where error.code == .mergeConflict || error.code == .constraintConflict {
                try resolve(error, with: policy)
                postPendingChanges()
                (inserted, updated, deleted) = (changeSets.inserted, changeSets.updated, changeSets.deleted)
                changes = storeChanges(inserted: inserted, updated: updated, deleted: deleted, coordinator: c)
                result = try write(changes, to: store)
            }
        } else {
            result = try write(changes, to: store)
        }
        diagnoseLostUpdates(result)
        recordSaveForMissingMerge(result, coordinator: c)

        // The transaction committed: bring the objects in step.
        c.recordPermanentIDs(result.permanentIDs)
        let insertedIDs = applySavedInserts(inserted, result)
        let updatedIDs = applySavedUpdates(updated, result, coordinator: c)
        let deletedIDs = applySavedDeletes(deleted, result, coordinator: c)
        if !result.derived.isEmpty { applyDerivedValues(result.derived) }
        changeSets.inserted = []
        changeSets.updated = []
        changeSets.deleted = []
        joinChanges = JoinChanges()
        postDidSave(inserted: inserted, updated: updated, deleted: deleted, insertedIDs: insertedIDs, updatedIDs: updatedIDs, deletedIDs: deletedIDs)
    }

    /// The derived attributes the store recomputed: this context's objects show them once
    /// the save is done (Core Data's header: "recomputed values will not be reflected in a
    /// managed object's property until after a save"; before iOS 14 a refresh was needed).
    private func applyDerivedValues(_ derived: [ManagedObjectID: [DerivedValue]]) {
        for (id, values) in derived {
            guard let o = registered(id), !o.isFaultFlag else { continue }
            for v in values where v.index < o.values.count {
                o.values[v.index] = v.value
                o.snapshot?.values[v.index] = v.value
            }
        }
    }

    /// The store's write; a merge conflict comes back able to name its objects here
    /// (`MergeConflict.sourceObject`), as Core Data's `conflictList` does.
    private func write(_ changes: StoreChanges, to store: SQLiteStore) throws(ManagedContextError) -> StoreSaveResult {
        do {
            return try store.save(changes)
        } catch where error.code == .mergeConflict || error.code == .constraintConflict {
            throw error.attachingConflicts(to: self)
        }
    }

    /// A merge policy subclass's `resolve(optimisticLockingConflicts:)`, on this queue;
    /// what it throws fails the save (the context keeps its changes).
    /// (or `resolve(constraintConflicts:)`) on this queue; what it throws fails the save
    /// (the context keeps its changes).
    private func resolve(_ failure: ManagedContextError, with policy: MergePolicy) throws(ManagedContextError) {
        do {
            if failure.code == .constraintConflict {
                try policy.resolve(constraintConflicts: failure.constraintConflicts)
            } else {
                try policy.resolve(optimisticLockingConflicts: failure.conflicts)
            }
        } catch let error as ManagedContextError {
            throw error
        } catch {
            throw ManagedContextError(
                failure.code, "\(policy) did not resolve the save's conflicts: \(error)", cause: SendableErrorDescription(error),
                conflicts: failure.conflicts, constraintConflicts: failure.constraintConflicts)
        }
    }

    /// The context's changes as the store applies them: inserts in the order they were
    /// made (primary keys follow it), objectIDs and to-one keys made permanent.
    private func storeChanges(
        inserted: Set<ManagedObject>, updated: Set<ManagedObject>, deleted: Set<ManagedObject>, coordinator c: PersistentStoreCoordinator
    ) -> StoreChanges {
        var changes = StoreChanges()
        changes.mergeType = mergePolicy.mergeType
        changes.history = c.historyRecording(author: transactionAuthor, contextName: name)
        for o in inserted.sorted(by: { $0.creationSerial < $1.creationSerial }) {
            changes.inserts.append(.init(id: o.objectID, values: o.values, toOne: o.toOne.map { $0.map(c.permanent) }))
        }
        for o in updated {
            changes.updates.append(
                .init(
                    id: c.permanent(o.objectID), values: o.values, toOne: o.toOne.map { $0.map(c.permanent) },
                    changedAttributes: o.changedAttributes, changedToOne: o.changedToOne, snapshot: o.snapshot))
        }
        for o in deleted {
            changes.deletes.append(.init(id: c.permanent(o.objectID), expectedVersion: o.snapshot?.version ?? 0))
        }
        if !joinChanges.isEmpty {
            let tables = Dictionary(model.joinTables.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
            for (pair, added) in joinChanges.links {
                let permanent = JoinPair(table: pair.table, first: c.permanent(pair.first), second: c.permanent(pair.second))
                changes.links.append(.init(pair: permanent, table: tables[pair.table], added: added))
            }
        }
        return changes
    }

    /// What missing-merge compares later reads against: the rows this save wrote, with
    /// its stack.
    private func recordSaveForMissingMerge(_ result: StoreSaveResult, coordinator c: PersistentStoreCoordinator) {
        guard !result.written.isEmpty, Diagnostics.isOn(.missingMerge) else { return }
        let rows = result.written.map { (id: result.permanentIDs[$0.key] ?? $0.key, version: $0.value.version) }
        c.recordSave(rows, by: debugName, stack: StackTrace.capture())
    }

    private func clearChangeMasks(_ o: ManagedObject) {
        o.changedAttributes = ChangeMask()
        o.changedToOne = ChangeMask()
        o.changedToMany = ChangeMask()
    }

    /// Saved inserts: permanent IDs, no longer inserted, the row as written. An object a
    /// uniqueness constraint merged into a row that another object of this context
    /// already stands for leaves the context, that object taking the row as written:
    /// one object per row, as the context's uniquing requires.
    private func applySavedInserts(_ inserted: Set<ManagedObject>, _ result: StoreSaveResult) -> Set<ManagedObjectID> {
        var ids = Set<ManagedObjectID>()
        let mergedAway = objectsMergedAway(inserted, result)
        for o in mergedAway.isEmpty ? inserted : inserted.subtracting(mergedAway) {
            let written = result.written[o.objectID]
            let permanent = result.permanentIDs[o.objectID]
            // Merged with another row by a uniqueness constraint: it takes the row's values as written.
            let merged = !result.mergedInto.isEmpty && (result.mergedInto[o.objectID] != nil || result.mergedInto.values.contains { $0 == permanent })
            if let permanent, permanent != o.objectID { reKey(o, to: permanent) }
            o.insertedFlag = false
            clearChangeMasks(o)
            if let written {
                if merged { o.values = written.values }
                o.toOne = written.toOne
                o.snapshot = written
            }
            ids.insert(o.objectID)
        }
        for o in mergedAway {
            let row = result.mergedInto[o.objectID]!
            if let written = result.written[o.objectID], let survivor = registered(row), survivor !== o, !survivor.insertedFlag {
                survivor.values = written.values
                survivor.toOne = written.toOne
                survivor.snapshot = written
            }
            registry.remove(o.objectID)
            o.insertedFlag = false
            clearChangeMasks(o)
            o.managedObjectContext = nil
            o.isRemovedByDelete = true
            ids.insert(row)
        }
        return ids
    }

    /// The inserted objects a uniqueness constraint merged into a row that another object
    /// stands for: one registered already, or one of this save made earlier.
    private func objectsMergedAway(_ inserted: Set<ManagedObject>, _ result: StoreSaveResult) -> Set<ManagedObject> {
        guard !result.mergedInto.isEmpty else { return [] }
        var taken = Set<ManagedObjectID>()
        for o in inserted where result.mergedInto[o.objectID] == nil {
            if let id = result.permanentIDs[o.objectID] { taken.insert(id) }
        }
        var away: Set<ManagedObject> = []
        for o in inserted.filter({ result.mergedInto[$0.objectID] != nil }).sorted(by: { $0.creationSerial < $1.creationSerial }) {
            let row = result.mergedInto[o.objectID]!
            if taken.contains(row) || (registered(row).map { $0 !== o } ?? false) {
                away.insert(o)
            } else {
                taken.insert(row)
            }
        }
        return away
    }

    /// Saved updates: the row as written, or, for one the merge policy discarded, the
    /// store's row (a fault when the row is gone). Only written ones are announced.
    private func applySavedUpdates(
        _ updated: Set<ManagedObject>, _ result: StoreSaveResult, coordinator c: PersistentStoreCoordinator
    ) -> Set<ManagedObjectID> {
        var ids = Set<ManagedObjectID>()
        for o in updated {
            let id = c.permanent(o.objectID)
            o.updatedFlag = false
            clearChangeMasks(o)
            if let written = result.written[id] {
                o.values = written.values
                o.toOne = written.toOne
                o.snapshot = written
                ids.insert(id)
            } else if let discarded = result.discarded[id] {
                if let row = discarded {
                    o.values = row.values
                    o.toOne = row.toOne
                    o.snapshot = row
                } else {
                    o.turnIntoFault()
                }
            }
        }
        return ids
    }

    /// Saved deletions leave the context; a deletion the rollback policy discarded
    /// keeps the object, with the store's row.
    private func applySavedDeletes(
        _ deleted: Set<ManagedObject>, _ result: StoreSaveResult, coordinator c: PersistentStoreCoordinator
    ) -> Set<ManagedObjectID> {
        var ids = Set<ManagedObjectID>()
        for o in deleted {
            let id = c.permanent(o.objectID)
            if case .some(.some(let row)) = result.discarded[id] {
                o.deletedFlag = false
                o.values = row.values
                o.toOne = row.toOne
                o.snapshot = row
                continue
            }
            removeSavedDeletion(o)
            ids.insert(id)
        }
        return ids
    }

    private func saveToParent(_ p: ManagedObjectContext) throws(ManagedContextError) {
        var payload = ChildSavePayload()
        let inserted = changeSets.inserted, updated = changeSets.updated, deleted = changeSets.deleted
        for o in inserted.sorted(by: { $0.creationSerial < $1.creationSerial }) {
            payload.inserts.append(.init(id: o.objectID, values: o.values, toOne: o.toOne, changedAttributes: o.changedAttributes, changedToOne: o.changedToOne))
        }
        for o in updated {
            payload.updates.append(.init(id: o.objectID, values: o.values, toOne: o.toOne, changedAttributes: o.changedAttributes, changedToOne: o.changedToOne))
        }
        payload.deletes = deleted.map(\.objectID)
        payload.links = joinChanges.links
        let finalPayload = payload
        // Runs on the parent's queue, as Core Data does: a heavy child save holds
        // the parent's queue (the main queue, for a child of the view context).
        let pushedBy = Diagnostics.isOn(.unsavedAncestor) ? StackTrace.capture() : []
        let child = debugName
        p.performAndWait { p.confined { p.absorbChildSave(finalPayload, from: child, stack: pushedBy) } }

        for o in inserted {
            o.insertedFlag = false
            o.snapshot = RowSnapshot(values: o.values, toOne: o.toOne, version: 0)
            o.changedAttributes = ChangeMask()
            o.changedToOne = ChangeMask()
            o.changedToMany = ChangeMask()
        }
        for o in updated {
            o.updatedFlag = false
            o.snapshot = RowSnapshot(values: o.values, toOne: o.toOne, version: o.snapshot?.version ?? 0)
            o.changedAttributes = ChangeMask()
            o.changedToOne = ChangeMask()
            o.changedToMany = ChangeMask()
        }
        for o in deleted { removeSavedDeletion(o) }
        changeSets.inserted = []
        changeSets.updated = []
        changeSets.deleted = []
        joinChanges = JoinChanges()
        postDidSave(
            inserted: inserted, updated: updated, deleted: deleted, insertedIDs: Set(inserted.map(\.objectID)),
            updatedIDs: Set(updated.map(\.objectID)), deletedIDs: Set(deleted.map(\.objectID)))
    }

    /// Takes a child's save as this context's own unsaved changes. A child never
    /// conflicts with its parent: its values overwrite the parent's.
    func absorbChildSave(_ payload: ChildSavePayload, from child: String = "a child context", stack: [UInt] = []) {
        if Diagnostics.isOn(.unsavedAncestor) { Diagnostics.ancestorHoldsChildChanges(self, child: child, stack: stack) }
        for item in payload.inserts {
            if let existing = registered(item.id) {
                apply(item, to: existing, all: true)
                continue
            }
            let o = item.id.entity.managedObjectClass.init(entity: item.id.entity, insertInto: nil)
            o.objectID = item.id
            o.values = item.values
            o.toOne = item.toOne
            o.changedAttributes = item.changedAttributes
            o.changedToOne = item.changedToOne
            o.insertedFlag = true
            register(o)
            changeSets.inserted.insert(o)
            changeSets.pendingInserted.insert(o)
        }
        for item in payload.updates {
            let o = registered(item.id) ?? makeFault(item.id)
            apply(item, to: o, all: false)
        }
        for (pair, added) in payload.links { joinChanges.links[pair] = added }
        for id in payload.deletes {
            let o = registered(id) ?? makeFault(id)
            delete(o)
        }
    }

    private func apply(_ item: ChildSavePayload.Object, to o: ManagedObject, all: Bool) {
        o.fireFaultIfNeeded()
        for i in 0..<o.values.count where all || item.changedAttributes.contains(i) {
            o.values[i] = item.values[i]
        }
        for i in 0..<o.toOne.count where all || item.changedToOne.contains(i) {
            o.toOne[i] = item.toOne[i]
        }
        o.changedAttributes.formUnion(item.changedAttributes)
        o.changedToOne.formUnion(item.changedToOne)
        objectDidChange(o)
    }

    private func postDidSave(
        inserted: Set<ManagedObject>, updated: Set<ManagedObject>, deleted: Set<ManagedObject>,
        insertedIDs: Set<ManagedObjectID>, updatedIDs: Set<ManagedObjectID>, deletedIDs: Set<ManagedObjectID>
    ) {
        persistentStoreCoordinator?.savesSoFar.add(1, ordering: .relaxed)
        if queryGeneration != nil { advanceQueryGeneration() }
        schedulingPoint(.didSave)
        contextGuard.post(
            Self.didSaveObjectsNotification, object: self,
            userInfo: Self.didSaveUserInfo(
                inserted: inserted, updated: updated, deleted: deleted, insertedIDs: insertedIDs, updatedIDs: updatedIDs, deletedIDs: deletedIDs))
        NotificationCenter.default.post(
            name: Self.didSaveObjectIDsNotification, object: self,
            userInfo: [
                NotificationKey.insertedObjectIDs.rawValue: insertedIDs, NotificationKey.updatedObjectIDs.rawValue: updatedIDs,
                NotificationKey.deletedObjectIDs.rawValue: deletedIDs,
            ])
    }

    private static func didSaveUserInfo(
        inserted: Set<ManagedObject> = [], updated: Set<ManagedObject> = [], deleted: Set<ManagedObject> = [],
        insertedIDs: Set<ManagedObjectID> = [], updatedIDs: Set<ManagedObjectID> = [], deletedIDs: Set<ManagedObjectID> = []
    ) -> [String: Any] {
        [
            NotificationKey.insertedObjects.rawValue: inserted,
            NotificationKey.updatedObjects.rawValue: updated,
            NotificationKey.deletedObjects.rawValue: deleted,
            NotificationKey.insertedObjectIDs.rawValue: insertedIDs,
            NotificationKey.updatedObjectIDs.rawValue: updatedIDs,
            NotificationKey.deletedObjectIDs.rawValue: deletedIDs,
        ]
    }
}

/// The objectIDs of one save: the `Sendable` part of a did-save notification.
public struct SaveChanges: Sendable, Hashable {
    /// The objects the save inserted.
    public var inserted: Set<ManagedObjectID>
    /// The objects the save updated.
    public var updated: Set<ManagedObjectID>
    /// The objects the save deleted.
    public var deleted: Set<ManagedObjectID>
    /// The save these changes come from, for `ContextInstrumentation` (nil when no
    /// instrumentation observer is installed, or when made from IDs alone).
    public var saveID: UInt64?

    /// A save with nothing in it (Core Data posts a did-save for one too).
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// Changes made of IDs, to hand `mergeChanges(_:)` from another process or queue.
    public init(inserted: Set<ManagedObjectID> = [], updated: Set<ManagedObjectID> = [], deleted: Set<ManagedObjectID> = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    /// The IDs a `didSaveObjectsNotification` carries.
    public init(_ notification: Notification) {
        let info = notification.userInfo ?? [:]
        typealias K = ManagedObjectContext.NotificationKey
        inserted = info[K.insertedObjectIDs.rawValue] as? Set<ManagedObjectID> ?? []
        updated = info[K.updatedObjectIDs.rawValue] as? Set<ManagedObjectID> ?? []
        deleted = info[K.deletedObjectIDs.rawValue] as? Set<ManagedObjectID> ?? []
        saveID = ContextInstrumentation.currentSaveID(of: notification.object as AnyObject?)
    }
}

extension ManagedObjectContext {
    /// Merges another context's save into this one, on this context's queue:
    /// updated objects are reloaded (local unsaved changes kept on top), inserted
    /// ones become available, deleted ones are deleted. Posts `didChangeObjectsNotification`.
    public func mergeChanges(fromContextDidSave notification: Notification) {
        mergeChanges(SaveChanges(notification))
    }

    /// The same, from the IDs alone (what crosses queues).
    public func mergeChanges(_ changes: SaveChanges) {
        schedulingPoint(.merge)
        operation(.merge) { mergeChangesChecked(changes) }
    }

    private func mergeChangesChecked(_ changes: SaveChanges) {
        if queryGeneration != nil { advanceQueryGeneration() }
        hasMerged = true
        let span = ContextInstrumentation.begin(.merge, self, saveID: changes.saveID)
        defer { span.end() }
        var refreshed = Set<ManagedObject>(), inserted = Set<ManagedObject>(), deleted = Set<ManagedObject>()
        let toReload = changes.updated.compactMap { id in registered(id).flatMap { $0.isFaultFlag ? nil : $0 } }
        let fresh = (try? loadSnapshots(toReload.map(\.objectID), skipSelf: true)) ?? [:]
        for o in toReload {
            if let row = fresh[o.objectID] {
                reapply(o, onto: row)
                refreshed.insert(o)
            }
        }
        for id in changes.inserted where registered(id) == nil {
            inserted.insert(makeFault(id))
        }
        for id in changes.deleted {
            guard let o = registered(id) else { continue }
            registry.remove(o.objectID)
            changeSets.inserted.remove(o)
            changeSets.updated.remove(o)
            changeSets.deleted.remove(o)
            o.insertedFlag = false
            o.updatedFlag = false
            o.deletedFlag = false
            o.turnIntoFault()
            deleted.insert(o)
        }
        postPendingChanges()
        if refreshed.isEmpty && inserted.isEmpty && deleted.isEmpty { return }
        contextGuard.post(
            Self.didChangeObjectsNotification, object: self,
            userInfo: [
                NotificationKey.insertedObjects.rawValue: inserted,
                NotificationKey.updatedObjects.rawValue: refreshed,
                NotificationKey.refreshedObjects.rawValue: refreshed,
                NotificationKey.deletedObjects.rawValue: deleted,
            ])
    }

    func installAutomaticMergingIfNeeded() {
        guard automaticallyMergesChangesFromParent else { return }
        observers.withLock { observers in
        guard observers.isEmpty else { return }
        let token = NotificationCenter.default.addObserver(
            forName: Self.didSaveObjectsNotification, object: nil, queue: nil
        ) { [weak self] note in
            guard let self, let saver = note.object as? ManagedObjectContext, saver !== self else { return }
            guard self.shouldMergeAutomatically(from: saver) else { return }
            let changes = SaveChanges(note)
            guard !changes.isEmpty else { return }
            self.enqueue { [weak self] in self?.mergeChanges(changes) }
        }
        observers.append(ObserverToken(token: token))
        }
    }

    /// A child merges saves into its parent (a sibling's) and the parent's own
    /// saves; a context on the coordinator merges other contexts' saves to the store.
    func shouldMergeAutomatically(from saver: ManagedObjectContext) -> Bool {
        switch parentStore {
        case .context(let p):
            return saver === p || saver.parent === p
        case .coordinator(let c):
            if case .coordinator(let theirs) = saver.parentStore { return theirs === c }
            return false
        case .none:
            return false
        }
    }
}
