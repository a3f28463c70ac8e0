/// A context's sets of changed objects, in one value: what is unsaved (what `save`
/// writes and `rollback` drops) and what is not yet announced (what the next
/// objects-did-change notification lists). Touched on the context's queue only.
struct ChangeSets {
    var inserted: Set<ManagedObject> = []
    var updated: Set<ManagedObject> = []
    var deleted: Set<ManagedObject> = []
    /// Objects inserted and deleted again before a save: no longer in the context's
    /// sets, but still its objects (`managedObjectContext`) until the next save.
    var deletedInserts: Set<ManagedObject> = []

    var pendingInserted: Set<ManagedObject> = []
    var pendingUpdated: Set<ManagedObject> = []
    var pendingDeleted: Set<ManagedObject> = []
    var pendingRefreshed: Set<ManagedObject> = []

    var hasUnsavedChanges: Bool { !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty }

    /// The inserted, updated and deleted objects, as they are now: the three sets are
    /// disjoint (an update of an inserted object keeps it inserted; a delete takes an
    /// object out of the others), so they are listed one after the other rather than
    /// united into a new set, which hashed every object again (docs/benchmarks.md, item 17).
    var unsavedObjects: [ManagedObject] {
        var all: [ManagedObject] = []
        all.reserveCapacity(inserted.count + updated.count + deleted.count)
        all.append(contentsOf: inserted)
        all.append(contentsOf: updated)
        all.append(contentsOf: deleted)
        assert(Set(all.map(ObjectIdentifier.init)).count == all.count, "an object is in two of the inserted, updated and deleted sets")
        return all
    }
    var hasPendingChanges: Bool {
        !pendingInserted.isEmpty || !pendingUpdated.isEmpty || !pendingDeleted.isEmpty || !pendingRefreshed.isEmpty
    }

    /// Takes the pending changes for a notification, leaving none pending.
    mutating func takePending() -> (inserted: Set<ManagedObject>, updated: Set<ManagedObject>, deleted: Set<ManagedObject>, refreshed: Set<ManagedObject>) {
        defer {
            pendingInserted = []
            pendingUpdated = []
            pendingDeleted = []
            pendingRefreshed = []
        }
        return (pendingInserted, pendingUpdated, pendingDeleted, pendingRefreshed)
    }

    /// Forgets every unsaved change and every unannounced insert, update and delete
    /// (`rollback`). Refreshes stay pending: the objects were refreshed all the same.
    mutating func dropUnsaved() {
        let refreshed = pendingRefreshed
        self = ChangeSets()
        pendingRefreshed = refreshed
    }
}
