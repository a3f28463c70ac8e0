import CtxdebugHelpers
public import Foundation

/// Settings kept for code written for Core Data, and the context's name in reports.
extension ManagedObjectContext {
    /// Core Data's `stalenessInterval`: how old cached row data may be when a fault
    /// fires. Kept for code that sets it. This runtime has no row cache: a fault
    /// always loads from the parent or the store, as Core Data does with 0. The
    /// default is -1 (Core Data's "any staleness").
    public var stalenessInterval: TimeInterval {
        get { configuration.withLock { $0.stalenessInterval } }
        set { configuration.withLock { $0.stalenessInterval = newValue } }
    }

    /// Core Data's `shouldDeleteInaccessibleFaults` (true by default, as in Core Data): a
    /// fault whose row is gone (deleted and saved by another context) becomes a deleted
    /// object when it fires, with nil values, in `deletedObjects`, exempt from validation,
    /// and dropped at the next save. When false, Core Data raises; here its values read as
    /// nil, with a warning, and it stays as it was.
    public var shouldDeleteInaccessibleFaults: Bool {
        get { configuration.withLock { $0.shouldDeleteInaccessibleFaults } }
        set { configuration.withLock { $0.shouldDeleteInaccessibleFaults = newValue } }
    }

    /// Core Data's `transactionAuthor`: the author the store's persistent history records
    /// for this context's saves (`PersistentHistoryTransaction.author`), when the store
    /// was added with `persistentHistoryTracking`.
    public var transactionAuthor: String? {
        get { configuration.withLock { $0.transactionAuthor } }
        set { configuration.withLock { $0.transactionAuthor = newValue } }
    }

    /// The name for reports of a context with no `name`: how it was made.
    var madeAsName: String {
        if let parent { return "child of \(parent.shortName)" }
        if let origin = configuration.withLock({ $0.origin }) { return "\(origin) #\(number)" }
        return concurrencyType == .mainQueue ? "main #\(number)" : "private #\(number)"
    }
}

