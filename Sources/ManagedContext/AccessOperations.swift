@_spi(Runtime) public import ConcurrencyDebug

/// Core Data's operations, as access operations of the checker. The checker knows only
/// get, set and "access"; these numbers are ManagedContext's, and never change: they
/// are the operation bytes of the journal (docs/journal-format.md), and a journal
/// written before the names were stored in it is read with them.
extension AccessOperation {
    /// A fault fired: an object's values read from the store on first access.
    @inlinable public static var fireFault: AccessOperation { AccessOperation(rawValue: 3) }
    /// `fetch(_:)`.
    @inlinable public static var fetch: AccessOperation { AccessOperation(rawValue: 4) }
    /// `count(for:)`.
    @inlinable public static var count: AccessOperation { AccessOperation(rawValue: 5) }
    /// `insert(_:)`.
    @inlinable public static var insert: AccessOperation { AccessOperation(rawValue: 6) }
    /// `delete(_:)`.
    @inlinable public static var delete: AccessOperation { AccessOperation(rawValue: 7) }
    /// `save()`.
    @inlinable public static var save: AccessOperation { AccessOperation(rawValue: 8) }
    /// `rollback()`.
    @inlinable public static var rollback: AccessOperation { AccessOperation(rawValue: 9) }
    /// `reset()`.
    @inlinable public static var reset: AccessOperation { AccessOperation(rawValue: 10) }
    /// `refresh(_:mergeChanges:)` and `refreshAllObjects()`.
    @inlinable public static var refresh: AccessOperation { AccessOperation(rawValue: 11) }
    /// `object(with:)`.
    @inlinable public static var objectWithID: AccessOperation { AccessOperation(rawValue: 12) }
    /// `existingObject(with:)`.
    @inlinable public static var existingObject: AccessOperation { AccessOperation(rawValue: 13) }
    /// `registeredObject(for:)` and `registeredObjects`.
    @inlinable public static var registeredObject: AccessOperation { AccessOperation(rawValue: 14) }
    /// `obtainPermanentIDs(for:)`.
    @inlinable public static var obtainPermanentIDs: AccessOperation { AccessOperation(rawValue: 15) }
    /// `hasChanges`.
    @inlinable public static var hasChanges: AccessOperation { AccessOperation(rawValue: 16) }
    /// `insertedObjects`, `updatedObjects` and `deletedObjects`.
    @inlinable public static var changedObjects: AccessOperation { AccessOperation(rawValue: 17) }
    /// `mergeChanges(fromContextDidSave:)`.
    @inlinable public static var merge: AccessOperation { AccessOperation(rawValue: 18) }
    /// A `perform` or `performAndWait` block found running off its context's queue (level 2).
    @inlinable public static var perform: AccessOperation { AccessOperation(rawValue: 19) }
    /// `undo()`.
    @inlinable public static var undo: AccessOperation { AccessOperation(rawValue: 21) }
    /// `redo()`.
    @inlinable public static var redo: AccessOperation { AccessOperation(rawValue: 22) }

    /// Context methods, as opposed to attribute and relationship accesses.
    public var isContextMethod: Bool { rawValue >= AccessOperation.fetch.rawValue }
}

/// Registers ManagedContext's operation names with the checker.
@_spi(Runtime) public enum ManagedContextOperations {
    /// Every operation ManagedContext uses that the checker does not name itself.
    public static let names: [(operation: AccessOperation, name: String)] = [
        (.fireFault, "fire fault"), (.fetch, "fetch"), (.count, "count"), (.insert, "insert"),
        (.delete, "delete"), (.save, "save"), (.rollback, "rollback"), (.reset, "reset"),
        (.refresh, "refresh"), (.objectWithID, "object(with:)"), (.existingObject, "existingObject(with:)"),
        (.registeredObject, "registeredObject(for:)"), (.obtainPermanentIDs, "obtainPermanentIDs(for:)"),
        (.hasChanges, "hasChanges"), (.changedObjects, "inserted/updated/deletedObjects"),
        (.merge, "mergeChanges(fromContextDidSave:)"), (.perform, "perform"), (.undo, "undo"), (.redo, "redo"),
    ]

    /// Registers the names, once; every context's creation calls it. A tool that reads
    /// a journal written by an older version (without names in it) calls it first.
    public static func register() { _ = registered }

    private static let registered: Bool = {
        for (operation, name) in names { AccessOperation.register(name, as: operation.rawValue) }
        return true
    }()
}
