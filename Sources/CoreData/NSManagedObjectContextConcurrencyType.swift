@_spi(CoreData) public import ManagedContext

/// Core Data's `NSManagedObjectContextConcurrencyType`, with its three cases and raw
/// values, so that a `switch` over a context's type is exhaustive as on Apple platforms.
/// `.confinementConcurrencyType` is deprecated there (since iOS 9) and works here as
/// the runtime's `init(confinedToCallingThread:)` says: checked as a main-queue context
/// when made on the main thread, not checked when made on another; `perform` refused.
public enum NSManagedObjectContextConcurrencyType: UInt, Sendable {
    @available(*, deprecated, message: "Use another NSManagedObjectContextConcurrencyType")
    case confinementConcurrencyType = 0
    case privateQueueConcurrencyType = 1
    case mainQueueConcurrencyType = 2
}

extension NSManagedObjectContext {
    /// Core Data's `init(concurrencyType:)`.
    public convenience init(concurrencyType type: NSManagedObjectContextConcurrencyType) {
        switch type {
        case .mainQueueConcurrencyType: self.init(concurrencyType: ManagedObjectContext.ConcurrencyType.mainQueue)
        case .privateQueueConcurrencyType: self.init(concurrencyType: ManagedObjectContext.ConcurrencyType.privateQueue)
        default: self.init(confinedToCallingThread: ())
        }
    }

    /// The context's concurrency type, as Core Data names it.
    public var concurrencyType: NSManagedObjectContextConcurrencyType {
        if isConfinement { return Self.confinement }
        return runtimeConcurrencyType == .mainQueue ? .mainQueueConcurrencyType : .privateQueueConcurrencyType
    }

    /// The deprecated case, named once (its uses warn).
    private static var confinement: NSManagedObjectContextConcurrencyType { NSManagedObjectContextConcurrencyType(rawValue: 0)! }
}
