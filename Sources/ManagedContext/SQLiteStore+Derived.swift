import Foundation
import GRDB

/// How the store computes a derived attribute (Core Data's `NSDerivedAttributeDescription`):
/// what its value comes from, and the function applied to it. Core Data's SQLite store
/// keeps derived columns with triggers that run when a row is written; this store
/// recomputes them in the save's transaction (`DerivedAttributeUpdate`).
package struct Derivation: Sendable, Hashable {
    /// The string functions Core Data's derivations take (`lowercase:(name)`).
    package enum Function: String, Sendable, Hashable {
        case none, lowercase, uppercase, canonical
    }

    /// The aggregates of a to-many relationship (`notes.@count`, `notes.@sum.amount`).
    package enum Aggregate: String, Sendable, Hashable {
        case count, sum, min, max, avg
    }

    package enum Source: Sendable, Hashable {
        /// To-one relationships then an attribute: `name`, `folder.name`.
        case keyPath([String])
        /// An aggregate of the entity's to-many relationship (of its destination's
        /// attribute; nil for `@count`).
        case aggregate(Aggregate, relationship: String, attribute: String?)
        /// `now()`: the time of the save.
        case now
    }

    package var source: Source
    package var function: Function
    /// The expression as written, for messages.
    package var text: String

    package init(source: Source, function: Function = .none, text: String) {
        self.source = source
        self.function = function
        self.text = text
    }
}

/// A derived value the save computed: what the context shows after the save, as Core
/// Data's objects show the store's recomputed value after a save (iOS 14 and later).
struct DerivedValue: Sendable {
    let index: Int
    let value: StoredValue
}

/// The derivation of one save, in its transaction: which rows each derived attribute is
/// recomputed for, then the values, written to their columns and handed back. Rows
/// recomputed: the save's inserted and updated rows of the entity; for a key path
/// through a to-one relationship, the rows whose destination the save wrote; for an
/// aggregate, the rows whose to-many relationship gained, lost or changed a member
/// (before and after the save), as Core Data's triggers on the destination's table do.
struct DerivedAttributeUpdate {
    private struct Target: Hashable {
        let entity: Int
        let attribute: Int
    }

    private let store: SQLiteStore
    /// Rows to recompute found before the save's updates and deletions ran: the owners
    /// an aggregated row belonged to.
    private var before: [Target: Set<Int64>] = [:]

    /// Reads, before the save's updates and deletions, which rows their aggregates lose.
    init(_ db: Database, _ changes: StoreChanges, store: SQLiteStore) throws {
        self.store = store
        for entity in store.model.entities {
            for a in entity.attributes {
                guard case .aggregate(_, let name, _)? = a.derivation?.source, let r = entity.relationship(named: name),
                    let destination = r.destinationEntity, let inverse = r.inverseRelationship, !inverse.isToMany
                else { continue }
                let keys = (changes.updates.map(\.id) + changes.deletes.map(\.id)).compactMap { id in
                    id.entity.isKind(of: destination) ? id.primaryKey : nil
                }
                guard !keys.isEmpty else { continue }
                let owners = try Int64.fetchAll(
                    db, sql: "SELECT \(inverse.columnName) FROM \(destination.tableName) WHERE Z_PK IN (\(Self.list(keys))) AND \(inverse.columnName) IS NOT NULL")
                before[Target(entity: entity.index, attribute: a.index), default: []].formUnion(owners)
            }
        }
    }

    /// Recomputes the derived columns of the save's rows and of the rows that depend on
    /// them; the values go into `result` (`derived`, and the rows `written`).
    func apply(_ db: Database, _ changes: StoreChanges, into result: inout StoreSaveResult) throws {
        // The save's rows by entity: their primary keys and the keys of `written`.
        var saved: [Int: [Int64: ManagedObjectID]] = [:]
        for i in changes.inserts {
            guard let permanent = result.permanentIDs[i.id], result.mergedInto[i.id] == nil, let pk = permanent.primaryKey else { continue }
            saved[i.id.entity.index, default: [:]][pk] = i.id
        }
        for u in changes.updates where result.written[u.id] != nil {
            if let pk = u.id.primaryKey { saved[u.id.entity.index, default: [:]][pk] = u.id }
        }
        let now = StoredValue.real(Date().timeIntervalSinceReferenceDate)
        for entity in store.model.entities {
            let own = saved[entity.index] ?? [:]
            for a in entity.attributes {
                guard let derivation = a.derivation else { continue }
                var keys = Set(own.keys)
                try addDependents(db, of: derivation, entity, a, saved: saved, result, to: &keys)
                guard !keys.isEmpty else { continue }
                var values: [(Int64, StoredValue)] = []
                if case .now = derivation.source {
                    values = keys.map { ($0, now) }  // only the entity's own rows: a now() has no dependents
                } else {
                    // In a table an inheritance tree shares, each entity computes its own rows.
                    let kind = entity.sharesTable ? " AND t0.Z_ENT = \(store.entityNumber(entity))" : ""
                    let sql = "SELECT t0.Z_PK, \(try expression(derivation.source, of: entity)) FROM \(entity.tableName) t0 WHERE t0.Z_PK IN (\(Self.list(keys)))\(kind)"
                    for row in try Row.fetchAll(db, sql: sql) {
                        let value = Self.applying(derivation.function, to: StoredValue(row[1] as DatabaseValue))
                        values.append((row[0], Self.converted(value, to: a.attributeType)))
                    }
                }
                let update = try db.cachedStatement(sql: "UPDATE \(entity.tableName) SET \(a.columnName) = ? WHERE Z_PK = ?")
                for (pk, value) in values {
                    try update.execute(arguments: [value.databaseValue, pk])
                    let id = ManagedObjectID(entity: entity, store: store.identity, primaryKey: pk)
                    result.derived[id, default: []].append(DerivedValue(index: a.index, value: value))
                    if let key = own[pk], result.written[key] != nil { result.written[key]!.values[a.index] = value }
                }
            }
        }
    }

