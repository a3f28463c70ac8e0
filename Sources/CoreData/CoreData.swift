// Core Data's API, with its NS names, over ManagedContext (Linux). Not a second
// runtime: every context, object, ID and store here is ManagedContext's, so the
// concurrency checker, the journal and `explore` see this code as they see any other.
//
// `import CoreData` brings Foundation with it, as it does on Apple platforms.
@_exported public import Foundation
@_spi(CoreData) public import ManagedContext

/// Core Data's `NSManagedObjectContext`: the runtime's context under its Core Data name.
public typealias NSManagedObjectContext = ManagedObjectContext
/// Foundation's `UndoManager`, which Foundation on Linux lacks: the runtime's, for a
/// context's `undoManager`.
public typealias UndoManager = ManagedContext.UndoManager
/// Core Data's `NSManagedObjectID`: Sendable, Hashable, with `uriRepresentation()`.
public typealias NSManagedObjectID = ManagedObjectID
/// Core Data's `NSPersistentStoreCoordinator`.
public typealias NSPersistentStoreCoordinator = PersistentStoreCoordinator
/// Core Data's `NSMergePolicy`: a class of one of the five types (`init(merge:)`,
/// `mergeType`), subclassable through `resolve(optimisticLockingConflicts:)`.
public typealias NSMergePolicy = MergePolicy
/// Core Data's `NSMergePolicyType`, with its raw values.
public typealias NSMergePolicyType = MergePolicyType
/// Core Data's `NSMergeConflict`: a conflicting object (`sourceObject`), its versions and
/// snapshots. A value here, not a class.
public typealias NSMergeConflict = MergeConflict

/// Core Data's merge policy globals (`NSMergeByPropertyObjectTrumpMergePolicy`, …).
public let NSErrorMergePolicy = MergePolicy.error
public let NSMergeByPropertyStoreTrumpMergePolicy = MergePolicy.mergeByPropertyStoreTrump
public let NSMergeByPropertyObjectTrumpMergePolicy = MergePolicy.mergeByPropertyObjectTrump
public let NSOverwriteMergePolicy = MergePolicy.overwrite
public let NSRollbackMergePolicy = MergePolicy.rollback

/// Core Data's store types. Only SQLite is a real store here; `NSInMemoryStoreType`
/// opens an SQLite database in memory-backed temporary storage.
public let NSSQLiteStoreType = "SQLite"
public let NSInMemoryStoreType = "InMemory"
public let NSBinaryStoreType = "Binary"

/// Options of `addPersistentStore(ofType:configurationName:at:options:)`.
public let NSMigratePersistentStoresAutomaticallyOption = "NSMigratePersistentStoresAutomaticallyOption"
public let NSInferMappingModelAutomaticallyOption = "NSInferMappingModelAutomaticallyOption"
public let NSReadOnlyPersistentStoreOption = "NSReadOnlyPersistentStoreOption"
public let NSPersistentHistoryTrackingKey = "NSPersistentHistoryTrackingKey"
public let NSPersistentStoreRemoteChangeNotificationPostOptionKey = "NSPersistentStoreRemoteChangeNotificationPostOptionKey"
public let NSSQLitePragmasOption = "NSSQLitePragmasOption"

/// Keys of a store's metadata (`metadataForPersistentStore(ofType:at:options:)`).
public let NSStoreTypeKey = "NSStoreType"
public let NSStoreUUIDKey = "NSStoreUUID"
public let NSStoreModelVersionHashesKey = "NSStoreModelVersionHashes"
public let NSStoreModelVersionIdentifiersKey = "NSStoreModelVersionIdentifiers"

/// Keys of `NSPersistentStoreCoordinatorStoresDidChange`'s userInfo: the stores added,
/// removed, or whose UUID changed.
public let NSAddedPersistentStoresKey = "added"
public let NSRemovedPersistentStoresKey = "removed"
public let NSUUIDChangedPersistentStoresKey = "changedUUID"

/// Core Data's `NSConstraintConflict`: objects of a save sharing the values of a
/// uniqueness constraint (`conflictingObjects`), and the store's row with them
/// (`databaseObject`). A value here, not a class.
public typealias NSConstraintConflict = ConstraintConflict
