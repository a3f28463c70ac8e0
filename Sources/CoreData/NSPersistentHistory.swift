public import Foundation
@_spi(CoreData) public import ManagedContext

// Core Data's persistent history over the runtime's (ManagedContext/History): the
// store's ATRANSACTION, ACHANGE and ATRANSACTIONSTRING tables, in Core Data's layout
// (docs/coredata-on-linux.md, "Persistent history"). Apple's documentation:
// NSPersistentHistoryChangeRequest, NSPersistentHistoryTransaction,
// NSPersistentHistoryChange, NSPersistentHistoryToken, and the article "Consuming
// relevant store changes", whose flow the tests follow.

/// Core Data's `NSPersistentHistoryToken`: opaque, `NSSecureCoding`, one store's bookmark.
public typealias NSPersistentHistoryToken = PersistentHistoryToken

/// Core Data's `NSPersistentHistoryChangeType`.
public enum NSPersistentHistoryChangeType: Int, Sendable {
    case insert = 0, update = 1, delete = 2
}

/// Core Data's `NSPersistentHistoryResultType`.
public enum NSPersistentHistoryResultType: Int, Sendable {
    case statusOnly = 0, objectIDs = 1, count = 2, transactionsOnly = 3, changesOnly = 4, transactionsAndChanges = 5
}

/// Core Data's `NSPersistentHistoryChangeRequest`: fetches or deletes history, executed
/// with `NSManagedObjectContext.execute(_:)`.
open class NSPersistentHistoryChangeRequest: NSPersistentStoreRequest, @unchecked Sendable {
    enum Operation { case fetch, delete }
    let operation: Operation
    let boundary: PersistentHistoryBoundary
    open var resultType: NSPersistentHistoryResultType = .transactionsAndChanges
    /// The token the request starts from (fetch) or ends at (delete), when made with one.
    public var token: NSPersistentHistoryToken? {
        if case .token(let t) = boundary { return t }
        return nil
    }
    /// A fetch request on `NSPersistentHistoryTransaction.fetchRequest` or
    /// `NSPersistentHistoryChange.fetchRequest` whose predicate filters the result.
    open var fetchRequest: NSFetchRequest<any NSFetchRequestResult>?

    init(_ operation: Operation, _ boundary: PersistentHistoryBoundary) {
        self.operation = operation
        self.boundary = boundary
    }

    open class func fetchHistory(after token: NSPersistentHistoryToken?) -> NSPersistentHistoryChangeRequest { .init(.fetch, .token(token)) }
    open class func fetchHistory(after date: Date) -> NSPersistentHistoryChangeRequest { .init(.fetch, .date(date)) }
    open class func fetchHistory(after transaction: NSPersistentHistoryTransaction?) -> NSPersistentHistoryChangeRequest {
        .init(.fetch, .token(transaction?.token))
    }
    open class func fetchHistory(withFetchRequest fetchRequest: NSFetchRequest<any NSFetchRequestResult>) -> NSPersistentHistoryChangeRequest {
        let request = NSPersistentHistoryChangeRequest(.fetch, .token(nil))
        request.fetchRequest = fetchRequest
        return request
    }
    open class func deleteHistory(before token: NSPersistentHistoryToken?) -> NSPersistentHistoryChangeRequest { .init(.delete, .token(token)) }
    open class func deleteHistory(before date: Date) -> NSPersistentHistoryChangeRequest { .init(.delete, .date(date)) }
    open class func deleteHistory(before transaction: NSPersistentHistoryTransaction?) -> NSPersistentHistoryChangeRequest {
        .init(.delete, .token(transaction?.token))
    }
}

/// Core Data's `NSPersistentHistoryResult`: `result` is what `resultType` asks for.
open class NSPersistentHistoryResult: NSPersistentStoreResult, @unchecked Sendable {
    public let result: Any?
    init(_ result: Any?) { self.result = result }
}

