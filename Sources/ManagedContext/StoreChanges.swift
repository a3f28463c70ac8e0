/// The changes of one save, as the store applies them.
struct StoreChanges: Sendable {
    struct Insert: Sendable {
        let id: ManagedObjectID
        let values: [StoredValue]
        let toOne: [ManagedObjectID?]
    }
    struct Update: Sendable {
        let id: ManagedObjectID
        let values: [StoredValue]
        let toOne: [ManagedObjectID?]
        let changedAttributes: ChangeMask
        let changedToOne: ChangeMask
        /// What the context loaded: to find what the store changed since.
        let snapshot: RowSnapshot?
    }
    struct Delete: Sendable {
        let id: ManagedObjectID
        let expectedVersion: Int64
    }
    var inserts: [Insert] = []
    var updates: [Update] = []
    var deletes: [Delete] = []
    /// Many-to-many links added or removed (rows of their join tables).
    struct Link: Sendable {
        let pair: JoinPair
        let table: JoinTable?
        let added: Bool
    }
    var links: [Link] = []
    /// The type of the context's merge policy: the resolution the store applies.
    var mergeType: MergePolicyType = .errorMergePolicyType
    /// Set when the store records persistent history: the transaction's author and names.
    var history: HistoryRecording?
    var isEmpty: Bool { inserts.isEmpty && updates.isEmpty && deletes.isEmpty && links.isEmpty }
}

/// What a save did, for the context to bring its objects in step.
struct StoreSaveResult: Sendable {
    /// Temporary ID → permanent ID of each inserted object.
    var permanentIDs: [ManagedObjectID: ManagedObjectID] = [:]
    /// The row each saved object now has (values as written, new version).
    var written: [ManagedObjectID: RowSnapshot] = [:]
    /// Objects whose in-memory changes were dropped (rollback policy, or row gone).
    var discarded: [ManagedObjectID: RowSnapshot?] = [:]
    /// Attributes whose change by another save this save overwrote (trump/overwrite).
    var lostUpdates: [LostUpdate] = []
    /// Inserted objects merged into another row by a uniqueness constraint: the objectID
    /// of the row they became (the store's row, or another insert of the save).
    var mergedInto: [ManagedObjectID: ManagedObjectID] = [:]
    /// The persistent history transaction the save recorded, when it records history.
    var historyTransaction: Int64?
    /// The preserved values of each deleted row (`EntityDescription.tombstoneAttributes`),
    /// read before the row went, when the save records history.
    var tombstones: [ManagedObjectID: [StoredValue]] = [:]
    /// The derived attributes the store recomputed, by (permanent) objectID: what the
    /// context's objects show after the save.
    var derived: [ManagedObjectID: [DerivedValue]] = [:]
}

struct LostUpdate: Sendable {
    let id: ManagedObjectID
    let attributes: [String]
    let fromVersion: Int64
}
