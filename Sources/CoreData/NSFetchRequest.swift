@_spi(CoreData) import ManagedContext

/// Core Data's `NSFetchRequestResultType`.
public struct NSFetchRequestResultType: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let managedObjectResultType = NSFetchRequestResultType([])
    public static let managedObjectIDResultType = NSFetchRequestResultType(rawValue: 1)
    public static let dictionaryResultType = NSFetchRequestResultType(rawValue: 2)
    public static let countResultType = NSFetchRequestResultType(rawValue: 4)
}

/// Core Data's `NSPersistentStoreRequest`: what `execute(_:)` runs.
open class NSPersistentStoreRequest: NSObject, @unchecked Sendable {
    public override init() {}

    /// What kind of request this is (Core Data's `requestType`): each request class says.
    open var requestType: NSPersistentStoreRequestType { .fetchRequestType }

    /// Core Data's `affectedStores`: the stores to run the request on, nil for all. A
    /// coordinator has one store here, so a request runs on it either way.
    open var affectedStores: [NSPersistentStore]?
}

/// Core Data's `NSPersistentStoreRequestType`, with its raw values.
public enum NSPersistentStoreRequestType: UInt, Sendable, Hashable {
    case fetchRequestType = 1
    case saveRequestType = 2
    case batchInsertRequestType = 5
    case batchUpdateRequestType = 6
    case batchDeleteRequestType = 7
}

/// Core Data's `NSFetchRequest<ResultType>`: a class, as in Core Data, so requests are
/// shared and cast (`request as! NSFetchRequest<Note>`).
///
/// `@unchecked Sendable` as Core Data's (a request is configured, then handed to one
/// context at a time).
open class NSFetchRequest<ResultType>: NSPersistentStoreRequest, @unchecked Sendable {
    open var entityName: String?
    /// The entity, when the request was made with one or has been run.
    open var entity: NSEntityDescription? {
        get { storedEntity }
        set {
            storedEntity = newValue
            if let name = newValue?.name { entityName = name }
        }
    }
    private var storedEntity: NSEntityDescription?
    open var predicate: NSPredicate?
    open var sortDescriptors: [NSSortDescriptor]?
    open var fetchLimit = 0
    open var fetchOffset = 0
    open var fetchBatchSize = 0
    open var resultType: NSFetchRequestResultType = .managedObjectResultType
    open var includesPendingChanges = true
    open var includesSubentities = true
    /// Core Data's `includesPropertyValues`: false, the objects a fetch newly registers
    /// come back as faults, their values read when first used (objects the context held
    /// keep theirs).
    open var includesPropertyValues = true
    /// Core Data's `returnsObjectsAsFaults` (true): the objects a fetch newly registers
    /// come back as faults "although the data is in the row cache", realized on first
    /// use without reading the store again (unless a save came between, as a save
    /// through the coordinator updates Core Data's row cache); false, realized. Objects
    /// the context held realized, or changed, come back as they are.
    open var returnsObjectsAsFaults = true
    open var relationshipKeyPathsForPrefetching: [String]?
    /// With `.dictionaryResultType`: property names (or `NSPropertyDescription`s).
    open var propertiesToFetch: [Any]?
    open var returnsDistinctResults = false
    /// Core Data's `shouldRefreshRefetchedObjects`: true, objects the context already held
    /// and has not changed take the store's current values.
    open var shouldRefreshRefetchedObjects = false
    open var propertiesToGroupBy: [Any]?
    open var havingPredicate: NSPredicate?

    public override init() { super.init() }

    public convenience init(entityName: String) {
        self.init()
        self.entityName = entityName
    }

    /// The same request with another result type: what Objective-C code gets from the
    /// cast `request as! NSFetchRequest<Mood>`, which Swift's generics cannot make.
    public convenience init<Other>(_ other: NSFetchRequest<Other>) {
        self.init()
        entityName = other.entityName
        storedEntity = other.entity
        predicate = other.predicate
        sortDescriptors = other.sortDescriptors
        fetchLimit = other.fetchLimit
        fetchOffset = other.fetchOffset
        fetchBatchSize = other.fetchBatchSize
        resultType = other.resultType
        includesPendingChanges = other.includesPendingChanges
        includesSubentities = other.includesSubentities
        includesPropertyValues = other.includesPropertyValues
        returnsObjectsAsFaults = other.returnsObjectsAsFaults
        relationshipKeyPathsForPrefetching = other.relationshipKeyPathsForPrefetching
        propertiesToFetch = other.propertiesToFetch
        returnsDistinctResults = other.returnsDistinctResults
        shouldRefreshRefetchedObjects = other.shouldRefreshRefetchedObjects
        propertiesToGroupBy = other.propertiesToGroupBy
        havingPredicate = other.havingPredicate
    }

    open override var description: String {
        "<NSFetchRequest: entity: \(entityName ?? "nil"), predicate: (\(predicate.map { "\($0)" } ?? "nil")), sortDescriptors: \(sortDescriptors.map { "\($0)" } ?? "nil"), limit: \(fetchLimit)>"
    }
}

extension NSFetchRequest {
    /// The same request with this result type when its results are of it, else nil: what
    /// `request as? NSFetchRequest<Mood>` (and `is`) answers on Apple platforms, where the
    /// cast asks nothing of the generic parameter; `ctxdebug port` writes this for those
    /// casts. Objects fit when the entity's class is `ResultType` or a subclass of it (or
    /// when the request names no entity the model resolved); IDs, dictionaries and counts
    /// fit `NSManagedObjectID`, `NSDictionary` and `NSNumber`; anything fits
    /// `any NSFetchRequestResult`.
    public convenience init?<Other>(fitting other: NSFetchRequest<Other>?) {
        guard let other, Self.results(of: other, fit: ResultType.self) else { return nil }
        self.init(other)
    }

    private static func results<Other>(of other: NSFetchRequest<Other>, fit type: ResultType.Type) -> Bool {
        if ResultType.self == (any NSFetchRequestResult).self || ResultType.self == Any.self { return true }
        switch other.resultType {
        case .managedObjectIDResultType: return ResultType.self == NSManagedObjectID.self
        case .dictionaryResultType: return ResultType.self == NSDictionary.self || ResultType.self == [String: Any].self
        case .countResultType: return ResultType.self == NSNumber.self
        default:
            guard let entity = other.entity, let name = entity.name else { return true }
            let cls: AnyClass = ClassResolver.managedObjectClass(named: entity.managedObjectClassName, entity: name)
            return cls is ResultType.Type
        }
    }
}

extension NSFetchRequest {
    /// Core Data's `execute()`: the request fetched in the current context, the one
    /// whose `perform` or `performAndWait` block is running ("This method must be
    /// called from within a block submitted to a managed object context"). Outside
    /// such a block it stops, as Core Data raises.
    public func execute() throws -> [ResultType] {
        guard let context = ManagedObjectContext.current else {
            preconditionFailure("NSFetchRequest.execute() must be called from within a block submitted to a managed object context (perform or performAndWait): no context's block is running on this thread. Call context.fetch(request) instead, or call execute() inside context.performAndWait { }.")
        }
        return try context.fetch(self)
    }
}
