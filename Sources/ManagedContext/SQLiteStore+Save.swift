import Foundation
import CtxdebugHelpers
import GRDB
import GRDBSQLite

/// Writing: permanent IDs and saves, each in one transaction, with optimistic locking
/// on Z_OPT and the context's merge policy.
extension SQLiteStore {
    /// Reserves primary keys in Z_PRIMARYKEY, for `obtainPermanentIDs(for:)`.
    func reservePrimaryKeys(entity: EntityDescription, count: Int) throws(ManagedContextError) -> [Int64] {
        guard !isReadOnly else {
            throw ManagedContextError(.readOnlyStore, "The store was opened read-only; permanent IDs need a write.", path: url.path)
        }
        do {
            return try DispatchBypass.run { try pool.write { db in
                let first = try nextPrimaryKey(db, entity: entity)
                let keys = (0..<Int64(count)).map { first + $0 }
                try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [first + Int64(count) - 1, entityNumber(entity.rootEntity)])
                return keys
            } }
        } catch {
            throw Self.translate(error, path: url.path, doing: "reserve permanent IDs")
        }
    }

    /// The next free key of `entity`'s table. The entities of an inheritance tree share
    /// their root's table, so they share one sequence, kept in the root's Z_MAX (the
    /// highest Z_MAX of the tree is read, whichever row a store kept it in).
    private func nextPrimaryKey(_ db: Database, entity: EntityDescription) throws -> Int64 {
        let tree = entity.rootEntity.selfAndDescendants
        let zmax: Int64
        if tree.count == 1 {
            zmax = try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [entityNumber(entity)]) ?? 0
        } else {
            let numbers = tree.map { String(entityNumber($0)) }.joined(separator: ", ")
            zmax = try Int64.fetchOne(db, sql: "SELECT MAX(Z_MAX) FROM Z_PRIMARYKEY WHERE Z_ENT IN (\(numbers))") ?? 0
        }
        let maxPK = try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM \(entity.tableName)") ?? 0
        return max(zmax, maxPK) + 1
    }

    /// Applies one save in one transaction. Throws, with nothing written, on a
    /// conflict under the `error` policy or on any SQLite failure.
    func save(_ changes: StoreChanges) throws(ManagedContextError) -> StoreSaveResult {
        guard !isReadOnly else {
            throw ManagedContextError(.readOnlyStore, "The store was opened read-only, so the save was refused. The context keeps its changes.", path: url.path)
        }
        do {
            let result = try DispatchBypass.run { try pool.write { db in try applySave(db, changes) } }
            if let number = result.historyTransaction { changes.history?.committed(number) }
            return result
        } catch {
            throw Self.translate(error, path: url.path, doing: "save")
        }
    }

    /// The rows of this save whose version in the store is not the one their
    /// context loaded (optimistic locking), by objectID: the store's row, or nil
    /// when it is gone.
    private typealias StoreRows = [ManagedObjectID: RowSnapshot?]

    private func applySave(_ db: Database, _ changes: StoreChanges) throws -> StoreSaveResult {
        var result = StoreSaveResult()
        let storeRows = try checkVersions(db, changes)
        var insertStatements: [Int: Statement] = [:]
        if let maxKeys = try insertsIfNoneConflict(db, changes, statements: &insertStatements, into: &result) {
            return try applyRest(db, changes, storeRows, maxKeys, into: result)
        }
        let merges = try constraintMerges(db, changes)
        let inserts = merges.isEmpty ? changes.inserts : mergingDuplicateInserts(changes.inserts, merges, type: changes.mergeType)
        let maxKeys = try assignPrimaryKeys(db, inserts.filter { merges.targets[$0.id] == nil }, into: &result)
        // A merged insert's key is its row's, known before any row is written (another
        // insert's to-one may point to it).
        for (id, target) in merges.targets {
            switch target {
            case .row(_, let rowID): result.permanentIDs[id] = rowID
            case .insert(let first): result.permanentIDs[id] = result.permanentIDs[first]
            }
        }
        for insert in inserts {
            switch merges.targets[insert.id] {
            case nil: try insertRow(db, insert, statements: &insertStatements, into: &result)
            case .row(let row, let id): try mergeInsert(db, insert, into: row, id, type: changes.mergeType, result: &result)
            case .insert(let first):
                // Written as the first insert's row (merged values), which comes before it.
                result.permanentIDs[insert.id] = result.permanentIDs[first]
                result.mergedInto[insert.id] = result.permanentIDs[first]
                result.written[insert.id] = result.written[first]
            }
        }
        return try applyRest(db, changes, storeRows, maxKeys, into: result)
    }

    /// A save whose constrained inserts all go into tables of their own (no inheritance
    /// tree) tries its inserts first as they are, under a savepoint: each constraint's
    /// unique index, over the whole table, then finds any conflict `constraintMerges` would
    /// find (with the store's rows, or among the inserts), at no cost of its own. Returns the
    /// highest keys used, with the inserts written; or nil, with nothing written, when an
    /// insert failed a constraint (then the conflicts are looked for first, and the merge
    /// policy resolves them) or the save has no constrained insert.
    private func insertsIfNoneConflict(
        _ db: Database, _ changes: StoreChanges, statements: inout [Int: Statement], into result: inout StoreSaveResult
    ) throws -> [Int: Int64]? {
        let constrained = changes.inserts.lazy.map(\.id.entity).filter { !$0.uniquenessConstraints.isEmpty }
        guard !constrained.isEmpty, !constrained.contains(where: \.sharesTable) else { return nil }
        var attempt = result
        let maxKeys: [Int: Int64]
        try db.execute(sql: "SAVEPOINT ctxdebug_inserts")
        do {
            maxKeys = try assignPrimaryKeys(db, changes.inserts, into: &attempt)
            for insert in changes.inserts { try insertRow(db, insert, statements: &statements, into: &attempt) }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            // The failed INSERT is reset first: a statement left running keeps the rollback
            // from undoing the rows written before it (and GRDB's savepoint would hide that).
            for statement in statements.values { sqlite3_reset(statement.sqliteStatement) }
            try db.execute(sql: "ROLLBACK TRANSACTION TO SAVEPOINT ctxdebug_inserts")
            try db.execute(sql: "RELEASE SAVEPOINT ctxdebug_inserts")
            return nil
        }
        try db.execute(sql: "RELEASE SAVEPOINT ctxdebug_inserts")
        result = attempt
        return maxKeys
    }

    /// A save's updates, deletions, links, keys and history, once its inserts are written.
    private func applyRest(_ db: Database, _ changes: StoreChanges, _ storeRows: StoreRows, _ maxKeys: [Int: Int64], into saved: StoreSaveResult) throws -> StoreSaveResult {
        var result = saved
        // Derived attributes (Core Data's NSDerivedAttributeDescription): a model without
        // any pays this one branch.
        let derivation = model.hasDerivedAttributes ? try DerivedAttributeUpdate(db, changes, store: self) : nil
        for update in changes.updates {
            try updateRow(db, update, conflicting: storeRows, policy: changes.mergeType, into: &result)
        }
        if !changes.links.isEmpty || changes.deletes.contains(where: { $0.id.entity.relationships.contains { $0.join != nil } }) {
            try applyJoinChanges(db, changes, result)
        }
        for delete in changes.deletes {
            guard let pk = delete.id.primaryKey else { continue }
            if let store = storeRows[delete.id], changes.mergeType == .rollbackMergePolicyType {
                result.discarded[delete.id] = store
                continue
            }
            let preserved = delete.id.entity.tombstoneAttributes
            if changes.history != nil, !preserved.isEmpty, let row = try currentRow(db, entity: delete.id.entity, pk: pk) {
                result.tombstones[delete.id] = preserved.map { row.values[$0] }
            }
            try db.execute(sql: "DELETE FROM \(delete.id.entity.tableName) WHERE Z_PK = ?", arguments: [pk])
        }
        if let derivation { try derivation.apply(db, changes, into: &result) }
        for (index, key) in maxKeys {
            let entity = model.entities[index]
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = MAX(IFNULL(Z_MAX, 0), ?) WHERE Z_ENT = ?", arguments: [key, entityNumber(entity)])
        }
        if let history = changes.history { result.historyTransaction = try recordHistory(db, changes, result, history) }
        return result
    }

    /// Compares each loaded version with the store's. Throws under the `error`
    /// policy when any differ; returns the differing rows otherwise.
    private func checkVersions(_ db: Database, _ changes: StoreChanges) throws -> StoreRows {
        var conflicts: [MergeConflict] = []
        var storeRows: StoreRows = [:]
        for u in changes.updates {
            guard let expected = u.snapshot?.version, expected > 0, let pk = u.id.primaryKey else { continue }
            let current = try currentRow(db, entity: u.id.entity, pk: pk)
            if current?.version != expected {
                storeRows[u.id] = .some(current)
                conflicts.append(conflict(u.id, expected: expected, current: current, objectValues: u.values))
            }
        }
        for d in changes.deletes where d.expectedVersion > 0 {
            guard let pk = d.id.primaryKey else { continue }
            let current = try currentRow(db, entity: d.id.entity, pk: pk)
            if let current, current.version != d.expectedVersion {
                storeRows[d.id] = .some(current)
                conflicts.append(conflict(d.id, expected: d.expectedVersion, current: current, objectValues: []))
            }
        }
        if !conflicts.isEmpty && changes.mergeType == .errorMergePolicyType {
            throw ManagedContextError.mergeConflict(conflicts, path: url.path)
        }
        return storeRows
    }

    /// Gives each inserted object its permanent key (its own, when it already has
    /// one); returns the highest key used per entity index, for Z_PRIMARYKEY.
    private func assignPrimaryKeys(_ db: Database, _ inserts: [StoreChanges.Insert], into result: inout StoreSaveResult) throws -> [Int: Int64] {
        var nextKey: [Int: Int64] = [:]
        var maxKey: [Int: Int64] = [:]
        result.permanentIDs.reserveCapacity(result.permanentIDs.count + inserts.count)
        for ins in inserts {
            let entity = ins.id.entity
            // One sequence per table: an inheritance tree's entities share their root's.
            let sequence = entity.rootEntity.index
            let pk: Int64
            if let existing = ins.id.primaryKey {
                pk = existing
            } else {
                if nextKey[sequence] == nil { nextKey[sequence] = try nextPrimaryKey(db, entity: entity) }
                pk = nextKey[sequence]!
                nextKey[sequence] = pk + 1
            }
            maxKey[sequence] = max(maxKey[sequence] ?? 0, pk)
            result.permanentIDs[ins.id] = ManagedObjectID(entity: entity, store: identity, primaryKey: pk)
        }
        return maxKey
    }

    /// The primary key a to-one relationship stores for `id`: its own, or the one
    /// this save gave it.
    func foreignKey(_ id: ManagedObjectID?, from entity: EntityDescription, _ r: RelationshipDescription, _ result: StoreSaveResult) throws -> Int64? {
        guard let id else { return nil }
        if let pk = id.primaryKey { return pk }
        if let permanent = result.permanentIDs[id] { return permanent.primaryKey }
        throw ManagedContextError(.saveFailed, "\(entity.name).\(r.name) points to \(id), an object that is not saved in this save or before (is it in another context?). Save the destination first, in the same context.", path: url.path)
    }

    /// The INSERT of `entity`'s rows: built once per entity and save, prepared once per
    /// connection (a save of many inserts parses it once, not once per row).
    private func insertStatement(_ db: Database, _ entity: EntityDescription, _ statements: inout [Int: Statement]) throws -> Statement {
        if let made = statements[entity.index] { return made }
        let columns = ["Z_PK", "Z_ENT", "Z_OPT"] + entity.attributes.map(\.columnName) + entity.toOneRelationships.map(\.columnName)
        let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        let statement = try db.cachedStatement(sql: "INSERT INTO \(entity.tableName) (\(columns.joined(separator: ", "))) VALUES (\(marks))")
        statements[entity.index] = statement
        return statement
    }

    private func insertRow(_ db: Database, _ ins: StoreChanges.Insert, statements: inout [Int: Statement], into result: inout StoreSaveResult) throws {
        let entity = ins.id.entity
        let permanent = result.permanentIDs[ins.id]!
        let attributes = entity.attributes, relationships = entity.toOneRelationships
        var args: [DatabaseValue] = []
        args.reserveCapacity(3 + attributes.count + relationships.count)
        args.append(permanent.key.databaseValue)
        args.append(entityNumber(entity).databaseValue)
        args.append(1.databaseValue)
        for a in attributes { args.append(ins.values[a.index].databaseValue) }
        var toOne: [ManagedObjectID?] = []
        if !relationships.isEmpty {
            toOne.reserveCapacity(relationships.count)
            for r in relationships {
                let fk = try foreignKey(ins.toOne[r.toOneIndex], from: entity, r, result)
                args.append(fk?.databaseValue ?? .null)
                toOne.append(fk.map { ManagedObjectID(entity: r.destinationEntity!, store: identity, primaryKey: $0) })
            }
        }
        try insertStatement(db, entity, &statements).execute(arguments: StatementArguments(args))
        result.written[ins.id] = RowSnapshot(values: ins.values, toOne: toOne, version: 1)
    }

    /// What an update writes: the values and the properties to set.
    private struct UpdateRow {
        var values: [StoredValue]
        var toOne: [ManagedObjectID?]
        var attributeMask: ChangeMask
        var toOneMask: ChangeMask
        var baseVersion: Int64
    }

    private func updateRow(
        _ db: Database, _ u: StoreChanges.Update, conflicting storeRows: StoreRows, policy: MergePolicyType,
        into result: inout StoreSaveResult
    ) throws {
        guard let pk = u.id.primaryKey else { return }
        let entity = u.id.entity
        var row = UpdateRow(
            values: u.values, toOne: u.toOne, attributeMask: u.changedAttributes, toOneMask: u.changedToOne,
            baseVersion: u.snapshot?.version ?? 0)
        if storeRows.keys.contains(u.id) {
            guard let store = storeRows[u.id] ?? nil else {
                // The row is gone: nothing to update under any non-error policy.
                result.discarded[u.id] = .some(nil)
                return
            }
            guard resolveConflict(u, store: store, policy: policy, row: &row, result: &result) else { return }
        } else if row.baseVersion == 0 {
            row.baseVersion = try currentRow(db, entity: entity, pk: pk)?.version ?? 0
        }
        var sets: [String] = []
        var args: [DatabaseValue] = []
        for a in entity.attributes where row.attributeMask.contains(a.index) {
            sets.append("\(a.columnName) = ?")
            args.append(row.values[a.index].databaseValue)
        }
        var resolvedToOne: [ManagedObjectID?] = []
        for r in entity.toOneRelationships {
            let fk = try foreignKey(row.toOne[r.toOneIndex], from: entity, r, result)
            resolvedToOne.append(fk.map { ManagedObjectID(entity: r.destinationEntity!, store: identity, primaryKey: $0) })
            if row.toOneMask.contains(r.toOneIndex) {
                sets.append("\(r.columnName) = ?")
                args.append(fk?.databaseValue ?? .null)
            }
        }
        let newVersion = row.baseVersion + 1
        sets.append("Z_OPT = ?")
        args.append(newVersion.databaseValue)
        args.append(pk.databaseValue)
        // The same columns for most updates of a save: prepared once per connection.
        try db.cachedStatement(sql: "UPDATE \(entity.tableName) SET \(sets.joined(separator: ", ")) WHERE Z_PK = ?").execute(arguments: StatementArguments(args))
        if db.changesCount == 0 {
            result.discarded[u.id] = .some(nil)
            return
        }
        result.written[u.id] = RowSnapshot(values: row.values, toOne: resolvedToOne, version: newVersion)
    }

    /// Applies the merge policy to an update whose row changed in the store since
    /// it was loaded. Returns false when the update is dropped (rollback).
    private func resolveConflict(
        _ u: StoreChanges.Update, store: RowSnapshot, policy: MergePolicyType, row: inout UpdateRow, result: inout StoreSaveResult
    ) -> Bool {
        let entity = u.id.entity
        row.baseVersion = store.version
        func differs(_ a: StoredValue, _ b: StoredValue) -> Bool { StoredValue.compare(a, b) != 0 }
        switch policy {
        case .rollbackMergePolicyType:
            result.discarded[u.id] = store
            return false
        case .overwriteMergePolicyType:
            if let loaded = u.snapshot {
                let overwritten = entity.attributes.filter {
                    differs(loaded.values[$0.index], store.values[$0.index]) && differs(row.values[$0.index], store.values[$0.index])
                }
                if !overwritten.isEmpty { result.lostUpdates.append(LostUpdate(id: u.id, attributes: overwritten.map(\.name), fromVersion: loaded.version)) }
            }
        case .mergeByPropertyStoreTrumpMergePolicyType, .mergeByPropertyObjectTrumpMergePolicyType, .errorMergePolicyType:
            let objectWins = policy == .mergeByPropertyObjectTrumpMergePolicyType
            let loaded = u.snapshot
            if objectWins, let loaded {
                let overwritten = entity.attributes.filter {
                    u.changedAttributes.contains($0.index) && differs(loaded.values[$0.index], store.values[$0.index])
                        && differs(u.values[$0.index], store.values[$0.index])
                }
                if !overwritten.isEmpty { result.lostUpdates.append(LostUpdate(id: u.id, attributes: overwritten.map(\.name), fromVersion: loaded.version)) }
            }
            for a in entity.attributes {
                let mine = u.changedAttributes.contains(a.index)
                let theirs = loaded.map { differs($0.values[a.index], store.values[a.index]) } ?? true
                if !mine || (theirs && !objectWins) { row.values[a.index] = store.values[a.index] }
            }
            for r in entity.toOneRelationships {
                let mine = u.changedToOne.contains(r.toOneIndex)
                let theirs = loaded.map { $0.toOne[r.toOneIndex] != store.toOne[r.toOneIndex] } ?? true
                if !mine || (theirs && !objectWins) { row.toOne[r.toOneIndex] = store.toOne[r.toOneIndex] }
            }
        }
        row.attributeMask = .all(entity.attributes.count)
        row.toOneMask = .all(entity.toOneRelationships.count)
        return true
    }

    private func currentRow(_ db: Database, entity: EntityDescription, pk: Int64) throws -> RowSnapshot? {
        try Row.fetchOne(db, sql: "SELECT \(selectList(entity)) FROM \(entity.tableName) WHERE Z_PK = ?", arguments: [pk])
            .map { decodeRow($0, entity: entity) }
    }

    private func conflict(_ id: ManagedObjectID, expected: Int64, current: RowSnapshot?, objectValues: [StoredValue]) -> MergeConflict {
        let attrs = id.entity.attributes
        return MergeConflict(
            objectID: id, oldVersion: expected, newVersion: current?.version ?? 0,
            storeValues: current.map { c in Dictionary(uniqueKeysWithValues: attrs.map { ($0.name, c.values[$0.index]) }) } ?? [:],
            objectValues: objectValues.isEmpty ? [:] : Dictionary(uniqueKeysWithValues: attrs.map { ($0.name, objectValues[$0.index]) }))
    }
}
