import CtxdebugHelpers
public import Foundation
import GRDB

/// Uniqueness constraints as Core Data's SQLite store keeps them: a unique index per
/// constraint (`Z_<Entity>_UNIQUE_<attributes>`), conflicts found at each save, within
/// the save and against the store's rows, and resolved by the merge policy's type.
extension StoreSchema {
    /// The unique index of each constraint of the model: its name and its SQL. A
    /// subentity's own constraint covers only its rows of the shared table (`Z_ENT`).
    static func uniqueIndexes(of model: ManagedObjectModel, entityNumber: (EntityDescription) -> Int64) -> [(name: String, sql: String)] {
        var indexes: [(String, String)] = []
        for entity in model.entities {
            for names in entity.declaredConstraints {
                let attributes = names.compactMap { entity.attribute(named: $0) }
                guard attributes.count == names.count, !attributes.isEmpty else { continue }
                let name = "Z_\(entity.name)_UNIQUE_\(names.joined(separator: "_"))"
                var sql = "CREATE UNIQUE INDEX IF NOT EXISTS \"\(name)\" ON \(entity.tableName) (\(attributes.map(\.columnName).joined(separator: ", ")))"
                if entity.superentity != nil {
                    sql += " WHERE Z_ENT IN (\(entity.selfAndDescendants.map { String(entityNumber($0)) }.joined(separator: ", ")))"
                }
                indexes.append((name, sql))
            }
        }
        return indexes
    }

    /// Makes each index of the model that the store lacks (a store made before the model
    /// had the constraint or the fetch index). Refused, with nothing changed, when the
    /// store's rows break a constraint: the error names the constraint's index.
    static func addMissingIndexes(_ db: Database, model: ManagedObjectModel, entityNumber: (EntityDescription) -> Int64, path: String) throws {
        for index in modelIndexes(of: model, entityNumber: entityNumber) {
            guard try !db.indexExists(index.name) else { continue }
            do {
                try db.execute(sql: index.sql)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw ManagedContextError(
                    .migrationConstraintViolation,
                    "The model has a uniqueness constraint (\(index.name)) that the store's rows break: two or more rows share its values. Nothing was changed. Remove the duplicate rows with the model that made the store, or drop the constraint.",
                    path: path, cause: error)
            }
        }
    }
}

extension Database {
    fileprivate func indexExists(_ name: String) throws -> Bool {
        try Bool.fetchOne(self, sql: "SELECT COUNT(*) > 0 FROM sqlite_master WHERE type = 'index' AND name = ?", arguments: [name]) ?? false
    }
}

/// One uniqueness-constraint conflict of a save: Core Data's `NSConstraintConflict`. The
/// objects that share the constraint's values (`conflictingObjects`) and, when the store
/// has a row with them, that row (`databaseObject`, `databaseSnapshot`). Read its objects on
/// the saving context's queue.
public struct ConstraintConflict: Sendable, CustomStringConvertible {
    /// The constraint's attribute names.
    public let constraint: [String]
    package let values: [StoredValue]
    /// The store's row with these values, when there is one.
    public let databaseObjectID: ManagedObjectID?
    package let databaseValues: [String: StoredValue]?
    /// The objects of the save with these values.
    public let conflictingObjectIDs: [ManagedObjectID]
    package let conflictingValues: [[String: StoredValue]]
    private(set) var context: ManagedObjectContext?

    package init(
        constraint: [String], values: [StoredValue], databaseObjectID: ManagedObjectID?, databaseValues: [String: StoredValue]?,
        conflictingObjectIDs: [ManagedObjectID], conflictingValues: [[String: StoredValue]]
    ) {
        self.constraint = constraint
        self.values = values
        self.databaseObjectID = databaseObjectID
        self.databaseValues = databaseValues
        self.conflictingObjectIDs = conflictingObjectIDs
        self.conflictingValues = conflictingValues
    }

    func attached(to context: ManagedObjectContext) -> ConstraintConflict {
        var copy = self
        copy.context = context
        return copy
    }

    private var entity: EntityDescription? { (databaseObjectID ?? conflictingObjectIDs.first)?.entity }

