import Foundation

/// Undo, as Core Data does it: a context with an `undoManager` notes each object's state
/// before its first change, and registers the changes with the undo manager in a batch
/// when it processes its pending changes (Core Data: "Core Data, though, queues up the
/// undo registrations and adds them in a batch"; `processPendingChanges()` "causes
/// changes to registered managed objects to be recorded with the undo manager"). With
/// registration disabled then, the batch is dropped. Undoing a batch puts each object's
/// noted state back and registers the states it replaced, for redo.
///
/// Merges, refreshes and a save's own bookkeeping are not undoable changes, as in Core
/// Data; `rollback()` and `reset()` empty the stacks.
final class UndoRecording {
    let manager: UndoManager
    /// The objects changed since the last registration, with their state before.
    var batch = UndoBatch()
    var noted = Set<ObjectIdentifier>()

    init(manager: UndoManager) { self.manager = manager }
}

/// What one registration undoes: objects' earlier states and many-to-many links.
struct UndoBatch {
    var objects: [(object: ManagedObject, state: UndoState)] = []
    var links: [LinkChange] = []
    var isEmpty: Bool { objects.isEmpty && links.isEmpty }
}

/// A many-to-many link changed: its pending state before and the state it was set to.
struct LinkChange {
    let owner: ManagedObject
    let other: ManagedObject
    let relationship: RelationshipDescription
    let pair: JoinPair
    let before: Bool?
    let after: Bool
}

/// One object's state as undo puts it back.
struct UndoState {
    enum Membership { case outside, inserted, insertedThenDeleted, registered, deleted }
    var membership: Membership
    var values: [StoredValue]
    var toOne: [ManagedObjectID?]
    var changedAttributes: ChangeMask
    var changedToOne: ChangeMask
    var changedToMany: ChangeMask
    var wasUpdated: Bool
    /// The row version the object had loaded: another one now means a save came between.
    var loadedVersion: Int64?
}

extension ManagedObjectContext {
    /// Core Data's `undoManager`: nil by default, as on iOS. Set one to make the
    /// context's changes undoable with `undo()` and `redo()`.
    public var undoManager: UndoManager? {
        get { undoRecording?.manager }
        set {
            if newValue === undoRecording?.manager { return }
            undoRecording?.manager.checkpointObservers[ObjectIdentifier(self)] = nil
            undoRecording = newValue.map(UndoRecording.init)
            newValue?.checkpointObservers[ObjectIdentifier(self)] = { [weak self] in self?.registerUndoBatch() }
            let records = newValue != nil
            for o in registry.objects { o.recordsUndo = records }
        }
    }

    /// Core Data's `undo()`: the pending changes registered, then the undo manager's
    /// newest group undone. Without an undo manager it does nothing, as in Core Data.
    public func undo() {
        operation(.undo) {
            guard let recording = undoRecording else { return }
            registerUndoBatch()
            recording.manager.undo()
        }
        postPendingChanges()
    }

    /// Core Data's `redo()`.
    public func redo() {
        operation(.redo) {
            guard let recording = undoRecording else { return }
            registerUndoBatch()
            recording.manager.redo()
        }
        postPendingChanges()
    }

    /// Notes `o`'s state before its first change since the last registration.
    func noteForUndo(_ o: ManagedObject) {
        guard let recording = undoRecording, recording.noted.insert(ObjectIdentifier(o)).inserted else { return }
        recording.batch.objects.append((o, undoState(of: o)))
    }

    /// Notes a many-to-many link about to change.
    func noteLinkForUndo(_ owner: ManagedObject, _ other: ManagedObject, through r: RelationshipDescription, _ pair: JoinPair, linked: Bool) {
        undoRecording?.batch.links.append(LinkChange(owner: owner, other: other, relationship: r, pair: pair, before: joinChanges.links[pair], after: linked))
    }

    /// Registers the noted changes with the undo manager, in a group of their own
    /// unless the app opened one; dropped when registration is disabled.
    func registerUndoBatch() {
        guard let recording = undoRecording, !recording.batch.isEmpty else { return }
        let batch = recording.batch
        recording.batch = UndoBatch()
        recording.noted.removeAll(keepingCapacity: true)
        let manager = recording.manager
        guard manager.isUndoRegistrationEnabled else { return }
        let ownGroup = manager.groupingLevel == 0
        if ownGroup { manager.beginUndoGrouping() }
        manager.registerUndo(withTarget: self) { context in context.apply(batch) }
        if ownGroup { manager.endUndoGrouping() }
    }

    /// Drops the noted changes and both stacks (`rollback()`, `reset()`).
    func clearUndo() {
        guard let recording = undoRecording else { return }
        recording.batch = UndoBatch()
        recording.noted.removeAll()
        recording.manager.removeAllActions()
    }

