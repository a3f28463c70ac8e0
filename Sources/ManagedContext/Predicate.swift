import Foundation

/// How a predicate names a property: by key path or by name.
public enum PropertyKey: Sendable, Hashable {
    /// A Swift key path to the property (`\Note.title`).
    case keyPath(PropertyKeyPath)
    /// The property's name in the model (`"title"`).
    case name(String)
}

/// A key path to a property. `@unchecked Sendable`: the key paths used here are
/// immutable paths to stored-property accessors, with no captured state.
public struct PropertyKeyPath: @unchecked Sendable, Hashable {
    let keyPath: AnyKeyPath
    init(_ keyPath: AnyKeyPath) { self.keyPath = keyPath }
}

/// A comparison of a predicate, spelled as in `NSPredicate`'s format (the raw value).
public enum ComparisonOperator: String, Sendable, Hashable {
    /// `==`, `!=`, `<`, `<=`, `>`, `>=`.
    case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
}

/// A typed fetch predicate, built with operators on key paths:
///
/// ```swift
/// let good: FetchPredicate<JournalEntry> = \.rating >= 4 && \.location == "Rincon"
/// ```
///
/// It is compiled to SQL with bound parameters for the store, and evaluated in
/// memory over a context's unsaved changes, with the same results.
public struct FetchPredicate<Root: ManagedObject>: Sendable {
    indirect enum Node: Sendable {
        case compare(PropertyKey, ComparisonOperator, StoredValue)
        case inList(PropertyKey, [StoredValue])
        case beginsWith(PropertyKey, String)
        case contains(PropertyKey, String)
        case toOne(PropertyKey, ManagedObjectID?, equal: Bool)
        case and([Node])
        case or([Node])
        case not(Node)
        case constant(Bool)
        /// Core Data's predicate language (`NSPredicate(format:)`), see StorePredicate.swift.
        case store(StorePredicate)
    }

    let node: Node

    init(_ node: Node) { self.node = node }

    /// Every object (`TRUEPREDICATE`).
    public static var all: FetchPredicate { FetchPredicate(.constant(true)) }
    /// No object (`FALSEPREDICATE`).
    public static var none: FetchPredicate { FetchPredicate(.constant(false)) }

    /// A comparison on an attribute named as a string, for generic code.
    public static func attribute(_ name: String, _ op: ComparisonOperator, _ value: some AttributeValue) -> FetchPredicate {
        FetchPredicate(.compare(.name(name), op, value.storedValue))
    }

    /// `IN` on an attribute named as a string: it equals one of `values`.
    public static func attribute(_ name: String, in values: [some AttributeValue]) -> FetchPredicate {
        FetchPredicate(.inList(.name(name), values.map(\.storedValue)))
    }

    /// `BEGINSWITH` on an attribute named as a string, case-sensitive.
    public static func attribute(_ name: String, beginsWith prefix: String) -> FetchPredicate {
        FetchPredicate(.beginsWith(.name(name), prefix))
    }

    /// `CONTAINS` on an attribute named as a string, case-sensitive.
    public static func attribute(_ name: String, contains text: String) -> FetchPredicate {
        FetchPredicate(.contains(.name(name), text))
    }

    /// Objects whose to-one relationship `name` points to the object `id` (or to nothing).
    public static func relationship(_ name: String, is id: ManagedObjectID?) -> FetchPredicate {
        FetchPredicate(.toOne(.name(name), id, equal: true))
    }

    /// `IN`: the attribute equals one of `values`.
    public static func isIn<V: AttributeValue>(_ keyPath: KeyPath<Root, V>, _ values: [V]) -> FetchPredicate {
        FetchPredicate(.inList(.keyPath(PropertyKeyPath(keyPath)), values.map(\.storedValue)))
    }

