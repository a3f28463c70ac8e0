/// Core Data's names, as CoreData declares them (PortImportsAndCastsTests checks that
/// it does): a file that uses one needs `import CoreData`. With Xcode, a model file
/// often has only `import Foundation` and still builds (the app target's umbrella
/// imports bring Core Data); on Linux the copy gets the import above its first line.
extension PortRewriter {
    static let coreDataNames: Set<String> = [
        // Objects, contexts, the stack.
        "NSManagedObject", "NSManagedObjectContext", "NSManagedObjectID", "NSManagedObjectModel", "NSManagedObjectContextConcurrencyType",
        "NSPersistentContainer", "NSPersistentCloudKitContainer", "NSPersistentCloudKitContainerOptions", "NSPersistentStoreCoordinator",
        "NSPersistentStore", "NSPersistentStoreDescription", "NSMergePolicy", "NSQueryGenerationToken",
        // Requests and results.
        "NSFetchRequest", "NSFetchRequestResult", "NSFetchRequestResultType", "NSAsynchronousFetchRequest", "NSAsynchronousFetchResult",
        "NSPersistentStoreRequest", "NSPersistentStoreResult", "NSPersistentStoreAsynchronousResult", "NSFetchedResultsController",
        "NSFetchedResultsControllerDelegate", "NSFetchedResultsSectionInfo", "NSFetchedResultsChangeType", "NSBatchDeleteRequest",
        "NSBatchDeleteResult", "NSBatchUpdateRequest", "NSBatchUpdateResult", "NSBatchInsertRequest", "NSBatchInsertResult",
        "NSPersistentHistoryChangeRequest", "NSPersistentHistoryTransaction", "NSPersistentHistoryChange", "NSPersistentHistoryToken",
        "NSExpressionDescription", "NSExpression",
        // Linux has no Objective-C `Selector`; CoreData has one for its sort descriptors.
        "Selector",
        // The model.
        "NSEntityDescription", "NSPropertyDescription", "NSAttributeDescription", "NSRelationshipDescription", "NSAttributeType",
        "NSDeleteRule", "NSFetchIndexDescription",
        // Constants: store types, options, merge policies, notification names and keys.
        "NSSQLiteStoreType", "NSInMemoryStoreType", "NSBinaryStoreType", "NSMigratePersistentStoresAutomaticallyOption",
        "NSInferMappingModelAutomaticallyOption", "NSPersistentHistoryTrackingKey", "NSReadOnlyPersistentStoreOption", "NSSQLitePragmasOption",
        "NSMergeByPropertyObjectTrumpMergePolicy", "NSMergeByPropertyStoreTrumpMergePolicy", "NSOverwriteMergePolicy",
        "NSRollbackMergePolicy", "NSErrorMergePolicy", "NSManagedObjectContextDidSave", "NSManagedObjectContextWillSave",
        "NSManagedObjectContextObjectsDidChange", "NSInsertedObjectsKey", "NSUpdatedObjectsKey", "NSDeletedObjectsKey",
        "NSRefreshedObjectsKey", "NSInvalidatedObjectsKey", "NSInvalidatedAllObjectsKey",
    ]

    /// Whether `text` holds one of `coreDataNames` as a whole word: one pass over the
    /// text, for the quick filter that spares a file without them the parser.
    static func mentionsCoreDataName(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        func isIdentifier(_ b: UInt8) -> Bool {
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F
        }
        var i = 0
        while i + 1 < bytes.count {
            guard bytes[i] == UInt8(ascii: "N"), bytes[i + 1] == UInt8(ascii: "S"), i == 0 || !isIdentifier(bytes[i - 1]) else {
                i += 1
                continue
            }
            var end = i + 2
            while end < bytes.count, isIdentifier(bytes[end]) { end += 1 }
            if coreDataNames.contains(String(decoding: bytes[i..<end], as: UTF8.self)) { return true }
            i = end
        }
        return false
    }
}