    /// The rows of `entity` whose derived attribute `a` depends on a row the save wrote.
    private func addDependents(
        _ db: Database, of derivation: Derivation, _ entity: EntityDescription, _ a: AttributeDescription, saved: [Int: [Int64: ManagedObjectID]],
        _ result: StoreSaveResult, to keys: inout Set<Int64>
    ) throws {
        func savedKeys(ofKind destination: EntityDescription) -> [Int64] {
            destination.selfAndDescendants.flatMap { (saved[$0.index] ?? [:]).keys }
        }
        switch derivation.source {
        case .now: return
        case .keyPath(let path):
            // A copy through a to-one relationship follows its destination's writes.
            guard path.count > 1, let r = entity.relationship(named: path[0]), let destination = r.destinationEntity else { return }
            let written = savedKeys(ofKind: destination)
            guard !written.isEmpty else { return }
            keys.formUnion(
                try Int64.fetchAll(db, sql: "SELECT Z_PK FROM \(entity.tableName) WHERE \(r.columnName) IN (\(Self.list(written)))"))
        case .aggregate(_, let name, _):
            keys.formUnion(before[Target(entity: entity.index, attribute: a.index)] ?? [])
            guard let r = entity.relationship(named: name), let destination = r.destinationEntity, let inverse = r.inverseRelationship else { return }
            for d in destination.selfAndDescendants {
                for (_, key) in saved[d.index] ?? [:] {
                    if let owner = result.written[key]?.toOne[inverse.toOneIndex]?.primaryKey { keys.insert(owner) }
                }
            }
        }
    }

    /// The SQL of a derivation's source, from the row `t0` of `entity`.
    private func expression(_ source: Derivation.Source, of entity: EntityDescription) throws -> String {
        switch source {
        case .now: return "NULL"
        case .keyPath(let path): return try Self.keyPath(path[...], from: entity, alias: "t0", depth: 1)
        case .aggregate(let aggregate, let name, let attribute):
            guard let r = entity.relationship(named: name), let destination = r.destinationEntity, let inverse = r.inverseRelationship else {
                throw ManagedContextError(.saveFailed, "\(entity.name).\(name) is not a to-many relationship with an inverse.")
            }
            let from = "FROM \(destination.tableName) a WHERE a.\(inverse.columnName) = t0.Z_PK"
            guard let attribute else { return "(SELECT COUNT(*) \(from))" }
            guard let column = destination.attribute(named: attribute)?.columnName else {
                throw ManagedContextError(.saveFailed, "\(destination.name) has no attribute \(attribute).")
            }
            switch aggregate {
            case .count: return "(SELECT COUNT(a.\(column)) \(from))"
            case .sum: return "(SELECT IFNULL(SUM(a.\(column)), 0) \(from))"
            case .min: return "(SELECT MIN(a.\(column)) \(from))"
            case .max: return "(SELECT MAX(a.\(column)) \(from))"
            case .avg: return "(SELECT AVG(a.\(column)) \(from))"
            }
        }
    }

    private static func keyPath(_ path: ArraySlice<String>, from entity: EntityDescription, alias: String, depth: Int) throws -> String {
        guard let first = path.first else { return "NULL" }
        if path.count == 1 {
            guard let column = entity.attribute(named: first)?.columnName else {
                throw ManagedContextError(.saveFailed, "\(entity.name) has no attribute \(first).")
            }
            return "\(alias).\(column)"
        }
        guard let r = entity.relationship(named: first), !r.isToMany, let destination = r.destinationEntity else {
            throw ManagedContextError(.saveFailed, "\(entity.name).\(first) is not a to-one relationship.")
        }
        let next = "t\(depth)"
        let inner = try keyPath(path.dropFirst(), from: destination, alias: next, depth: depth + 1)
        return "(SELECT \(inner) FROM \(destination.tableName) \(next) WHERE \(next).Z_PK = \(alias).\(r.columnName))"
    }

    private static func list<S: Sequence<Int64>>(_ keys: S) -> String { keys.map(String.init).joined(separator: ", ") }

    /// `lowercase:`, `uppercase:` and `canonical:` (Core Data: "returns a case- and
    /// diacritic-insensitive String value") of a text value; others as they are.
    static func applying(_ function: Derivation.Function, to value: StoredValue) -> StoredValue {
        guard function != .none, case .text(let s) = value else { return value }
        switch function {
        case .none: return value
        case .lowercase: return .text(s.lowercased())
        case .uppercase: return .text(s.uppercased())
        case .canonical: return .text(s.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased())
        }
    }

    /// A computed value in the attribute's storage (a sum kept in an integer attribute,
    /// a count in a double one).
    static func converted(_ value: StoredValue, to type: AttributeType) -> StoredValue {
        switch (type, value) {
        case (.integer16, .real(let d)), (.integer32, .real(let d)), (.integer64, .real(let d)), (.boolean, .real(let d)):
            return Int64(exactly: d.rounded(.towardZero)).map { .integer($0) } ?? value
        case (.double, .integer(let i)), (.date, .integer(let i)): return .real(Double(i))
        case (.string, .integer(let i)): return .text(String(i))
        case (.string, .real(let d)): return .text(String(d))
        default: return value
        }
    }
}