    /// `BEGINSWITH`, case-sensitive as Core Data's default.
    public static func beginsWith(_ keyPath: KeyPath<Root, String?>, _ prefix: String) -> FetchPredicate {
        FetchPredicate(.beginsWith(.keyPath(PropertyKeyPath(keyPath)), prefix))
    }

    /// `CONTAINS`, case-sensitive as Core Data's default.
    public static func contains(_ keyPath: KeyPath<Root, String?>, _ text: String) -> FetchPredicate {
        FetchPredicate(.contains(.keyPath(PropertyKeyPath(keyPath)), text))
    }

    /// Both predicates (`AND`).
    public static func && (a: FetchPredicate, b: FetchPredicate) -> FetchPredicate { FetchPredicate(.and([a.node, b.node])) }
    /// Either predicate (`OR`).
    public static func || (a: FetchPredicate, b: FetchPredicate) -> FetchPredicate { FetchPredicate(.or([a.node, b.node])) }
    /// The objects the predicate does not match (`NOT`).
    public static prefix func ! (a: FetchPredicate) -> FetchPredicate { FetchPredicate(.not(a.node)) }
}

private func compare<Root: ManagedObject, V: AttributeValue>(
    _ kp: KeyPath<Root, V>, _ op: ComparisonOperator, _ v: V
) -> FetchPredicate<Root> {
    FetchPredicate(.compare(.keyPath(PropertyKeyPath(kp)), op, v.storedValue))
}

/// The attribute at the key path equals the value (`\Note.title == "Milk"`).
public func == <Root: ManagedObject, V: AttributeValue>(lhs: KeyPath<Root, V>, rhs: V) -> FetchPredicate<Root> { compare(lhs, .equal, rhs) }
/// The attribute at the key path differs from the value.
public func != <Root: ManagedObject, V: AttributeValue>(lhs: KeyPath<Root, V>, rhs: V) -> FetchPredicate<Root> { compare(lhs, .notEqual, rhs) }
/// The attribute at the key path is less than the value.
public func < <Root: ManagedObject, V: AttributeValue>(lhs: KeyPath<Root, V>, rhs: V) -> FetchPredicate<Root> { compare(lhs, .less, rhs) }
/// The attribute at the key path is at most the value.
public func <= <Root: ManagedObject, V: AttributeValue>(lhs: KeyPath<Root, V>, rhs: V) -> FetchPredicate<Root> { compare(lhs, .lessOrEqual, rhs) }
/// The attribute at the key path is greater than the value.
public func > <Root: ManagedObject, V: AttributeValue>(lhs: KeyPath<Root, V>, rhs: V) -> FetchPredicate<Root> { compare(lhs, .greater, rhs) }
/// The attribute at the key path is at least the value.
public func >= <Root: ManagedObject, V: AttributeValue>(lhs: KeyPath<Root, V>, rhs: V) -> FetchPredicate<Root> { compare(lhs, .greaterOrEqual, rhs) }

/// The to-one relationship at the key path points to the object (or, for nil, to none).
public func == <Root: ManagedObject, D: ManagedObject>(lhs: KeyPath<Root, D?>, rhs: D?) -> FetchPredicate<Root> {
    FetchPredicate(.toOne(.keyPath(PropertyKeyPath(lhs)), rhs?.objectID, equal: true))
}
/// The to-one relationship at the key path does not point to the object.
public func != <Root: ManagedObject, D: ManagedObject>(lhs: KeyPath<Root, D?>, rhs: D?) -> FetchPredicate<Root> {
    FetchPredicate(.toOne(.keyPath(PropertyKeyPath(lhs)), rhs?.objectID, equal: false))
}

extension KeyPath where Root: ManagedObject, Value: AttributeValue {
    /// `IN`: the attribute equals one of `values`.
    public func isIn(_ values: [Value]) -> FetchPredicate<Root> {
        FetchPredicate(.inList(.keyPath(PropertyKeyPath(self)), values.map(\.storedValue)))
    }
}

