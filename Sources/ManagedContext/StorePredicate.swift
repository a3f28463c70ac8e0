import Foundation
import Synchronization

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

// MARK: In memory

/// Where in-memory evaluation reads the objects a key path reaches: the evaluating
/// context, which sees its own unsaved changes over its parent's or the store's rows.
protocol RelatedRowSource: AnyObject {
    /// The row of the object `id`, or nil when it does not exist (or is deleted).
    func relatedRow(_ id: ManagedObjectID) -> RowSnapshot?
    /// The rows of `destination` whose to-one `inverse` points to `id`.
    func rowsPointing(to id: ManagedObjectID, through inverse: RelationshipDescription, of destination: EntityDescription) -> [FetchedRow]
}

/// A value met while evaluating: a stored value, an object, or a list of either.
enum EvaluatedValue {
    case value(StoredValue)
    case values([StoredValue])
    case object(ManagedObjectID?)
    case objects([ManagedObjectID])
}

extension ResolvedStorePredicate {
    func evaluate(values: [StoredValue], toOne: [ManagedObjectID?], id: ManagedObjectID?, source: (any RelatedRowSource)?) -> Bool {
        switch self {
        case .quantified(let q, let steps, let r, let inner):
            guard let owner = Self.walk(steps, values: values, toOne: toOne, id: id, source: source)?.id, let source,
                let inverse = r.inverseRelationship, let destination = r.destinationEntity
            else { return q != .any }
            let rows = source.rowsPointing(to: owner, through: inverse, of: destination)
            func holds(_ row: FetchedRow) -> Bool {
                guard let s = row.snapshot else { return false }
                return inner.evaluate(values: s.values, toOne: s.toOne, id: row.id, source: source)
            }
            switch q {
            case .any: return rows.contains(where: holds)
            case .all: return rows.allSatisfy(holds)
            case .none: return !rows.contains(where: holds)
            }
        case .compare(let l, let op, let r, let options):
            let lhs = Self.value(of: l, values: values, toOne: toOne, id: id, source: source)
            let rhs = Self.value(of: r, values: values, toOne: toOne, id: id, source: source)
            return Self.compare(lhs, op, rhs, options)
        }
    }

    private struct Reached {
        let values: [StoredValue]
        let toOne: [ManagedObjectID?]
        let id: ManagedObjectID?
    }

    /// The object `steps` reach from a row, or nil when a step is nil.
    private static func walk(_ steps: [RelationshipDescription], values: [StoredValue], toOne: [ManagedObjectID?], id: ManagedObjectID?, source: (any RelatedRowSource)?) -> Reached? {
        var current = Reached(values: values, toOne: toOne, id: id)
        for step in steps {
            guard let next = current.toOne[step.toOneIndex], let row = source?.relatedRow(next) else { return nil }
            current = Reached(values: row.values, toOne: row.toOne, id: next)
        }
        return current
    }

    private static func value(of o: ResolvedOperand, values: [StoredValue], toOne: [ManagedObjectID?], id: ManagedObjectID?, source: (any RelatedRowSource)?) -> EvaluatedValue {
        switch o {
        case .value(let v): return .value(v)
        case .values(let vs): return .values(vs)
        case .object(let id): return .object(id)
        case .objects(let ids): return .objects(ids)
        case .path(let path):
            let reached = walk(path.steps, values: values, toOne: toOne, id: id, source: source)
            switch path.end {
            case .attribute(let a): return .value(reached?.values[a.index] ?? .null)
            case .toOne(let r): return .object(reached?.toOne[r.toOneIndex] ?? nil)
            case .object: return .object(reached?.id)
            }
        case .count(let steps, let r, let condition):
            guard let owner = walk(steps, values: values, toOne: toOne, id: id, source: source)?.id, let source,
                let inverse = r.inverseRelationship, let destination = r.destinationEntity
            else { return .value(.integer(0)) }
            let rows = source.rowsPointing(to: owner, through: inverse, of: destination)
            guard let condition else { return .value(.integer(Int64(rows.count))) }
            let n = rows.count { row in
                guard let s = row.snapshot else { return false }
                return condition.evaluate(values: s.values, toOne: s.toOne, id: row.id, source: source)
            }
            return .value(.integer(Int64(n)))
        }
    }

    private static func compare(_ lhs: EvaluatedValue, _ op: StoreOperator, _ rhs: EvaluatedValue, _ options: StringComparisonOptions) -> Bool {
        switch (lhs, rhs) {
        case (.object(let a), .object(let b)):
            switch op {
            case .equal: return a == b
            case .notEqual: return a != b
            default: return false
            }
        case (.object(let a), .objects(let list)):
            guard op == .in, let a else { return false }
            return list.contains(a)
        case (.value(let a), .value(let b)):
            return StoreStringFunctions.compare(a, op, b, options)
        case (.value(let a), .values(let list)):
            switch op {
            case .in:
                let a = StoreStringFunctions.fold(a, options)
                return list.contains { StoredValue.sqlEquals(a, StoreStringFunctions.fold($0, options)) }
            case .between:
                guard list.count == 2 else { return false }
                return StoreStringFunctions.compare(a, .greaterOrEqual, list[0], options)
                    && StoreStringFunctions.compare(a, .lessOrEqual, list[1], options)
            default: return false
            }
        default:
            return false
        }
    }
}

