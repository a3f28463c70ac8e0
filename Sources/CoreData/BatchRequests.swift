@_spi(CoreData) public import ManagedContext

/// Core Data's `NSPersistentStoreResult`: what `execute(_:)` returns.
open class NSPersistentStoreResult: NSObject, @unchecked Sendable {
    public override init() {}
}

/// Core Data's `NSBatchDeleteRequestResultType`.
public enum NSBatchDeleteRequestResultType: UInt, Sendable {
    case resultTypeStatusOnly = 0
    case resultTypeObjectIDs = 1
    case resultTypeCount = 2
}

/// Core Data's `NSBatchUpdateRequestResultType`.
public enum NSBatchUpdateRequestResultType: UInt, Sendable {
    case statusOnlyResultType = 0
    case updatedObjectIDsResultType = 1
    case updatedObjectsCountResultType = 2
}

/// Core Data's `NSBatchInsertRequestResultType`.
public enum NSBatchInsertRequestResultType: UInt, Sendable {
    case statusOnly = 0
    case objectIDs = 1
    case count = 2
}

/// Core Data's `NSBatchDeleteRequest`: deletes what a fetch request matches (or the
/// given objectIDs) in the store, without loading them into the caller's context.
open class NSBatchDeleteRequest: NSPersistentStoreRequest, @unchecked Sendable {
    public let fetchRequest: NSFetchRequest<any NSFetchRequestResult>
    let objectIDs: [NSManagedObjectID]?
    open var resultType: NSBatchDeleteRequestResultType = .resultTypeStatusOnly

    public init(fetchRequest: NSFetchRequest<any NSFetchRequestResult>) {
        self.fetchRequest = fetchRequest
        self.objectIDs = nil
    }

    public init(objectIDs: [NSManagedObjectID]) {
        self.fetchRequest = NSFetchRequest(entityName: objectIDs.first?.entityName ?? "")
        self.objectIDs = objectIDs
    }

    open override var requestType: NSPersistentStoreRequestType { .batchDeleteRequestType }
}

/// Core Data's `NSBatchUpdateRequest`: sets properties of what a predicate matches.
open class NSBatchUpdateRequest: NSPersistentStoreRequest, @unchecked Sendable {
    public let entityName: String
    open var predicate: NSPredicate?
    open var propertiesToUpdate: [AnyHashable: Any]?
    open var resultType: NSBatchUpdateRequestResultType = .statusOnlyResultType
    open var includesSubentities = true

    public init(entityName: String) { self.entityName = entityName }
    public convenience init(entity: NSEntityDescription) { self.init(entityName: entity.name ?? "") }

    open override var requestType: NSPersistentStoreRequestType { .batchUpdateRequestType }
}

/// Core Data's `NSBatchInsertRequest`: inserts rows given as dictionaries.
open class NSBatchInsertRequest: NSPersistentStoreRequest, @unchecked Sendable {
    public let entityName: String
    open var objectsToInsert: [[String: Any]]?
    open var resultType: NSBatchInsertRequestResultType = .statusOnly
    open var dictionaryHandler: ((NSMutableDictionary) -> Bool)?
    open var managedObjectHandler: ((NSManagedObject) -> Bool)?

    public init(entityName: String, objects dictionaries: [[String: Any]]) {
        self.entityName = entityName
        self.objectsToInsert = dictionaries
    }
    public convenience init(entity: NSEntityDescription, objects dictionaries: [[String: Any]]) {
        self.init(entityName: entity.name ?? "", objects: dictionaries)
    }
    public init(entityName: String, dictionaryHandler: @escaping (NSMutableDictionary) -> Bool) {
        self.entityName = entityName
        self.dictionaryHandler = dictionaryHandler
    }
    public init(entityName: String, managedObjectHandler: @escaping (NSManagedObject) -> Bool) {
        self.entityName = entityName
        self.managedObjectHandler = managedObjectHandler
    }
    /// Core Data's `init(entity:dictionaryHandler:)`, as Apple's Earthquakes sample makes its import.
    public convenience init(entity: NSEntityDescription, dictionaryHandler: @escaping (NSMutableDictionary) -> Bool) {
        self.init(entityName: entity.name ?? "", dictionaryHandler: dictionaryHandler)
        self.entity = entity
    }
    /// Core Data's `init(entity:managedObjectHandler:)`.
    public convenience init(entity: NSEntityDescription, managedObjectHandler: @escaping (NSManagedObject) -> Bool) {
        self.init(entityName: entity.name ?? "", managedObjectHandler: managedObjectHandler)
        self.entity = entity
    }
    /// The entity the request was made with, when it was made with one.
    open var entity: NSEntityDescription?

    open override var requestType: NSPersistentStoreRequestType { .batchInsertRequestType }
}

open class NSBatchDeleteResult: NSPersistentStoreResult, @unchecked Sendable {
    /// Nil, a `Bool`, `[NSManagedObjectID]` or an `Int`, as the request's `resultType` asks.
    public let result: Any?
    init(_ result: Any?) { self.result = result }
}
open class NSBatchUpdateResult: NSPersistentStoreResult, @unchecked Sendable {
    public let result: Any?
    init(_ result: Any?) { self.result = result }
}
open class NSBatchInsertResult: NSPersistentStoreResult, @unchecked Sendable {
    public let result: Any?
    init(_ result: Any?) { self.result = result }
}