extension KeyPath where Root: ManagedObject, Value == String? {
    /// `BEGINSWITH`, case-sensitive as Core Data's default.
    public func beginsWith(_ prefix: String) -> FetchPredicate<Root> { FetchPredicate(.beginsWith(.keyPath(PropertyKeyPath(self)), prefix)) }
    /// `CONTAINS`, case-sensitive as Core Data's default.
    public func contains(_ text: String) -> FetchPredicate<Root> { FetchPredicate(.contains(.keyPath(PropertyKeyPath(self)), text)) }
}

extension KeyPath where Root: ManagedObject, Value == String {
    /// `BEGINSWITH` on a non-optional string attribute, case-sensitive.
    public func beginsWith(_ prefix: String) -> FetchPredicate<Root> { FetchPredicate(.beginsWith(.keyPath(PropertyKeyPath(self)), prefix)) }
    /// `CONTAINS` on a non-optional string attribute, case-sensitive.
    public func contains(_ text: String) -> FetchPredicate<Root> { FetchPredicate(.contains(.keyPath(PropertyKeyPath(self)), text)) }
}

/// A sort on one attribute.
public struct FetchSortDescriptor<Root: ManagedObject>: Sendable {
    let key: PropertyKey
    /// Smallest first (true) or largest first.
    public let ascending: Bool
    /// How strings compare (a Core Data sort descriptor's selector); byte order when nil.
    package var comparator: StringSortComparator?

    /// A sort on the attribute `key`, comparing strings with `comparator`.
    package init(key: String, ascending: Bool, comparator: StringSortComparator?) {
        self.key = .name(key)
        self.ascending = ascending
        self.comparator = comparator
    }

    /// A sort on the attribute at `keyPath`.
    public init<V: AttributeValue>(_ keyPath: KeyPath<Root, V>, ascending: Bool = true) {
        self.key = .keyPath(PropertyKeyPath(keyPath))
        self.ascending = ascending
    }

    /// A sort on the attribute named `key` (Core Data's `NSSortDescriptor(key:ascending:)`).
    public init(key: String, ascending: Bool = true) {
        self.key = .name(key)
        self.ascending = ascending
    }
}

/// What a fetch returns. Never read by the runtime: a request's `resultType`
/// (`FetchRequestResultType`, Core Data's names) says it.
@available(*, deprecated, renamed: "FetchRequestResultType", message: "set FetchRequest.resultType (FetchRequestResultType) instead")
public enum FetchResultType: Sendable {
    /// Objects, their IDs, or their count: `FetchRequestResultType`'s
    /// `.managedObjectResultType`, `.managedObjectIDResultType`, `.countResultType`.
    case managedObject, managedObjectID, count
}

/// What a fetch request asks for: Core Data's `NSFetchRequestResultType`.
public enum FetchRequestResultType: Sendable, Hashable {
    /// Managed objects (the default): `fetch(_:)`.
    case managedObjectResultType
    /// Object IDs: `fetchObjectIDs(_:)`.
    case managedObjectIDResultType
    /// One dictionary per row, holding `propertiesToFetch`: `fetchDictionaries(_:)` and
    /// `enumerateDictionaries(for:using:)`. Read from the persistent store: a context's
    /// unsaved changes are not included.
    case dictionaryResultType
    /// The number of matching objects: `count(for:)`.
    case countResultType
}