    /// Core Data's `constraintValues`: the values the objects share, by attribute.
    public var constraintValues: [String: Any] {
        var result: [String: Any] = [:]
        for (name, value) in zip(constraint, values) {
            result[name] = entity?.attribute(named: name)?.attributeType.swiftValue(value) ?? NSNull()
        }
        return result
    }

    /// Core Data's `databaseObject`: the store's row with these values, in the saving context.
    public var databaseObject: ManagedObject? { databaseObjectID.flatMap { id in context?.object(with: id) } }
    /// Core Data's `databaseSnapshot`.
    public var databaseSnapshot: [String: Any]? { databaseValues.map(snapshot) }
    /// Core Data's `conflictingObjects`.
    public var conflictingObjects: [ManagedObject] {
        guard let context else { return [] }
        return conflictingObjectIDs.map { context.object(with: $0) }
    }
    /// Core Data's `conflictingSnapshots`.
    public var conflictingSnapshots: [[AnyHashable: Any]] { conflictingValues.map { snapshot($0) } }

    private func snapshot(_ values: [String: StoredValue]) -> [String: Any] {
        var result: [String: Any] = [:]
        for (name, value) in values { result[name] = entity?.attribute(named: name)?.attributeType.swiftValue(value) ?? NSNull() }
        return result
    }

    public var description: String {
        let shared = zip(constraint, values).map { "\($0) = \($1)" }.joined(separator: ", ")
        let entityName = entity?.name ?? "?"
        return databaseObjectID.map { "\(entityName) (\(shared)): \(conflictingObjectIDs.count) object(s) of the save and the store's row \($0)" }
            ?? "\(entityName) (\(shared)): \(conflictingObjectIDs.count) objects of the save"
    }
}

/// Where an insert of a save goes when another object already holds its constraint's
/// values: the store's row (the insert becomes an update of it), or an earlier insert of
/// the same save (the two become one row).
enum ConstraintTarget: Sendable {
    case row(RowSnapshot, ManagedObjectID)
    case insert(ManagedObjectID)
}

/// A constraint's values among a save's inserts: the table, the constraint's attribute
/// names and the values (one row of the table may hold them).
struct ConstraintKey: Hashable {
    let table: String
    let names: [String]
    let values: [StoredValue]
}

/// The inserts of a save that merge into another row, found before any is written.
struct ConstraintMerges: Sendable {
    var targets: [ManagedObjectID: ConstraintTarget] = [:]
    var conflicts: [ConstraintConflict] = []
    var isEmpty: Bool { targets.isEmpty }
}

extension SQLiteStore {
    /// Each insert whose constraint values the store's rows, or an earlier insert of the
    /// save, already hold (NULL values never conflict, as in SQLite's unique indexes).
    /// Under the error type, a conflict fails the save (Core Data's 133021).
    func constraintMerges(_ db: Database, _ changes: StoreChanges) throws -> ConstraintMerges {
        var merges = ConstraintMerges()
        guard changes.inserts.contains(where: { !$0.id.entity.uniquenessConstraints.isEmpty }) else { return merges }
        let deleted = Set(changes.deletes.map(\.id))
        var owners: [ConstraintKey: ConstraintTarget] = [:]
        var found: [ConstraintKey: (constraint: [String], values: [StoredValue], row: (RowSnapshot, ManagedObjectID)?, ids: [ManagedObjectID], objects: [[StoredValue]])] = [:]
        var order: [ConstraintKey] = []
        let prefetched = try rowsHoldingSingleAttributeConstraints(db, changes)
        for ins in changes.inserts {
            let entity = ins.id.entity
            for constraint in entity.uniquenessConstraints {
                let values = constraint.map { ins.values[$0] }
                if values.contains(where: \.isNull) { continue }
                let names = constraint.map { entity.attributes[$0].name }
                let key = ConstraintKey(table: entity.tableName, names: names, values: values)
                let target: ConstraintTarget
                if let owner = owners[key] {
                    target = owner
                } else if let row = try constraint.count == 1 ? prefetched[key] : constrainedRow(db, entity, constraint, values), !deleted.contains(row.1) {
                    target = .row(row.0, row.1)
                    owners[key] = target
                    found[key] = (names, values, row, [], [])
                    order.append(key)
                } else {
                    owners[key] = .insert(ins.id)
                    found[key] = (names, values, nil, [ins.id], [ins.values])
                    order.append(key)
                    continue
                }
                merges.targets[ins.id] = merges.targets[ins.id] ?? target
                found[key]?.ids.append(ins.id)
                found[key]?.objects.append(ins.values)
            }
        }
        for key in order {
            guard let f = found[key], f.row != nil || f.ids.count > 1 else { continue }
            merges.conflicts.append(
                ConstraintConflict(
                    constraint: f.constraint, values: f.values, databaseObjectID: f.row?.1,
                    databaseValues: f.row.map { Self.named($0.0.values, $0.1.entity) }, conflictingObjectIDs: f.ids, conflictingValues: zip(f.ids, f.objects).map { Self.named($1, $0.entity) }))
        }
        if !merges.conflicts.isEmpty && changes.mergeType == .errorMergePolicyType {
            throw ManagedContextError.constraintConflict(merges.conflicts, path: url.path)
        }
        return merges
    }