/// The string operators and folding, shared by the in-memory evaluation and the
/// functions registered with every store connection, so both give the same answer.
package enum StoreStringFunctions {
    /// A value with `[c]`/`[d]` applied: text folded, anything else as it is.
    package static func fold(_ v: StoredValue, _ options: StringComparisonOptions) -> StoredValue {
        guard !options.isEmpty, case .text(let s) = v else { return v }
        return .text(fold(s, options))
    }

    package static func fold(_ s: String, _ options: StringComparisonOptions) -> String {
        var o: String.CompareOptions = []
        if options.contains(.caseInsensitive) { o.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { o.insert(.diacriticInsensitive) }
        return o.isEmpty ? s : s.folding(options: o, locale: nil)
    }

    /// `a op b` for two values, as SQL compares them after folding (NULL only
    /// equals NULL; an order with NULL is false).
    static func compare(_ a: StoredValue, _ op: StoreOperator, _ b: StoredValue, _ options: StringComparisonOptions) -> Bool {
        if op.isStringOperator {
            guard case .text(let x) = a, case .text(let y) = b else { return false }
            return stringOperator(op, options, x, y)
        }
        let a = fold(a, options), b = fold(b, options)
        switch op {
        case .equal: return a.isNull ? b.isNull : StoredValue.sqlEquals(a, b)
        case .notEqual: return a.isNull ? !b.isNull : (b.isNull || !StoredValue.sqlEquals(a, b))
        default:
            if a.isNull || b.isNull { return false }
            let c = StoredValue.compare(a, b)
            switch op {
            case .less: return c < 0
            case .lessOrEqual: return c <= 0
            case .greater: return c > 0
            case .greaterOrEqual: return c >= 0
            default: return false
            }
        }
    }

    package static func stringOperator(_ op: StoreOperator, _ options: StringComparisonOptions, _ text: String, _ pattern: String) -> Bool {
        switch op {
        case .matches:
            return RegexCache.shared.matches(pattern, text, options)
        case .like:
            return like(Array(fold(text, options).unicodeScalars), Array(fold(pattern, options).unicodeScalars))
        default:
            let x = Array(fold(text, options).utf8), y = Array(fold(pattern, options).utf8)
            switch op {
            case .beginsWith: return x.starts(with: y)
            case .endsWith: return x.count >= y.count && x[(x.count - y.count)...].elementsEqual(y)
            case .contains:
                if y.isEmpty { return true }
                guard y.count <= x.count else { return false }
                for start in 0...(x.count - y.count) where x[start..<(start + y.count)].elementsEqual(y) { return true }
                return false
            default: return false
            }
        }
    }

    /// Core Data's LIKE: `*` matches any run of characters, `?` one character, `\`
    /// escapes the next; the whole text must match.
    package static func like(_ text: [Unicode.Scalar], _ pattern: [Unicode.Scalar]) -> Bool {
        var t = 0, p = 0
        var starP = -1, starT = 0
        while t < text.count {
            if p < pattern.count {
                let c = pattern[p]
                if c == "*" { starP = p; starT = t; p += 1; continue }
                if c == "?" { t += 1; p += 1; continue }
                let literal: Unicode.Scalar
                var width = 1
                if c == "\\", p + 1 < pattern.count { literal = pattern[p + 1]; width = 2 } else { literal = c }
                if literal == text[t] { t += 1; p += width; continue }
            }
            guard starP >= 0 else { return false }
            starT += 1
            t = starT
            p = starP + 1
        }
        while p < pattern.count && pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}

/// Compiled regular expressions for MATCHES, by pattern and options. Guarded by a
/// lock: store connections call it from their own threads.
final class RegexCache: Sendable {
    static let shared = RegexCache()
    /// `@unchecked Sendable`: `NSRegularExpression` is immutable once made and safe
    /// to use from any thread (Foundation documents it as thread-safe).
    private struct Entry: @unchecked Sendable { let regex: NSRegularExpression? }
    private let cache = LockedCache<String, Entry>(limit: 256)

    /// MATCHES: the whole text matches the ICU regular expression `pattern`. An
    /// invalid pattern matches nothing.
    func matches(_ pattern: String, _ text: String, _ options: StringComparisonOptions) -> Bool {
        let key = "\(options.rawValue):\(pattern)"
        let entry = cache.value(for: key) {
            var o: NSRegularExpression.Options = []
            if options.contains(.caseInsensitive) { o.insert(.caseInsensitive) }
            return Entry(regex: try? NSRegularExpression(pattern: "^(?:" + pattern + ")$", options: o))
        }
        guard let regex = entry.regex else { return false }
        let subject = options.contains(.diacriticInsensitive) ? StoreStringFunctions.fold(text, .diacriticInsensitive) : text
        return regex.firstMatch(in: subject, range: NSRange(subject.startIndex..., in: subject)) != nil
    }
}

/// A small bounded cache behind a lock (cleared whole when full).
final class LockedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let storage = Mutex<[Key: Value]>([:])
    private let limit: Int
    init(limit: Int) { self.limit = limit }

    func value(for key: Key, make: () -> Value) -> Value {
        if let found = storage.withLock({ $0[key] }) { return found }
        let made = make()
        storage.withLock {
            if $0.count >= limit { $0.removeAll(keepingCapacity: true) }
            $0[key] = made
        }
        return made
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
