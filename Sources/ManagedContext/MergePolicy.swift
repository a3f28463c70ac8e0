/// How a save resolves a conflict with what another context saved since the
/// objects were loaded. The names are Core Data's.
public enum MergePolicy: Sendable, Hashable, CaseIterable {
    /// The save fails with a merge-conflict error; the store keeps what it had.
    case error
    /// Property by property, the store's changes win over the context's.
    case mergeByPropertyStoreTrump
    /// Property by property, the context's changes win over the store's.
    case mergeByPropertyObjectTrump
    /// The whole in-memory object is written over the store's row.
    case overwrite
    /// The context's changes to the conflicting objects are dropped.
    case rollback
}

extension MergePolicy {
    /// Core Data's `NSErrorMergePolicy`.
    public static var errorMergePolicy: MergePolicy { .error }
    /// Core Data's `NSMergeByPropertyStoreTrumpMergePolicy`.
    public static var mergeByPropertyStoreTrumpMergePolicy: MergePolicy { .mergeByPropertyStoreTrump }
    /// Core Data's `NSMergeByPropertyObjectTrumpMergePolicy`.
    public static var mergeByPropertyObjectTrumpMergePolicy: MergePolicy { .mergeByPropertyObjectTrump }
    /// Core Data's `NSOverwriteMergePolicy`.
    public static var overwriteMergePolicy: MergePolicy { .overwrite }
    /// Core Data's `NSRollbackMergePolicy`.
    public static var rollbackMergePolicy: MergePolicy { .rollback }
}

/// Core Data's global merge-policy constants, without the NS prefix, so that
/// `context.mergePolicy = MergeByPropertyObjectTrumpMergePolicy` reads as it does there.
public let ErrorMergePolicy = MergePolicy.error
public let MergeByPropertyStoreTrumpMergePolicy = MergePolicy.mergeByPropertyStoreTrump
public let MergeByPropertyObjectTrumpMergePolicy = MergePolicy.mergeByPropertyObjectTrump
public let OverwriteMergePolicy = MergePolicy.overwrite
public let RollbackMergePolicy = MergePolicy.rollback
