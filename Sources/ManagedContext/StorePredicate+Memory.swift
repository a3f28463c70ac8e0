import Foundation

// Core Data's predicate language (StorePredicate.swift) evaluated in memory, over a
// context's unsaved changes.

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
