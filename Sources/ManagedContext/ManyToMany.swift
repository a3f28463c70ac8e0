import Foundation
import CtxdebugHelpers
import GRDB

/// A many-to-many relationship's join table, as Core Data's SQLite store names it: the
/// table `Z_<n><NAME>` after the relationship of the side whose entity has the lower
/// number (`n`), with one column per side, `Z_<n><INVERSE NAME>` holding that side's
/// `Z_PK` (`Z_1SONGS (Z_1COLLECTIONS, Z_4SONGS)` for Collection 1's `songs` and Song 4's
/// `collections`), a primary key on both, and an index on the second then the first.
package struct JoinTable: Sendable, Hashable {
    package let name: String
    package let firstColumn: String
    package let secondColumn: String

    var createSQL: [String] {
        [
            "CREATE TABLE \(name) ( \(firstColumn) INTEGER, \(secondColumn) INTEGER, PRIMARY KEY (\(firstColumn), \(secondColumn)) )",
            "CREATE INDEX \(name)_\(secondColumn)_INDEX ON \(name) (\(secondColumn), \(firstColumn))",
        ]
    }
}

/// One side of a many-to-many relationship: its join table, and which column holds the
/// relationship's owner.
package struct JoinSide: Sendable {
    package let table: JoinTable
    package let ownerIsFirst: Bool
    package var ownerColumn: String { ownerIsFirst ? table.firstColumn : table.secondColumn }
    package var otherColumn: String { ownerIsFirst ? table.secondColumn : table.firstColumn }
}

/// A link between two objects in a join table (first column's object, second's).
struct JoinPair: Hashable, Sendable {
    let table: String
    let first: ManagedObjectID
    let second: ManagedObjectID

    init(table: String, first: ManagedObjectID, second: ManagedObjectID) {
        self.table = table
        self.first = first
        self.second = second
    }

    init(_ side: JoinSide, owner: ManagedObjectID, other: ManagedObjectID) {
        table = side.table.name
        first = side.ownerIsFirst ? owner : other
        second = side.ownerIsFirst ? other : owner
    }

    func other(of side: JoinSide, owner: ManagedObjectID) -> ManagedObjectID? {
        guard table == side.table.name else { return nil }
        if side.ownerIsFirst { return first == owner ? second : nil }
        return second == owner ? first : nil
    }
}

/// A context's unsaved many-to-many changes: each link added (true) or removed (false).
struct JoinChanges: Sendable {
    var links: [JoinPair: Bool] = [:]
    var isEmpty: Bool { links.isEmpty }
}

extension EntityTree {
    /// Names each many-to-many relationship's join table from the entity numbers (the
    /// entity that declares each side: a subentity inherits its parent's).
    /// The entity that declares `r` (of `entity`): the topmost ancestor that has it.
    static func declaring(_ r: RelationshipDescription, on entity: EntityDescription) -> EntityDescription {
        var owner = entity
        while let parent = owner.superentity, parent.relationship(named: r.name) != nil { owner = parent }
        return owner
    }

    static func assignJoinTables(_ entities: [EntityDescription]) {
        for entity in entities {
            for r in entity.relationships where r.isToMany {
                guard let inverse = r.inverseRelationship, inverse.isToMany, let destination = r.destinationEntity else { continue }
                let a = declaring(r, on: entity), b = declaring(inverse, on: destination)
                let (na, nb) = (a.index + 1, b.index + 1)
                let ownerFirst = (na, r.name) < (nb, inverse.name)
                let first = ownerFirst ? (n: na, name: r.name, inverse: inverse.name) : (n: nb, name: inverse.name, inverse: r.name)
                let second = ownerFirst ? (n: nb, inverse: r.name) : (n: na, inverse: inverse.name)
                let table = JoinTable(
                    name: "Z_\(first.n)\(first.name.uppercased())", firstColumn: "Z_\(first.n)\(first.inverse.uppercased())",
                    secondColumn: "Z_\(second.n)\(second.inverse.uppercased())")
                r.join = JoinSide(table: table, ownerIsFirst: ownerFirst)
            }
        }
    }
}

extension ManagedObjectModel {
    /// Every join table of the model, once each.
    package var joinTables: [JoinTable] {
        var seen = Set<String>()
        var tables: [JoinTable] = []
        for e in entities {
            for r in e.relationships {
                if let t = r.join?.table, seen.insert(t.name).inserted { tables.append(t) }
            }
        }
        return tables
    }
}