/// Core Data's `NSPersistentHistoryTransaction`.
open class NSPersistentHistoryTransaction: NSObject, @unchecked Sendable {
    public let timestamp: Date
    public let changes: [NSPersistentHistoryChange]?
    public let storeID: String
    public let bundleID: String
    public let processID: String
    public let contextName: String?
    public let author: String?
    public let token: NSPersistentHistoryToken
    public let transactionNumber: Int64
    let base: PersistentHistoryTransaction

    init(_ t: PersistentHistoryTransaction) {
        base = t
        timestamp = t.timestamp
        storeID = t.storeID
        bundleID = t.bundleID ?? ""
        processID = t.processID ?? ""
        contextName = t.contextName
        author = t.author
        token = t.token
        transactionNumber = t.transactionNumber
        changes = t.changes.map { list in list.map { NSPersistentHistoryChange($0) } }
        super.init()
        for change in changes ?? [] { change.transaction = self }
    }

    /// The properties a fetch request's predicate reads, by name.
    var keyValues: [String: Any] {
        var values: [String: Any] = [
            "timestamp": timestamp, "storeID": storeID, "bundleID": bundleID, "processID": processID, "token": token,
            "transactionNumber": NSNumber(value: transactionNumber),
        ]
        values["author"] = author
        values["contextName"] = contextName
        return values
    }

    /// Core Data's `objectIDNotification()`: for `mergeChanges(fromContextDidSave:)`.
    open func objectIDNotification() -> Notification { base.objectIDNotification() }

    /// Core Data's `fetchRequest`: filters the transactions of a history request by its predicate.
    open class var fetchRequest: NSFetchRequest<any NSFetchRequestResult>? { NSFetchRequest(entityName: HistoryEntity.transaction) }
    open class func entityDescription(with context: NSManagedObjectContext) -> NSEntityDescription? { nil }
}

/// Core Data's `NSPersistentHistoryChange`.
open class NSPersistentHistoryChange: NSObject, @unchecked Sendable {
    public let changeID: Int64
    public let changedObjectID: NSManagedObjectID
    public let changeType: NSPersistentHistoryChangeType
    /// Core Data's `tombstone`: on a delete, the attributes marked
    /// `preservesValueInHistoryOnDeletion` with their values when the object was deleted
    /// (numbers as `NSNumber`, as Core Data's dictionary holds them); nil otherwise.
    public let tombstone: [AnyHashable: Any]?
    /// The transaction the change belongs to (weak, as Core Data's is).
    public internal(set) weak var transaction: NSPersistentHistoryTransaction?
    /// The attributes and to-one relationships an update set; nil for inserts and deletes.
    public let updatedProperties: Set<NSPropertyDescription>?
    /// The changed object's entity name, for predicates on changes.
    public let changedEntityName: String
    let transactionNumber: Int64

    init(_ c: PersistentHistoryChange) {
        transactionNumber = c.transactionNumber
        changeID = c.changeID
        changedObjectID = c.changedObjectID
        changeType = NSPersistentHistoryChangeType(rawValue: c.changeType.rawValue) ?? .update
        changedEntityName = c.changedObjectID.entity.name
        tombstone = c.tombstone.map { Self.coreDataValues($0, of: c.changedObjectID.entity) }
        let byName = c.updatedProperties.map { _ in c.changedObjectID.entity.propertiesByName } ?? [:]
        updatedProperties = c.updatedProperties.map { names in Set(names.compactMap { byName[$0] }) }
    }