    /// The store's rows that hold the values the save's inserts give a one-attribute
    /// constraint, by key: one query per 500 values rather than one per insert.
    private func rowsHoldingSingleAttributeConstraints(_ db: Database, _ changes: StoreChanges) throws -> [ConstraintKey: (RowSnapshot, ManagedObjectID)] {
        struct Column: Hashable {
            let entity: ObjectIdentifier
            let attribute: Int
        }
        var wanted: [Column: (entity: EntityDescription, attribute: Int, values: Set<StoredValue>)] = [:]
        for ins in changes.inserts {
            let entity = ins.id.entity
            for constraint in entity.uniquenessConstraints where constraint.count == 1 && !ins.values[constraint[0]].isNull {
                wanted[Column(entity: ObjectIdentifier(entity), attribute: constraint[0]), default: (entity, constraint[0], [])].values.insert(ins.values[constraint[0]])
            }
        }
        var rows: [ConstraintKey: (RowSnapshot, ManagedObjectID)] = [:]
        for (entity, attribute, values) in wanted.values {
            let column = entity.attributes[attribute].columnName
            let names = [entity.attributes[attribute].name]
            let all = Array(values)
            for start in stride(from: 0, to: all.count, by: 500) {
                let chunk = all[start..<min(start + 500, all.count)]
                var sql = "SELECT \(selectList(entity)) FROM \(entity.tableName) WHERE \(column) IN (\(Array(repeating: "?", count: chunk.count).joined(separator: ", ")))"
                if entity.sharesTable { sql += " AND Z_ENT = \(entityNumber(entity))" }
                for row in try Row.fetchAll(db, sql: sql, arguments: StatementArguments(chunk.map(\.databaseValue))) {
                    let pk: Int64 = row[0]
                    let snapshot = decodeRow(row, entity: entity)
                    rows[ConstraintKey(table: entity.tableName, names: names, values: [snapshot.values[attribute]])] = (snapshot, ManagedObjectID(entity: entity, store: identity, primaryKey: pk))
                }
            }
        }
        return rows
    }

    /// The row of `entity` (of its own kind: a sibling's row is left to the unique index)
    /// whose `constraint` columns hold `values`.
    private func constrainedRow(_ db: Database, _ entity: EntityDescription, _ constraint: [Int], _ values: [StoredValue]) throws -> (RowSnapshot, ManagedObjectID)? {
        var sql = "SELECT \(selectList(entity)) FROM \(entity.tableName) WHERE "
            + constraint.map { "\(entity.attributes[$0].columnName) = ?" }.joined(separator: " AND ")
        if entity.sharesTable { sql += " AND Z_ENT = \(entityNumber(entity))" }
        // One statement per constraint, prepared once per connection: a save of many
        // constrained inserts asks it once each.
        let statement = try db.cachedStatement(sql: sql + " LIMIT 1")
        guard let row = try Row.fetchOne(statement, arguments: StatementArguments(values.map(\.databaseValue))) else { return nil }
        let pk: Int64 = row[0]
        return (decodeRow(row, entity: entity), ManagedObjectID(entity: entity, store: identity, primaryKey: pk))
    }

    private static func named(_ values: [StoredValue], _ entity: EntityDescription) -> [String: StoredValue] {
        Dictionary(uniqueKeysWithValues: entity.attributes.map { ($0.name, values[$0.index]) })
    }

