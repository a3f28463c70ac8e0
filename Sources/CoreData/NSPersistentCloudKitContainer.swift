public import Foundation
@_spi(CoreData) public import ManagedContext

/// Core Data's `NSPersistentCloudKitContainer`, for apps written for iCloud sync. Linux
/// has no CloudKit, so it is a local container and nothing is synced: the store works as
/// Apple's does on a device with no iCloud account.
open class NSPersistentCloudKitContainer: NSPersistentContainer, @unchecked Sendable {
    /// Core Data's `initializeCloudKitSchema(options:)`: there is no CloudKit schema to
    /// make here, so it does nothing.
    open func initializeCloudKitSchema(options: NSPersistentCloudKitContainerSchemaInitializationOptions = []) throws {}
}

/// Core Data's `NSPersistentCloudKitContainerSchemaInitializationOptions`.
public struct NSPersistentCloudKitContainerSchemaInitializationOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let dryRun = Self(rawValue: 1 << 1)
    public static let printSchema = Self(rawValue: 1 << 2)
}

/// Core Data's `NSPersistentCloudKitContainerOptions`: the iCloud container a store
/// syncs with; kept, and not used on Linux.
open class NSPersistentCloudKitContainerOptions: NSObject, @unchecked Sendable {
    public let containerIdentifier: String
    public init(containerIdentifier: String) {
        self.containerIdentifier = containerIdentifier
        super.init()
    }
}

extension NSPersistentStoreDescription {
    /// Core Data's `cloudKitContainerOptions`: kept, and not used on Linux.
    public var cloudKitContainerOptions: NSPersistentCloudKitContainerOptions? {
        get { options[Self.cloudKitOptionsKey] as? NSPersistentCloudKitContainerOptions }
        set { setOption(newValue, forKey: Self.cloudKitOptionsKey) }
    }

    private static let cloudKitOptionsKey = "ctxdebug.cloudKitContainerOptions"
}

/// Core Data's `NSQueryGenerationToken`: `.current` pins a context to the store as it is.
open class NSQueryGenerationToken: NSObject, @unchecked Sendable {
    /// The store's current generation.
    public static let current = NSQueryGenerationToken()
    override init() {}
}

extension ManagedObjectContext {
    /// Core Data's `setQueryGenerationFrom(_:)`. The token is kept, and not honoured:
    /// fetches and faults read the latest committed data, as an unpinned context's do
    /// (and a pinned one's right after its own save or merge).
    public func setQueryGenerationFrom(_ generation: NSQueryGenerationToken?) throws {
        pinnedQueryGeneration = generation
    }

    /// Core Data's `queryGenerationToken`: the token set last, or nil.
    public var queryGenerationToken: NSQueryGenerationToken? { pinnedQueryGeneration as? NSQueryGenerationToken }
}
