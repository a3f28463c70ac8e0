import Foundation

// The predicates of Core Data's predicate language that the typed predicates do not
// build: string operators with [c]/[d], ENDSWITH, LIKE, MATCHES, BETWEEN, key paths
// through to-one relationships, and to-many aggregates (@count, ANY/ALL/NONE,
// SUBQUERY). The CoreData module builds them from `NSPredicate(format:)`; like every
// predicate here they compile to SQL with bound parameters and evaluate in memory
// over a context's unsaved changes, with the same results. Package API: only the
// CoreData module builds them (its values are `StoredValue`s).

/// `[c]`, `[d]` and `[cd]`.
package struct StringComparisonOptions: OptionSet, Sendable, Hashable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }
    package static let caseInsensitive = StringComparisonOptions(rawValue: 1)
    package static let diacriticInsensitive = StringComparisonOptions(rawValue: 2)
}

/// The operators of a comparison predicate (Core Data's `NSComparisonPredicate.Operator`).
package enum StoreOperator: Int, Sendable, Hashable {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
    case between, `in`
    case beginsWith, endsWith, contains, like, matches

    var isStringOperator: Bool { rawValue >= StoreOperator.beginsWith.rawValue }
}

/// ANY (SOME), ALL and NONE over a to-many relationship.
package enum StoreQuantifier: Sendable, Hashable {
    case any, all, none
}

/// One side of a comparison, with key paths named as strings from the fetched entity.
package indirect enum StoreOperand: Sendable {
    /// A constant, already in the stored form of the attribute it is compared with.
    case value(StoredValue)
    /// Constants: an `IN` list or `BETWEEN`'s bounds.
    case values([StoredValue])
    /// A managed object (by ID), or nil.
    case object(ManagedObjectID?)
    case objects([ManagedObjectID])
    /// A key path: to-one relationships, then an attribute, a to-one relationship, or
    /// nothing (the object reached itself; `[]` is SELF).
    case keyPath([String])
    /// `path.@count` for a path that ends at a to-many relationship; with a predicate,
    /// `SUBQUERY(path, $x, predicate).@count` (the predicate over the destination).
    case count([String], where: StorePredicate?)
}

/// A predicate of Core Data's language over one entity.
package indirect enum StorePredicate: Sendable {
    case constant(Bool)
    case and([StorePredicate])
    case or([StorePredicate])
    case not(StorePredicate)
    case compare(StoreOperand, StoreOperator, StoreOperand, StringComparisonOptions)
    /// `ANY path op …`: `predicate` over the destination of the to-many relationship
    /// that `path` (to-one steps, then that relationship) reaches.
    case quantified(StoreQuantifier, [String], StorePredicate)
    /// A predicate the typed API builds, carried inside one of these.
    case typed(FetchPredicate<ManagedObject>)
}

extension FetchPredicate {
    /// A predicate of Core Data's predicate language.
    package static func store(_ p: StorePredicate) -> FetchPredicate { FetchPredicate(.store(p)) }
    /// An attribute compared with a constant, as the typed API builds it.
    package static func attribute(_ name: String, _ op: ComparisonOperator, stored: StoredValue) -> FetchPredicate {
        FetchPredicate(.compare(.name(name), op, stored))
    }
    package static func attribute(_ name: String, in values: [StoredValue]) -> FetchPredicate {
        FetchPredicate(.inList(.name(name), values))
    }
    package static func relationship(_ name: String, is id: ManagedObjectID?, equal: Bool) -> FetchPredicate {
        FetchPredicate(.toOne(.name(name), id, equal: equal))
    }
    package static func and(_ parts: [FetchPredicate]) -> FetchPredicate { FetchPredicate(.and(parts.map(\.node))) }
    package static func or(_ parts: [FetchPredicate]) -> FetchPredicate { FetchPredicate(.or(parts.map(\.node))) }
    package static func not(_ p: FetchPredicate) -> FetchPredicate { FetchPredicate(.not(p.node)) }
}

extension AttributeDescription {
    /// The stored value of a Swift value for this attribute (as `setValue(_:forKey:)`
    /// takes it), or nil when it cannot be one.
    package func storedValue(fromSwift value: Any?) -> StoredValue? { attributeType.storedValue(fromSwift: value) }
}