/// A fetch: an entity, a predicate, sorts, and paging.
public struct FetchRequest<Result: ManagedObject>: Sendable {
    /// Which objects match; nil for all.
    public var predicate: FetchPredicate<Result>?
    /// The order of the results, the first sort first; none for the store's order.
    public var sortDescriptors: [FetchSortDescriptor<Result>]
    /// At most this many results; 0 for no limit.
    public var fetchLimit: Int = 0
    /// Skip this many results first (with `fetchLimit`, for paging).
    public var fetchOffset: Int = 0
    /// Load objects in batches of this size as iteration reaches them; 0 loads all
    /// at once. A fetch of a million rows with a batch size never holds a million
    /// objects.
    public var fetchBatchSize: Int = 0
    /// Include the context's unsaved inserts, changes and deletes (true, as in Core Data).
    /// Dictionary results never include them, whatever this says (as in Core Data).
    public var includesPendingChanges: Bool = true
    /// What the fetch returns (`.managedObjectResultType`, as in Core Data).
    public var resultType: FetchRequestResultType = .managedObjectResultType
    /// With `.dictionaryResultType`: the names of the attributes and to-one
    /// relationships each dictionary holds, in this order; nil for every attribute.
    /// A to-one relationship's value is the related object's `ManagedObjectID`.
    public var propertiesToFetch: [String]?
    /// With `.dictionaryResultType`: leave out rows whose fetched properties equal
    /// an earlier row's (false, as in Core Data). Used only with `propertiesToFetch`.
    public var returnsDistinctResults: Bool = false
    /// The entity to fetch, when it is not `Result`'s own: Core Data's API names the
    /// entity of a request (`NSFetchRequest(entityName:)`) and fetches through
    /// `FetchRequest<ManagedObject>`.
    @_spi(CoreData) public var entity: EntityDescription?
    /// Core Data's `includesSubentities`: whether objects of the entities that inherit
    /// from the fetched one match too (true, as in Core Data).
    public var includesSubentities: Bool = true
    /// Core Data's `returnsObjectsAsFaults`: the objects a fetch newly registers (and the
    /// faults it finds registered) come back as faults that hold the row the fetch read
    /// ("although the data is in the row cache"), realized on first use without reading
    /// the store again unless some save came between. False here, so the runtime's own
    /// fetches return realized objects; `NSFetchRequest` defaults to true, as Core Data's.
    public var returnsObjectsAsFaults: Bool = false

    /// A request for `Result`'s entity, matching `predicate`, in the order of `sortDescriptors`.
    public init(predicate: FetchPredicate<Result>? = nil, sortDescriptors: [FetchSortDescriptor<Result>] = []) {
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
    }
}

// MARK: Resolution

/// A predicate with its properties resolved to indices of one entity: what the
/// store and the contexts evaluate.
indirect enum ResolvedPredicate: Sendable {
    case compare(Int, ComparisonOperator, StoredValue)
    case inList(Int, [StoredValue])
    case beginsWith(Int, String)
    case contains(Int, String)
    case toOne(Int, ManagedObjectID?, equal: Bool)  // to-one slot index
    case and([ResolvedPredicate])
    case or([ResolvedPredicate])
    case not(ResolvedPredicate)
    case constant(Bool)
    case store(ResolvedStorePredicate)

    /// Whether the row (`values`, `toOne`) of the object `id` matches. `source` reads
    /// the objects key paths reach (the evaluating context); only Core Data's
    /// predicate language (`.store`) needs it.
    func evaluate(values: [StoredValue], toOne: [ManagedObjectID?], id: ManagedObjectID? = nil, source: (any RelatedRowSource)? = nil) -> Bool {
        switch self {
        case .constant(let b): return b
        case .and(let parts): return parts.allSatisfy { $0.evaluate(values: values, toOne: toOne, id: id, source: source) }
        case .or(let parts): return parts.contains { $0.evaluate(values: values, toOne: toOne, id: id, source: source) }
        case .not(let p): return !p.evaluate(values: values, toOne: toOne, id: id, source: source)
        case .store(let p): return p.evaluate(values: values, toOne: toOne, id: id, source: source)
        case .compare(let i, let op, let rhs):
            let lhs = values[i]
            switch op {
            case .equal: return rhs.isNull ? lhs.isNull : StoredValue.sqlEquals(lhs, rhs)
            case .notEqual: return rhs.isNull ? !lhs.isNull : (lhs.isNull || !StoredValue.sqlEquals(lhs, rhs))
            default:
                if lhs.isNull || rhs.isNull { return false }
                let c = StoredValue.compare(lhs, rhs)
                switch op {
                case .less: return c < 0
                case .lessOrEqual: return c <= 0
                case .greater: return c > 0
                default: return c >= 0
                }
            }
        case .inList(let i, let list):
            return list.contains { StoredValue.sqlEquals(values[i], $0) }
        case .beginsWith(let i, let prefix):
            guard case .text(let s) = values[i] else { return false }
            return s.utf8.starts(with: prefix.utf8)
        case .contains(let i, let text):
            guard case .text(let s) = values[i] else { return false }
            if text.isEmpty { return true }
            let hay = Array(s.utf8), needle = Array(text.utf8)
            guard needle.count <= hay.count else { return false }
            for start in 0...(hay.count - needle.count) where hay[start..<(start + needle.count)].elementsEqual(needle) {
                return true
            }
            return false
        case .toOne(let slot, let id, let equal):
            return (toOne[slot] == id) == equal
        }
    }
}