    /// Puts a batch's states back and registers the states they replace.
    private func apply(_ batch: UndoBatch) {
        var inverse = UndoBatch()
        inverse.objects = batch.objects.map { ($0.object, undoState(of: $0.object)) }
        inverse.links = batch.links.reversed().map {
            LinkChange(owner: $0.owner, other: $0.other, relationship: $0.relationship, pair: $0.pair, before: joinChanges.links[$0.pair], after: !$0.after)
        }
        for (o, state) in batch.objects { restore(o, to: state) }
        for link in batch.links.reversed() {
            // Saved since: the store holds `after`, so undoing is the explicit opposite.
            let pending = joinChanges.links[link.pair] == nil ? !link.after : link.before
            joinChanges.links[link.pair] = pending
            guard pending != nil, let inverse = link.relationship.inverseRelationship else { continue }
            // As setting the link does: both sides are changed objects.
            markToManyChanged(link.owner, link.relationship)
            markToManyChanged(link.other, inverse)
        }
        undoRecording?.manager.registerUndo(withTarget: self) { context in context.apply(inverse) }
    }

    private func markToManyChanged(_ o: ManagedObject, _ r: RelationshipDescription) {
        o.changedToMany.insert(r.index)
        guard !o.insertedFlag, !o.deletedFlag, !o.updatedFlag, o.managedObjectContext === self else { return }
        o.updatedFlag = true
        changeSets.updated.insert(o)
        changeSets.pendingUpdated.insert(o)
    }

    private func undoState(of o: ManagedObject) -> UndoState {
        let membership: UndoState.Membership =
            if o.managedObjectContext !== self || o.isRemovedByDelete { .outside }
            else if o.insertedFlag { .inserted }
            else if o.deletedFlag && changeSets.deletedInserts.contains(o) { .insertedThenDeleted }
            else if o.deletedFlag { .deleted }
            else { .registered }
        return UndoState(
            membership: membership, values: o.values, toOne: o.toOne, changedAttributes: o.changedAttributes,
            changedToOne: o.changedToOne, changedToMany: o.changedToMany, wasUpdated: o.updatedFlag, loadedVersion: o.snapshot?.version)
    }

    private func restore(_ o: ManagedObject, to state: UndoState) {
        changeSets.inserted.remove(o)
        changeSets.updated.remove(o)
        changeSets.deleted.remove(o)
        changeSets.deletedInserts.remove(o)
        o.values = state.values
        o.toOne = state.toOne
        o.isFaultFlag = false
        // Saved since the state was noted: its row is the object's committed state now.
        let saved = o.snapshot != nil && !o.objectID.isTemporaryID
        let savedSince = saved && o.snapshot?.version != state.loadedVersion
        var membership = state.membership
        if o.isRemovedByDelete {
            // Its delete was saved: undoing the delete inserts it again.
            guard membership == .registered else { return }
            membership = .inserted
            o.isRemovedByDelete = false
            o.snapshot = nil
        } else if saved && (membership == .outside || membership == .insertedThenDeleted) {
            // Its insert was saved: undoing the insert deletes it.
            membership = .deleted
        } else if saved && membership == .inserted {
            membership = .registered
        }
        switch membership {
        case .outside, .insertedThenDeleted:
            o.insertedFlag = false
            o.updatedFlag = false
            o.deletedFlag = membership == .insertedThenDeleted
            registry.remove(o.objectID)
            if membership == .insertedThenDeleted {
                changeSets.deletedInserts.insert(o)
            } else {
                o.managedObjectContext = nil
                o.queueOwner = .none
            }
            changeSets.pendingDeleted.insert(o)
        case .inserted:
            if registered(o.objectID) !== o { register(o) }
            o.insertedFlag = true
            o.updatedFlag = false
            o.deletedFlag = false
            changeSets.inserted.insert(o)
            changeSets.pendingInserted.insert(o)
        case .registered, .deleted:
            if savedSince, let snapshot = o.snapshot {
                o.changedAttributes = Self.differences(o.values, snapshot.values)
                o.changedToOne = Self.differences(o.toOne, snapshot.toOne)
            } else {
                o.changedAttributes = state.changedAttributes
                o.changedToOne = state.changedToOne
            }
            o.changedToMany = state.changedToMany
            o.insertedFlag = false
            o.deletedFlag = membership == .deleted
            let changed = !o.changedAttributes.isEmpty || !o.changedToOne.isEmpty || !o.changedToMany.isEmpty
            o.updatedFlag = !o.deletedFlag && (savedSince ? changed : state.wasUpdated)
            if o.deletedFlag {
                changeSets.deleted.insert(o)
                changeSets.pendingDeleted.insert(o)
            } else {
                if o.updatedFlag { changeSets.updated.insert(o) }
                changeSets.pendingUpdated.insert(o)
            }
        }
    }

    private static func differences(_ now: [StoredValue], _ committed: [StoredValue]) -> ChangeMask {
        var mask = ChangeMask()
        for i in now.indices where i < committed.count && (now[i].isNull != committed[i].isNull || StoredValue.compare(now[i], committed[i]) != 0) {
            mask.insert(i)
        }
        return mask
    }

    private static func differences(_ now: [ManagedObjectID?], _ committed: [ManagedObjectID?]) -> ChangeMask {
        var mask = ChangeMask()
        for i in now.indices where i < committed.count && now[i] != committed[i] { mask.insert(i) }
        return mask
    }
}