/// How a sort compares strings: byte order (the default), or the comparison a
/// Core Data sort descriptor's selector names.
package enum StringSortComparator: String, Sendable, Hashable {
    case caseInsensitive = "CTXDEBUG_CASEINSENSITIVE"
    case localizedStandard = "CTXDEBUG_LOCALIZEDSTANDARD"

    func compare(_ a: String, _ b: String) -> Int {
        let r: ComparisonResult
        switch self {
        case .caseInsensitive: r = a.caseInsensitiveCompare(b)
        case .localizedStandard: r = a.localizedStandardCompare(b)
        }
        return r == .orderedAscending ? -1 : (r == .orderedSame ? 0 : 1)
    }
}

// MARK: Resolution

/// A key path resolved against an entity: the to-one relationships it crosses, then
/// what it ends at.
struct ResolvedPath: Sendable {
    enum End: Sendable {
        case attribute(AttributeDescription)
        case toOne(RelationshipDescription)
        case object
    }
    let steps: [RelationshipDescription]
    let end: End
}

indirect enum ResolvedOperand: Sendable {
    case value(StoredValue)
    case values([StoredValue])
    case object(ManagedObjectID?)
    case objects([ManagedObjectID])
    case path(ResolvedPath)
    /// The number of objects of the to-many `relationship` of the object `steps` reach
    /// (that match `condition`, over the destination).
    case count(steps: [RelationshipDescription], relationship: RelationshipDescription, condition: ResolvedPredicate?)
}

indirect enum ResolvedStorePredicate: Sendable {
    case compare(ResolvedOperand, StoreOperator, ResolvedOperand, StringComparisonOptions)
    case quantified(StoreQuantifier, steps: [RelationshipDescription], relationship: RelationshipDescription, ResolvedPredicate)
}

extension PredicateResolution {
    static func resolve(_ p: StorePredicate, in entity: EntityDescription) throws(ManagedContextError) -> ResolvedPredicate {
        switch p {
        case .constant(let b): return .constant(b)
        case .and(let parts):
            var out: [ResolvedPredicate] = []
            for part in parts { out.append(try resolve(part, in: entity)) }
            return .and(out)
        case .or(let parts):
            var out: [ResolvedPredicate] = []
            for part in parts { out.append(try resolve(part, in: entity)) }
            return .or(out)
        case .not(let inner): return .not(try resolve(inner, in: entity))
        case .typed(let typed): return try resolve(typed.node, in: entity)
        case .compare(let l, let op, let r, let options):
            let lhs = try resolve(l, in: entity), rhs = try resolve(r, in: entity)
            if case .path(let path) = lhs, case .attribute(let a) = path.end {
                switch rhs {
                case .value(let v): try checkType(v, of: a, in: path.steps.last?.destinationEntity ?? entity)
                case .values(let vs): for v in vs { try checkType(v, of: a, in: path.steps.last?.destinationEntity ?? entity) }
                default: break
                }
            }
            return .store(.compare(lhs, op, rhs, options))
        case .quantified(let q, let names, let inner):
            let (steps, last) = try walk(names, from: entity)
            guard let last, last.isToMany, let destination = last.destinationEntity else {
                throw ManagedContextError(
                    .invalidFetchRequest,
                    "\(quantifierName(q)) needs a to-many relationship, but '\(names.joined(separator: "."))' of \(entity.name) is not one.")
            }
            return .store(.quantified(q, steps: steps, relationship: last, try resolve(inner, in: destination)))
        }
    }

    private static func quantifierName(_ q: StoreQuantifier) -> String {
        switch q {
        case .any: "ANY"
        case .all: "ALL"
        case .none: "NONE"
        }
    }

    /// The to-one relationships `names` crosses from `entity`, and the relationship
    /// it ends at, if its last name is one (to-one or to-many); an attribute name
    /// last is left to the caller.
    private static func walk(_ names: [String], from entity: EntityDescription) throws(ManagedContextError) -> ([RelationshipDescription], RelationshipDescription?) {
        var steps: [RelationshipDescription] = []
        var current = entity
        for (i, name) in names.enumerated() {
            guard let r = current.relationship(named: name) else {
                if i == names.count - 1 && current.attribute(named: name) != nil { return (steps, nil) }
                throw unknownKey(name, of: current, path: names)
            }
            if i == names.count - 1 { return (steps, r) }
            guard !r.isToMany, let next = r.destinationEntity else {
                throw ManagedContextError(
                    .invalidFetchRequest,
                    "The key path '\(names.joined(separator: "."))' of \(entity.name) goes through the to-many relationship '\(name)'; use ANY, ALL, NONE, @count or SUBQUERY for a to-many relationship.")
            }
            steps.append(r)
            current = next
        }
        return (steps, nil)
    }