    /// The values of a row two objects merge into, as the policy's type decides: the
    /// object's (its non-nil values over the row's, or all of them for `overwrite`), or
    /// the row's (store trump and rollback).
    static func merged(_ object: [StoredValue], over row: [StoredValue], _ type: MergePolicyType) -> [StoredValue] {
        switch type {
        case .mergeByPropertyObjectTrumpMergePolicyType: zip(object, row).map { $0.isNull ? $1 : $0 }
        case .overwriteMergePolicyType: object
        default: row
        }
    }

    /// An insert that merges into the store's row: the row updated with the merged
    /// values, the insert given the row's objectID.
    func mergeInsert(_ db: Database, _ ins: StoreChanges.Insert, into row: RowSnapshot, _ id: ManagedObjectID, type: MergePolicyType, result: inout StoreSaveResult) throws {
        let entity = id.entity
        let values = Self.merged(ins.values, over: row.values, type)
        let objectWins = type == .mergeByPropertyObjectTrumpMergePolicyType || type == .overwriteMergePolicyType
        var sets = entity.attributes.map { "\($0.columnName) = ?" }
        var args = entity.attributes.map { values[$0.index].databaseValue }
        var toOne: [ManagedObjectID?] = []
        for r in entity.toOneRelationships {
            let mine = try foreignKey(ins.toOne[r.toOneIndex], from: entity, r, result)
            let fk = objectWins && (mine != nil || type == .overwriteMergePolicyType) ? mine : row.toOne[r.toOneIndex]?.primaryKey
            sets.append("\(r.columnName) = ?")
            args.append(fk?.databaseValue ?? .null)
            toOne.append(fk.map { ManagedObjectID(entity: r.destinationEntity!, store: identity, primaryKey: $0) })
        }
        sets.append("Z_OPT = ?")
        args.append((row.version + 1).databaseValue)
        args.append(id.primaryKey!.databaseValue)
        try db.execute(sql: "UPDATE \(entity.tableName) SET \(sets.joined(separator: ", ")) WHERE Z_PK = ?", arguments: StatementArguments(args))
        result.permanentIDs[ins.id] = id
        result.mergedInto[ins.id] = id
        result.written[ins.id] = RowSnapshot(values: values, toOne: toOne, version: row.version + 1)
    }
}

extension ManagedContextError {
    /// Uniqueness constraints failed under the error type: Core Data's 133021, with each conflict.
    static func constraintConflict(_ conflicts: [ConstraintConflict], path: String?) -> ManagedContextError {
        ManagedContextError(
            .constraintConflict,
            "Save failed: \(conflicts.count) uniqueness constraint conflict(s): objects share the values a constraint makes unique. Set a merge policy that merges them (mergeByPropertyObjectTrump keeps the new values), or change the values.\n  "
                + conflicts.map(\.description).joined(separator: "\n  "),
            path: path, constraintConflicts: conflicts)
    }
}

extension SQLiteStore {
    /// The inserts with each first insert of a set of duplicates holding the values the
    /// set merges to (later objects' values over earlier ones' for the object-trump types;
    /// the first one's for the store-trump ones): what is written for the set's one row.
    func mergingDuplicateInserts(_ inserts: [StoreChanges.Insert], _ merges: ConstraintMerges, type: MergePolicyType) -> [StoreChanges.Insert] {
        var merged: [ManagedObjectID: (values: [StoredValue], toOne: [ManagedObjectID?])] = [:]
        for ins in inserts {
            guard case .insert(let first) = merges.targets[ins.id] else { continue }
            let base = merged[first] ?? inserts.first { $0.id == first }.map { ($0.values, $0.toOne) } ?? (ins.values, ins.toOne)
            let objectWins = type == .mergeByPropertyObjectTrumpMergePolicyType || type == .overwriteMergePolicyType
            merged[first] = (
                Self.merged(ins.values, over: base.values, type),
                objectWins ? zip(ins.toOne, base.toOne).map { type == .overwriteMergePolicyType ? $0 : ($0 ?? $1) } : base.toOne
            )
        }
        guard !merged.isEmpty else { return inserts }
        return inserts.map { ins in
            guard let m = merged[ins.id] else { return ins }
            return StoreChanges.Insert(id: ins.id, values: m.values, toOne: m.toOne)
        }
    }
}