struct ResolvedSort: Sendable {
    /// The attribute's index in its entity: the fetched one, or the destination of `steps`.
    let attribute: Int
    let ascending: Bool
    var comparator: StringSortComparator? = nil
    /// The to-one relationships a sort key path (`folder.name`) crosses; empty for an
    /// attribute of the fetched entity.
    var steps: [RelationshipDescription] = []
}

/// A fetch request resolved against an entity: what crosses to parent contexts
/// and the store.
struct ResolvedFetch: Sendable {
    let entity: EntityDescription
    let predicate: ResolvedPredicate
    let sorts: [ResolvedSort]
    let limit: Int
    let offset: Int
    /// Whether rows of the entity's subentities match too (Core Data's `includesSubentities`).
    var includesSubentities = true

    /// Whether an object of `e` can be one of this fetch's results.
    func admits(_ e: EntityDescription) -> Bool {
        e === entity || (includesSubentities && e.isKind(of: entity))
    }
}

enum PredicateResolution {
    static func resolve(_ key: PropertyKey, in entity: EntityDescription) throws(ManagedContextError) -> PropertyReference {
        switch key {
        case .name(let name):
            if let a = entity.attribute(named: name) { return .attribute(a.index) }
            if let r = entity.relationship(named: name), !r.isToMany { return .toOne(r.index) }
            throw ManagedContextError(.invalidFetchRequest, "\(entity.name) has no attribute or to-one relationship named '\(name)'")
        case .keyPath(let wrapped):
            let kp = wrapped.keyPath
            if let cached = entity.keyPathCache.lookup(wrapped) { return cached }
            let prototype = entity.managedObjectClass.init(entity: entity, insertInto: nil)
            prototype.isRecordingPrototype = true
            // A value behind every attribute: the getter of a non-optional property
            // (`value(forKey: "time") as! Date`) would trap on nil.
            prototype.values = entity.attributeTypes.map(\.recordingStandIn)
            _ = prototype[keyPath: kp]
            guard let ref = prototype.recordedProperty else {
                throw ManagedContextError(
                    .invalidFetchRequest,
                    "the key path \(kp) of \(entity.name) does not lead to an @Attribute or a to-one @Relationship")
            }
            entity.keyPathCache.store(wrapped, ref)
            return ref
        }
    }

    static func attributeIndex(_ key: PropertyKey, in entity: EntityDescription) throws(ManagedContextError) -> Int {
        guard case .attribute(let i) = try resolve(key, in: entity) else {
            throw ManagedContextError(.invalidFetchRequest, "\(key) of \(entity.name) is a relationship; compare it with an object")
        }
        return i
    }

