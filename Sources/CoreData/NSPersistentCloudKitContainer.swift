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

/// Core Data's `NSQueryGenerationToken`: `.current` pins a context to the store as it
/// is; a context's `queryGenerationToken` pins another context of the stack to the same
/// generation. Equal when they stand for the same generation.
open class NSQueryGenerationToken: NSObject, @unchecked Sendable {
    /// The store's current generation.
    public static let current = NSQueryGenerationToken(nil)
    let generation: QueryGeneration?

    init(_ generation: QueryGeneration?) { self.generation = generation }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSQueryGenerationToken else { return false }
        return self === other || generation != nil && generation === other.generation
    }

    open override var hash: Int { generation.map { ObjectIdentifier($0).hashValue } ?? ObjectIdentifier(self).hashValue }
}

extension ManagedObjectContext {
    /// Core Data's `setQueryGenerationFrom(_:)`: pins the context's fetches and faults to
    /// a generation of the store (`.current`: the store as it is now; another context's
    /// `queryGenerationToken`: that context's), until it saves, merges a save or is reset,
    /// which move it to the latest generation; nil unpins it. Throws for a token of
    /// another store. A child context reads through its parent: pin the parent.
    public func setQueryGenerationFrom(_ generation: NSQueryGenerationToken?) throws {
        guard let generation else { return try pin(to: nil, current: false) }
        if generation === NSQueryGenerationToken.current || generation.generation == nil {
            try pin(to: nil, current: true)
        } else {
            try pin(to: generation.generation, current: false)
        }
    }

    /// Core Data's `queryGenerationToken`: the generation the context is pinned to, nil
    /// when it reads the latest.
    public var queryGenerationToken: NSQueryGenerationToken? { pinnedGeneration.map(NSQueryGenerationToken.init) }
}
