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

    /// Core Data's `transactionAuthor`, kept for code that sets it. There is no
    /// persistent history here, so it is not written anywhere.
    public var transactionAuthor: String? {
        get { configuration.withLock { $0.transactionAuthor } }
        set { configuration.withLock { $0.transactionAuthor = newValue } }
    }

    /// Core Data's `undoManager` (nil on iOS by default) is not supported.
    @available(*, unavailable, message: "ctxdebug keeps no undo stack; use rollback() to drop unsaved changes, or a child context as a scratchpad you can throw away (docs/getting-started.md)")
    public var undoManager: AnyObject? {
        get { nil }
        set {}
    }

    /// The name for reports of a context with no `name`: how it was made.
    var madeAsName: String {
        if let parent { return "child of \(parent.shortName)" }
        if let origin = configuration.withLock({ $0.origin }) { return "\(origin) #\(number)" }
        return concurrencyType == .mainQueue ? "main #\(number)" : "private #\(number)"
    }
}

extension ManagedObjectContext.ConcurrencyType {
    /// Core Data's `.mainQueueConcurrencyType`.
    public static var mainQueueConcurrencyType: Self { .mainQueue }
    /// Core Data's `.privateQueueConcurrencyType`.
    public static var privateQueueConcurrencyType: Self { .privateQueue }
}