    static func resolve<R>(_ node: FetchPredicate<R>.Node, in entity: EntityDescription) throws(ManagedContextError) -> ResolvedPredicate {
        switch node {
        case .constant(let b): return .constant(b)
        case .and(let parts):
            var out: [ResolvedPredicate] = []
            for p in parts { out.append(try resolve(p, in: entity)) }
            return .and(out)
        case .or(let parts):
            var out: [ResolvedPredicate] = []
            for p in parts { out.append(try resolve(p, in: entity)) }
            return .or(out)
        case .not(let p): return .not(try resolve(p, in: entity))
        case .store(let p): return try resolve(p, in: entity)
        case .compare(let key, let op, let value):
            let i = try attributeIndex(key, in: entity)
            try checkType(value, of: entity.attributes[i], in: entity)
            return .compare(i, op, value.nanAsNull)
        case .inList(let key, let values):
            let i = try attributeIndex(key, in: entity)
            for v in values { try checkType(v, of: entity.attributes[i], in: entity) }
            return .inList(i, values.map(\.nanAsNull))
        case .beginsWith(let key, let prefix): return .beginsWith(try attributeIndex(key, in: entity), prefix)
        case .contains(let key, let text): return .contains(try attributeIndex(key, in: entity), text)
        case .toOne(let key, let id, let equal):
            guard case .toOne(let r) = try resolve(key, in: entity) else {
                throw ManagedContextError(.invalidFetchRequest, "\(key) of \(entity.name) is not a to-one relationship")
            }
            return .toOne(entity.relationships[r].toOneIndex, id, equal: equal)
        }
    }

    /// A value compared with an attribute must be of the attribute's kind: SQLite
    /// would convert it by the column's affinity and memory would not, so the two
    /// would disagree. (Key-path predicates are typed and always pass.)
    static func checkType(_ value: StoredValue, of a: AttributeDescription, in entity: EntityDescription) throws(ManagedContextError) {
        let fits: Bool
        switch (a.attributeType, value) {
        case (_, .null): fits = true
        case (.string, .text): fits = true
        case (.integer16, .integer), (.integer32, .integer), (.integer64, .integer), (.boolean, .integer): fits = true
        case (.double, .integer), (.double, .real), (.date, .integer), (.date, .real): fits = true
        case (.binaryData, .blob): fits = true
        default: fits = false
        }
        guard fits else {
            throw ManagedContextError(
                .invalidFetchRequest,
                "\(entity.name).\(a.name) is \(a.attributeType.rawValue), but the predicate compares it with \(value). Compare it with a value of its own type.")
        }
    }

    static func resolve<R>(_ request: FetchRequest<R>, entity: EntityDescription) throws(ManagedContextError) -> ResolvedFetch {
        guard request.fetchLimit >= 0, request.fetchOffset >= 0, request.fetchBatchSize >= 0 else {
            throw ManagedContextError(.invalidFetchRequest, "fetchLimit, fetchOffset and fetchBatchSize must not be negative")
        }
        let predicate = try request.predicate.map { (p) throws(ManagedContextError) in try resolve(p.node, in: entity) } ?? .constant(true)
        var sorts: [ResolvedSort] = []
        for s in request.sortDescriptors {
            if case .name(let name) = s.key, name.contains(".") {
                let path = try resolvePath(name.split(separator: ".").map(String.init), from: entity)
                guard case .attribute(let a) = path.end else {
                    throw ManagedContextError(.invalidFetchRequest, "The sort key '\(name)' of \(entity.name) does not end at an attribute; sort by an attribute, such as '\(name).name'.")
                }
                sorts.append(ResolvedSort(attribute: a.index, ascending: s.ascending, comparator: s.comparator, steps: path.steps))
                continue
            }
            sorts.append(ResolvedSort(attribute: try attributeIndex(s.key, in: entity), ascending: s.ascending, comparator: s.comparator))
        }
        return ResolvedFetch(
            entity: entity, predicate: predicate, sorts: sorts, limit: request.fetchLimit, offset: request.fetchOffset,
            includesSubentities: request.includesSubentities)
    }
}