    private static func unknownKey(_ name: String, of entity: EntityDescription, path: [String]) -> ManagedContextError {
        ManagedContextError(
            .invalidFetchRequest,
            "keypath \(path.joined(separator: ".")) not found in entity \(entity.name): \(entity.name) has no attribute or relationship named '\(name)'.")
    }

    static func resolvePath(_ names: [String], from entity: EntityDescription) throws(ManagedContextError) -> ResolvedPath {
        if names.isEmpty { return ResolvedPath(steps: [], end: .object) }
        let (steps, last) = try walk(names, from: entity)
        if let last {
            guard !last.isToMany else {
                throw ManagedContextError(
                    .invalidFetchRequest,
                    "to-many key not allowed here: '\(names.joined(separator: "."))' of \(entity.name) is a to-many relationship; compare it through ANY, ALL, NONE, @count or SUBQUERY.")
            }
            return ResolvedPath(steps: steps, end: .toOne(last))
        }
        let owner = steps.last?.destinationEntity ?? entity
        guard let a = owner.attribute(named: names[names.count - 1]) else { throw unknownKey(names[names.count - 1], of: owner, path: names) }
        return ResolvedPath(steps: steps, end: .attribute(a))
    }

    private static func resolve(_ o: StoreOperand, in entity: EntityDescription) throws(ManagedContextError) -> ResolvedOperand {
        switch o {
        case .value(let v): return .value(v.nanAsNull)
        case .values(let vs): return .values(vs.map(\.nanAsNull))
        case .object(let id): return .object(id)
        case .objects(let ids): return .objects(ids)
        case .keyPath(let names): return .path(try resolvePath(names, from: entity))
        case .count(let names, let condition):
            let (steps, last) = try walk(names, from: entity)
            guard let last, last.isToMany, let destination = last.destinationEntity else {
                throw ManagedContextError(
                    .invalidFetchRequest,
                    "@count and SUBQUERY need a to-many relationship, but '\(names.joined(separator: "."))' of \(entity.name) is not one.")
            }
            return .count(steps: steps, relationship: last, condition: try condition.map { (c) throws(ManagedContextError) in try resolve(c, in: destination) })
        }
    }
}

extension ManagedObjectContext: RelatedRowSource {}

extension EntityDescription {
    /// The name of the attribute or to-one relationship that `keyPath` reaches, found
    /// as typed predicates find it: by reading it on a recording prototype (an
    /// `@Attribute` accessor, or an accessor that calls `value(forKey:)`); nil when it
    /// reaches neither.
    package func propertyName(reachedBy keyPath: AnyKeyPath) -> String? {
        guard let ref = try? PredicateResolution.resolve(.keyPath(PropertyKeyPath(keyPath)), in: self) else { return nil }
        switch ref {
        case .attribute(let i): return attributes[i].name
        case .toOne(let r): return relationships[r].name
        }
    }
}

/// The values of a fetch's sorts through to-one relationships (`folder.name`), for the
/// rows a context sorts in memory: each related object read once, as the sorting
/// context sees it. Made only when a sort has such a path.
final class RelatedSortKeys {
    private var values: [ManagedObjectID: [StoredValue]] = [:]

    init?(_ rows: [FetchedRow], sorts: [ResolvedSort], source: any RelatedRowSource) {
        guard sorts.contains(where: { !$0.steps.isEmpty }) else { return nil }
        var related: [ManagedObjectID: RowSnapshot?] = [:]
        func row(_ id: ManagedObjectID) -> RowSnapshot? {
            if let known = related[id] { return known }
            let found = source.relatedRow(id)
            related[id] = found
            return found
        }
        for r in rows {
            guard let snapshot = r.snapshot else { continue }
            values[r.id] = sorts.map { s in
                guard !s.steps.isEmpty else { return .null }
                var current: RowSnapshot? = snapshot
                for step in s.steps {
                    guard let next = current?.toOne[step.toOneIndex] else { return .null }
                    current = row(next)
                }
                return current?.values[s.attribute] ?? .null
            }
        }
    }

    func value(_ id: ManagedObjectID, _ sort: Int) -> StoredValue? { values[id]?[sort] }
}
