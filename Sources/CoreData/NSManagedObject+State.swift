@_spi(CoreData) public import ManagedContext
import CtxdebugHelpers

/// Core Data's smaller questions about an object's state and relationships.
extension NSManagedObject {
    /// Core Data's `faultingState`: 0 for an object whose values are in memory, 1 for a fault.
    public var faultingState: Int { isFault ? 1 : 0 }

    /// Core Data's `hasPersistentChangedValues`: whether a stored property has an unsaved change.
    public var hasPersistentChangedValues: Bool { !changedValues().isEmpty }

    /// Core Data's `hasFault(forRelationshipNamed:)`: whether reading the relationship
    /// would load from the store. A to-one is a fault when its destination is; a to-many
    /// is always read from the store or the context here, so it counts as a fault.
    public func hasFault(forRelationshipNamed key: String) -> Bool {
        guard let relationship = entity.relationship(named: key) else {
            preconditionFailure("\(entity.name) has no relationship named '\(key)'")
        }
        if relationship.isToMany { return true }
        return relatedObjects(forRelationshipNamed: key).first?.isFault ?? false
    }

    /// Core Data's `objectIDs(forRelationshipNamed:)`: the IDs of the related objects.
    public func objectIDs(forRelationshipNamed key: String) -> [NSManagedObjectID] {
        relatedObjects(forRelationshipNamed: key).map(\.objectID)
    }
}

extension NSEntityDescription {
    /// Core Data's `subentitiesByName`.
    public var subentitiesByName: [String: NSEntityDescription] {
        Dictionary(subentities.compactMap { e in e.name.map { ($0, e) } }, uniquingKeysWith: { a, _ in a })
    }
}

/// Core Data's `lock()`, `unlock()`, `tryLock()` on contexts and coordinators (deprecated
/// there, kept by older code): a recursive lock per object. They add no confinement:
/// contexts are used through `perform` here as on Apple platforms.
enum ObjectLocks {
    private static let locks = LockedValue<[ObjectIdentifier: NSRecursiveLock]>([:])
    static func lock(for object: AnyObject) -> NSRecursiveLock {
        locks.withLock { table in
            if let lock = table[ObjectIdentifier(object)] { return lock }
            let lock = NSRecursiveLock()
            table[ObjectIdentifier(object)] = lock
            return lock
        }
    }
}

extension ManagedObjectContext {
    public func lock() { ObjectLocks.lock(for: self).lock() }
    public func unlock() { ObjectLocks.lock(for: self).unlock() }
    public func tryLock() -> Bool { ObjectLocks.lock(for: self).try() }
}

extension PersistentStoreCoordinator {
    public func lock() { ObjectLocks.lock(for: self).lock() }
    public func unlock() { ObjectLocks.lock(for: self).unlock() }
    public func tryLock() -> Bool { ObjectLocks.lock(for: self).try() }

    /// Core Data's `url(for:)`: where the store is.
    public func url(for store: NSPersistentStore) -> URL {
        store.url ?? storeURL ?? URL(fileURLWithPath: "/dev/null")
    }
}

extension NSPersistentStore {
    /// Core Data's `identifier`: the store's UUID (`NSStoreUUIDKey`).
    public var identifier: String? { metadata[NSStoreUUIDKey] as? String }

    /// Core Data's `metadata`: read from the store file.
    public var metadata: [String: Any] {
        guard let url, let found = try? PersistentStoreCoordinator.metadataForStore(at: url) else { return [:] }
        return found
    }

    /// Core Data's `loadMetadata()`: checks that the store's metadata can be read.
    public func loadMetadata() throws {
        guard let url else { return }
        _ = try PersistentStoreCoordinator.metadataForStore(at: url)
    }
}