extension SQLiteStore {
    /// The objects `owner` is linked to through many-to-many `r`, in key order: each
    /// one's ID names its own entity (its row's Z_ENT, when the destination has subentities).
    func linkedIDs(_ owner: Int64, _ r: RelationshipDescription) throws(ManagedContextError) -> [ManagedObjectID] {
        guard let side = r.join, let destination = r.destinationEntity else { return [] }
        let polymorphic = !destination.subentities.isEmpty
        let sql =
            polymorphic
            ? "SELECT j.\(side.otherColumn), d.Z_ENT FROM \(side.table.name) j JOIN \(destination.tableName) d ON d.Z_PK = j.\(side.otherColumn) WHERE j.\(side.ownerColumn) = ? ORDER BY 1"
            : "SELECT \(side.otherColumn) FROM \(side.table.name) WHERE \(side.ownerColumn) = ? ORDER BY 1"
        return try readJoin("load \(r.name)") { db in
            try Row.fetchAll(db, sql: sql, arguments: [owner]).compactMap { row -> ManagedObjectID? in
                guard let pk: Int64 = row[0] else { return nil }
                var entity = destination
                if polymorphic, let n: Int64 = row[1], let e = self.entity(numbered: n), e.isKind(of: destination) { entity = e }
                return ManagedObjectID(entity: entity, store: identity, primaryKey: pk)
            }
        }
    }

    private func readJoin<T>(_ what: String, _ body: (Database) throws -> T) throws(ManagedContextError) -> T {
        do {
            return try DispatchBypass.run { try pool.read(body) }
        } catch {
            throw Self.translate(error, path: url.path, doing: what)
        }
    }

    /// Writes a save's join changes (after its inserts have their keys): links added and
    /// removed, and every link of a deleted object.
    func applyJoinChanges(_ db: Database, _ changes: StoreChanges, _ result: StoreSaveResult) throws {
        func key(_ id: ManagedObjectID) -> Int64? { id.primaryKey ?? result.permanentIDs[id]?.primaryKey }
        for link in changes.links {
            guard let first = key(link.pair.first), let second = key(link.pair.second) else { continue }
            guard let table = link.table else { continue }
            if link.added {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO \(table.name) (\(table.firstColumn), \(table.secondColumn)) VALUES (?, ?)", arguments: [first, second])
            } else {
                try db.execute(sql: "DELETE FROM \(table.name) WHERE \(table.firstColumn) = ? AND \(table.secondColumn) = ?", arguments: [first, second])
            }
        }
        for delete in changes.deletes {
            guard let pk = delete.id.primaryKey else { continue }
            for r in delete.id.entity.relationships {
                guard let side = r.join else { continue }
                try db.execute(sql: "DELETE FROM \(side.table.name) WHERE \(side.ownerColumn) = ?", arguments: [pk])
            }
        }
    }
}

extension ManagedObjectContext {
    /// The objects `id` is linked to through many-to-many `r`, as this context sees them:
    /// its parent's links (the store's, or a parent context's view) with its own unsaved
    /// changes laid over.
    func linkedIDs(_ id: ManagedObjectID, _ r: RelationshipDescription) -> [ManagedObjectID] {
        guard let side = r.join else { return [] }
        var ids: [ManagedObjectID]
        switch parentStore {
        case .none:
            ids = []
        case .coordinator(let c):
            let permanent = c.permanent(id)
            if let pk = permanent.primaryKey, let store = try? c.store(), permanent.store == store.identity {
                ids = (try? store.linkedIDs(pk, r)) ?? []
            } else {
                ids = []
            }
        case .context(let p):
            ids = (try? p.performAndWaitTyped { () throws(ManagedContextError) -> [ManagedObjectID] in
                p.confined { p.linkedIDs(id, r) }
            }) ?? []
        }
        if joinChanges.isEmpty { return ids }
        let coordinator = persistentStoreCoordinator
        func same(_ a: ManagedObjectID, _ b: ManagedObjectID) -> Bool {
            a == b || coordinator.map { $0.permanent(a) == $0.permanent(b) } ?? false
        }
        for (pair, added) in joinChanges.links {
            guard pair.table == side.table.name else { continue }
            let owner = side.ownerIsFirst ? pair.first : pair.second
            guard same(owner, id) else { continue }
            let other = side.ownerIsFirst ? pair.second : pair.first
            ids.removeAll { same($0, other) }
            if added { ids.append(other) }
        }
        return ids
    }

    /// Links or unlinks `owner` and `other` through many-to-many `r` (both sides see it),
    /// and marks both objects changed, as Core Data does.
    func setLinked(_ owner: ManagedObject, _ other: ManagedObject, through r: RelationshipDescription, linked: Bool) {
        guard let side = r.join, let inverse = r.inverseRelationship else { return }
        if _slowPath(undoRecording != nil) { noteLinkForUndo(owner, other, through: r, JoinPair(side, owner: owner.objectID, other: other.objectID), linked: linked) }
        joinChanges.links[JoinPair(side, owner: owner.objectID, other: other.objectID)] = linked
        owner.toManyDidChange(r)
        other.toManyDidChange(inverse)
    }

    /// The rows of the objects `id` is linked to through many-to-many `r` (for predicates
    /// evaluated in memory).
    func linkedRows(_ id: ManagedObjectID, _ r: RelationshipDescription) -> [FetchedRow] {
        let ids = linkedIDs(id, r)
        let rows = (try? loadSnapshots(ids)) ?? [:]
        return ids.compactMap { i in rows[i].map { FetchedRow(id: i, snapshot: $0) } }
    }
}