    /// A tombstone's values as Core Data's dictionary holds them: numbers as `NSNumber`,
    /// an attribute whose values convert (a UUID, a URI, a float) in the model's type.
    private static func coreDataValues(_ values: [String: Any], of entity: EntityDescription) -> [AnyHashable: Any] {
        let declaration = entity.declaration as? NSEntityDescription
        var result: [AnyHashable: Any] = [:]
        for (name, value) in values {
            if let index = entity.attributeIndex(ifPresent: name), let converted = declaration?.attributeNeedingConversion(at: index) {
                result[name] = StorageConversion.fromStorage(value, of: converted) ?? value
                continue
            }
            switch value {
            case let n as Int16: result[name] = NSNumber(value: n)
            case let n as Int32: result[name] = NSNumber(value: n)
            case let n as Int64: result[name] = NSNumber(value: n)
            case let n as Double: result[name] = NSNumber(value: n)
            case let n as Bool: result[name] = NSNumber(value: n)
            default: result[name] = value
            }
        }
        return result
    }

    /// The properties a fetch request's predicate reads, by name (`changeType` as its number,
    /// as Core Data's key-value access gives it).
    var keyValues: [String: Any] {
        var values: [String: Any] = [
            "changeID": NSNumber(value: changeID), "changedObjectID": changedObjectID, "changeType": NSNumber(value: changeType.rawValue),
            "changedEntityName": changedEntityName,
        ]
        values["transaction"] = transaction?.keyValues
        return values
    }

    /// Core Data's `fetchRequest`: filters the changes of a history request by its predicate.
    open class var fetchRequest: NSFetchRequest<any NSFetchRequestResult>? { NSFetchRequest(entityName: HistoryEntity.change) }
    open class func entityDescription(with context: NSManagedObjectContext) -> NSEntityDescription? { nil }
}

/// The entity names of the fetch requests on transactions and changes.
enum HistoryEntity {
    static let transaction = "NSPersistentHistoryTransaction"
    static let change = "NSPersistentHistoryChange"
}

/// A property description is one object per model: equal when identical.

extension PersistentStoreCoordinator {
    /// Core Data's `currentPersistentHistoryToken(fromStores:)`: the newest transaction's
    /// token; nil when the store records no history or has none yet.
    public func currentPersistentHistoryToken(fromStores stores: [Any]?) -> NSPersistentHistoryToken? {
        currentPersistentHistoryToken()
    }
}

enum HistoryWork {
    static func execute(_ request: NSPersistentHistoryChangeRequest, coordinator: PersistentStoreCoordinator) throws -> NSPersistentHistoryResult {
        switch request.operation {
        case .delete:
            let count = try coordinator.deleteHistory(before: request.boundary)
            return NSPersistentHistoryResult(request.resultType == .count ? count as Any : true as Any)
        case .fetch:
            let withChanges = request.resultType != .transactionsOnly || request.fetchRequest?.entityName == HistoryEntity.change
            var transactions = try coordinator.fetchHistory(after: request.boundary, withChanges: withChanges).map(NSPersistentHistoryTransaction.init)
            var changes = transactions.flatMap { $0.changes ?? [] }
            if let fetch = request.fetchRequest, let predicate = fetch.predicate {
                if fetch.entityName == HistoryEntity.change {
                    changes = changes.filter { predicate.evaluate(with: $0.keyValues) }
                    let kept = Set(changes.map(\.transactionNumber))
                    transactions = transactions.filter { kept.contains($0.transactionNumber) }
                } else {
                    transactions = transactions.filter { predicate.evaluate(with: $0.keyValues) }
                    let kept = Set(transactions.map(\.transactionNumber))
                    changes = changes.filter { kept.contains($0.transactionNumber) }
                }
            }
            switch request.resultType {
            case .statusOnly: return NSPersistentHistoryResult(true)
            case .count: return NSPersistentHistoryResult(request.fetchRequest?.entityName == HistoryEntity.change ? changes.count : transactions.count)
            case .objectIDs: return NSPersistentHistoryResult(changes.map(\.changedObjectID))
            case .changesOnly: return NSPersistentHistoryResult(changes)
            case .transactionsOnly, .transactionsAndChanges: return NSPersistentHistoryResult(transactions)
            }
        }
    }
}