extension ManagedObjectContext {
    /// Core Data's `execute(_:)` for batch requests and history requests. A batch
    /// request runs in a private context of its own on this context's coordinator and
    /// saves once: the caller's context does not see the change until it merges
    /// (`mergeChanges(fromRemoteContextSave:into:)`) or refetches, as in Core Data.
    /// Unlike Core Data's, the private context's save posts its did-save notification.
    public func execute(_ request: NSPersistentStoreRequest) throws -> NSPersistentStoreResult {
        guard let coordinator = persistentStoreCoordinator else {
            throw ManagedContextError(.noStore, "execute(_:) needs a context on a persistent store coordinator.")
        }
        switch request {
        case let delete as NSBatchDeleteRequest: return try BatchWork.delete(delete, coordinator: coordinator, author: transactionAuthor)
        case let update as NSBatchUpdateRequest: return try BatchWork.update(update, coordinator: coordinator, author: transactionAuthor)
        case let insert as NSBatchInsertRequest: return try BatchWork.insert(insert, coordinator: coordinator, author: transactionAuthor)
        case let fetch as any AsynchronousFetch: return fetch.start(in: self)
        case let history as NSPersistentHistoryChangeRequest: return try HistoryWork.execute(history, coordinator: coordinator)
        default:
            throw ManagedContextError(.invalidFetchRequest, "execute(_:) does not run \(type(of: request)) here; use fetch(_:) for fetch requests.")
        }
    }
}

/// The batch requests, each in one private context and one save.
enum BatchWork {
    /// The batch's own context; its saves are recorded in the persistent history with the
    /// executing context's `transactionAuthor`, as Core Data records a batch request's.
    private static func context(_ coordinator: PersistentStoreCoordinator, author: String?) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.name = "batch request"
        context.transactionAuthor = author
        return context
    }

    static func delete(_ request: NSBatchDeleteRequest, coordinator: PersistentStoreCoordinator, author: String?) throws -> NSBatchDeleteResult {
        let context = context(coordinator, author: author)
        let ids: [NSManagedObjectID] = try context.performAndWait {
            let ids: [NSManagedObjectID]
            if let given = request.objectIDs {
                ids = given
            } else {
                let idRequest = request.fetchRequest
                let previous = idRequest.resultType
                idRequest.resultType = .managedObjectIDResultType
                defer { idRequest.resultType = previous }
                ids = try context.fetch(idRequest).compactMap { $0 as? NSManagedObjectID }
            }
            for id in ids { context.delete(try context.existingObject(with: id)) }
            try context.save()
            return ids
        }
        switch request.resultType {
        case .resultTypeStatusOnly: return NSBatchDeleteResult(true)
        case .resultTypeObjectIDs: return NSBatchDeleteResult(ids)
        case .resultTypeCount: return NSBatchDeleteResult(ids.count)
        }
    }

    static func update(_ request: NSBatchUpdateRequest, coordinator: PersistentStoreCoordinator, author: String?) throws -> NSBatchUpdateResult {
        let context = context(coordinator, author: author)
        let ids: [NSManagedObjectID] = try context.performAndWait {
            let fetch = NSFetchRequest<NSManagedObject>(entityName: request.entityName)
            fetch.predicate = request.predicate
            let objects = try context.fetch(fetch)
            for object in objects {
                for (key, value) in request.propertiesToUpdate ?? [:] {
                    guard let name = (key as? String) ?? (key as? NSPropertyDescription)?.name else { continue }
                    object.setValue(value is NSNull ? nil : value, forKey: name)
                }
            }
            try context.save()
            return objects.map(\.objectID)
        }
        switch request.resultType {
        case .statusOnlyResultType: return NSBatchUpdateResult(true)
        case .updatedObjectIDsResultType: return NSBatchUpdateResult(ids)
        case .updatedObjectsCountResultType: return NSBatchUpdateResult(ids.count)
        }
    }

    static func insert(_ request: NSBatchInsertRequest, coordinator: PersistentStoreCoordinator, author: String?) throws -> NSBatchInsertResult {
        let context = context(coordinator, author: author)
        // A batch insert into an entity with uniqueness constraints updates the rows that
        // hold the new rows' keys (an upsert, as Apple's Earthquakes sample imports).
        context.mergePolicy = .mergeByPropertyObjectTrump
        let ids: [NSManagedObjectID] = try context.performAndWait {
            var inserted: [NSManagedObject] = []
            func make() -> NSManagedObject { NSEntityDescription.insertNewObject(forEntityName: request.entityName, into: context) }
            if let rows = request.objectsToInsert {
                for row in rows {
                    let object = make()
                    for (key, value) in row { object.setValue(value, forKey: key) }
                    inserted.append(object)
                }
            } else if let handler = request.dictionaryHandler {
                while true {
                    let row = NSMutableDictionary()
                    if handler(row) { break }
                    let object = make()
                    for (key, value) in row { if let key = key as? String { object.setValue(value, forKey: key) } }
                    inserted.append(object)
                }
            } else if let handler = request.managedObjectHandler {
                while true {
                    let object = make()
                    if handler(object) {
                        context.delete(object)
                        break
                    }
                    inserted.append(object)
                }
            }
            try context.save()
            // An object merged into another of the batch's rows left the context.
            return inserted.filter { $0.managedObjectContext != nil }.map(\.objectID)
        }
        switch request.resultType {
        case .statusOnly: return NSBatchInsertResult(true)
        case .objectIDs: return NSBatchInsertResult(ids)
        case .count: return NSBatchInsertResult(ids.count)
        }
    }
}
