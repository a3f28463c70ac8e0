import CtxdebugHelpers
import Foundation
import GRDB
import GRDBSQLite

/// Core Data's persistent-history tables in its SQLite layout, as stores Apple's Core
/// Data wrote hold them (schema dumps of Photos.sqlite and NotesV7.storedata; rows of
/// `Z_PRIMARYKEY` 16001 CHANGE, 16002 TRANSACTION, 16003 TRANSACTIONSTRING; see
/// docs/store-format.md, "Persistent history"):
/// - `ATRANSACTION`: one row per save, its strings interned in `ATRANSACTIONSTRING`
///   (`ZAUTHORTS`, `ZBUNDLEIDTS`, `ZCONTEXTNAMETS`, `ZPROCESSIDTS`; the inline `ZAUTHOR`…
///   columns stay NULL, as Core Data leaves them), `ZTIMESTAMP` in seconds since 2001;
/// - `ACHANGE`: one row per object a save changed: `ZCHANGETYPE` (0 insert, 1 update,
///   2 delete), `ZENTITY` (Z_ENT), `ZENTITYPK` (Z_PK), `ZTRANSACTIONID`, and `ZCOLUMNS`,
///   the updated properties as a bitmap (a many-to-many link made or broken is an update
///   of both objects, naming the relationship).
enum HistoryTables {
    static let changeEntity: Int64 = 16001
    static let transactionEntity: Int64 = 16002
    static let stringEntity: Int64 = 16003
    static let rows: [Int64: String] = [changeEntity: "CHANGE", transactionEntity: "TRANSACTION", stringEntity: "TRANSACTIONSTRING"]
    static let tableNames: Set<String> = ["ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"]

    /// `ACHANGE`'s n-th tombstone column: the n-th preserved attribute of a deleted object.
    static func tombstoneColumn(_ n: Int) -> String { "ZTOMBSTONE\(n)" }

    /// How many tombstone columns `ACHANGE` has (`ZTOMBSTONE0` on, without a gap).
    static func tombstoneColumnCount(_ db: Database) throws -> Int {
        let names = Set(try db.columns(in: "ACHANGE").map { $0.name.uppercased() })
        var n = 0
        while names.contains(tombstoneColumn(n)) { n += 1 }
        return n
    }

    /// A `Z_PRIMARYKEY` row of the history tables, not of an entity of the model.
    static func isHistoryRow(number: Int64, name: String) -> Bool { rows[number] == name }

    static let createSQL = [
        "CREATE TABLE IF NOT EXISTS ATRANSACTIONSTRING (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR NOT NULL)",
        "CREATE UNIQUE INDEX IF NOT EXISTS Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)",
        """
        CREATE TABLE IF NOT EXISTS ATRANSACTION (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, \
        ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, \
        ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB)
        """,
        "CREATE INDEX IF NOT EXISTS Z_TRANSACTION_TIMESTAMP ON ATRANSACTION (ZTIMESTAMP)",
        """
        CREATE TABLE IF NOT EXISTS ACHANGE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, \
        ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB)
        """,
        "CREATE INDEX IF NOT EXISTS Z_CHANGE_TRANSACTIONID ON ACHANGE (ZTRANSACTIONID)",
        "INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16001, 'CHANGE', 0, 0), (16002, 'TRANSACTION', 0, 0), (16003, 'TRANSACTIONSTRING', 0, 0)",
    ]

    /// `ZCOLUMNS` of an update: bit n (byte n / 8, least significant bit first) for the
    /// entity's n-th attribute, then its to-one relationships after its attributes, then
    /// its many-to-many relationships (`manyToMany` indexes `manyToManyRelationships`).
    /// Core Data does not document its own bit order; this one is read back the same way.
    static func columns(_ entity: EntityDescription, attributes: ChangeMask, toOne: ChangeMask, manyToMany: ChangeMask = ChangeMask()) -> Data {
        let base = entity.attributes.count + entity.toOneRelationships.count
        let linkCount = manyToMany.isEmpty ? 0 : manyToManyRelationships(entity).count
        var bytes = [UInt8](repeating: 0, count: max(1, (base + linkCount + 7) / 8))
        for i in entity.attributes.indices where attributes.contains(i) { bytes[i / 8] |= 1 << UInt8(i % 8) }
        for r in entity.toOneRelationships where toOne.contains(r.toOneIndex) {
            let bit = entity.attributes.count + r.toOneIndex
            bytes[bit / 8] |= 1 << UInt8(bit % 8)
        }
        for i in 0..<linkCount where manyToMany.contains(i) { bytes[(base + i) / 8] |= 1 << UInt8((base + i) % 8) }
        return Data(bytes)
    }

    /// The entity's many-to-many relationships (those kept in a join table), in order.
    static func manyToManyRelationships(_ entity: EntityDescription) -> [RelationshipDescription] {
        entity.relationships.filter { $0.join != nil }
    }

    /// The property names a `ZCOLUMNS` bitmap sets.
    static func propertyNames(_ entity: EntityDescription, columns: Data) -> Set<String> {
        var names = Set<String>()
        let bytes = [UInt8](columns)
        func isSet(_ bit: Int) -> Bool { bit / 8 < bytes.count && bytes[bit / 8] & (1 << UInt8(bit % 8)) != 0 }
        for a in entity.attributes where isSet(a.index) { names.insert(a.name) }
        for r in entity.toOneRelationships where isSet(entity.attributes.count + r.toOneIndex) { names.insert(r.name) }
        let base = entity.attributes.count + entity.toOneRelationships.count
        if base < bytes.count * 8 {
            for (i, r) in manyToManyRelationships(entity).enumerated() where isSet(base + i) { names.insert(r.name) }
        }
        return names
    }
}

/// What a history-tracked save writes in `ATRANSACTION`, and whom it tells once it committed.
struct HistoryRecording: Sendable {
    let author: String?
    let contextName: String?
    let bundleID: String
    let processID: String
    /// Called with the transaction's number after the save committed.
    let committed: @Sendable (Int64) -> Void
}

extension SQLiteStore {
    /// Creates the history tables when the store has none yet (Core Data adds them the
    /// first time a store is opened with `NSPersistentHistoryTrackingKey`).
    func prepareHistory() throws(ManagedContextError) {
        guard !isReadOnly else { return }
        let tombstones = model.entities.map(\.tombstoneAttributes.count).max() ?? 0
        do {
            try DispatchBypass.run {
                try pool.write { db in
                    for sql in HistoryTables.createSQL { try db.execute(sql: sql) }
                    // Core Data adds a tombstone column per preserved attribute, as many as
                    // the entity that preserves most has (`ZTOMBSTONE0`, `ZTOMBSTONE1`…).
                    let present = try HistoryTables.tombstoneColumnCount(db)
                    for n in present..<max(present, tombstones) {
                        try db.execute(sql: "ALTER TABLE ACHANGE ADD COLUMN \(HistoryTables.tombstoneColumn(n)) BLOB")
                    }
                }
            }
        } catch {
            throw Self.translate(error, path: url.path, doing: "add the persistent history tables")
        }
    }

    /// Writes the save's transaction and changes, in the save's own SQLite transaction;
    /// returns the transaction's number.
    func recordHistory(_ db: Database, _ changes: StoreChanges, _ result: StoreSaveResult, _ h: HistoryRecording) throws -> Int64 {
        let number = try nextHistoryKey(db, HistoryTables.transactionEntity, table: "ATRANSACTION")
        // Known as this process's before the commit makes it visible to the watcher.
        OwnTransactions.insert(identity.uuid, number)
        let strings = try [h.author, h.bundleID, h.contextName, h.processID].map { try $0.map { try internedString(db, $0) } }
        let timestamp = Date().timeIntervalSinceReferenceDate
        try db.cachedStatement(
            sql: "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP) VALUES (?, 16002, ?, ?, ?, ?, ?)"
        ).execute(arguments: [number, strings[0], strings[1], strings[2], strings[3], timestamp])
        var key = try nextHistoryKey(db, HistoryTables.changeEntity, table: "ACHANGE")
        let first = key
        let insert = ChangeInsert(try db.cachedStatement(
            sql: "INSERT INTO ACHANGE (Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) VALUES (?, 16001, ?, ?, ?, ?, ?)"))
        func record(_ type: PersistentHistoryChangeType, _ id: ManagedObjectID, _ columns: Data?) throws {
            guard let pk = id.primaryKey else { return }
            try insert.execute(db, key: key, type: Int64(type.rawValue), entity: entityNumber(id.entity), primaryKey: pk, transaction: number, columns: columns)
            key += 1
        }
        // The set of inserted rows is needed only where a merge or a link must be told
        // apart from an insert; a plain save of new objects records each as it goes.
        let needsInsertedRows = !result.mergedInto.isEmpty || !changes.links.isEmpty
        let insertedRows = needsInsertedRows
            ? Set(changes.inserts.compactMap { result.mergedInto[$0.id] == nil ? result.permanentIDs[$0.id] : nil }) : []
        var mergedRows = Set<ManagedObjectID>()
        for ins in changes.inserts {
            guard let target = result.mergedInto[ins.id] else {
                if let id = result.permanentIDs[ins.id] { try record(.insert, id, nil) }
                continue
            }
            // A uniqueness constraint merged it into a row the store had: an update of that
            // row (once); merged into another insert of this save, it is that insert.
            guard !insertedRows.contains(target), mergedRows.insert(target).inserted else { continue }
            let e = target.entity
            try record(.update, target, HistoryTables.columns(e, attributes: .all(e.attributes.count), toOne: .all(e.toOneRelationships.count)))
        }
        let (linkedMasks, linkedOrder) = changes.links.isEmpty ? ([:], []) : linkedObjects(changes, result, inserted: insertedRows)
        var linked = linkedMasks
        for u in changes.updates where result.written[u.id] != nil {
            let links = linked.removeValue(forKey: u.id) ?? ChangeMask()
            try record(.update, u.id, HistoryTables.columns(u.id.entity, attributes: u.changedAttributes, toOne: u.changedToOne, manyToMany: links))
        }
        for id in linkedOrder {
            guard let links = linked[id] else { continue }
            try record(.update, id, HistoryTables.columns(id.entity, attributes: ChangeMask(), toOne: ChangeMask(), manyToMany: links))
        }
        for d in changes.deletes where result.discarded[d.id] == nil {
            try record(.delete, d.id, nil)
            if let values = result.tombstones[d.id], !values.isEmpty {
                let columns = values.indices.map { "\(HistoryTables.tombstoneColumn($0)) = ?" }.joined(separator: ", ")
                try db.execute(
                    sql: "UPDATE ACHANGE SET \(columns) WHERE Z_PK = ?",
                    arguments: StatementArguments(values.map(\.databaseValue) + [(key - 1).databaseValue]))
            }
        }
        if key > first {
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = 16001", arguments: [key - 1])
        }
        try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = 16002", arguments: [number])
        return number
    }

    /// One `ACHANGE` row, bound and stepped through the cached statement's own SQLite
    /// handle: a tracked save writes one per object, and building and checking GRDB's
    /// arguments for each was a third of what history added to an insert
    /// (docs/benchmarks.md, item 16).
    private struct ChangeInsert {
        let statement: Statement
        init(_ statement: Statement) { self.statement = statement }

        func execute(
            _ db: Database, key: Int64, type: Int64, entity: Int64, primaryKey: Int64, transaction: Int64, columns: Data?
        ) throws {
            let raw = statement.sqliteStatement
            sqlite3_reset(raw)
            sqlite3_bind_int64(raw, 1, key)
            sqlite3_bind_int64(raw, 2, type)
            sqlite3_bind_int64(raw, 3, entity)
            sqlite3_bind_int64(raw, 4, primaryKey)
            sqlite3_bind_int64(raw, 5, transaction)
            var rc: CInt
            if let columns {
                rc = columns.withUnsafeBytes { bytes in
                    bytes.baseAddress.map { sqlite3_bind_blob(raw, 6, $0, CInt(bytes.count), Self.transient) } ?? sqlite3_bind_zeroblob(raw, 6, 0)
                }
            } else {
                rc = sqlite3_bind_null(raw, 6)
            }
            if rc == SQLITE_OK { rc = sqlite3_step(raw) }
            defer { sqlite3_reset(raw) }
            guard rc == SQLITE_DONE else {
                throw DatabaseError(resultCode: ResultCode(rawValue: rc), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: statement.sql)
            }
        }

        private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
    }

    /// The objects whose many-to-many relationships a save's links changed (neither inserted
    /// nor deleted by it), each with the relationships (indexes of
    /// `HistoryTables.manyToManyRelationships`), in the order of the links.
    private func linkedObjects(
        _ changes: StoreChanges, _ result: StoreSaveResult, inserted: Set<ManagedObjectID>
    ) -> ([ManagedObjectID: ChangeMask], [ManagedObjectID]) {
        let deleted = Set(changes.deletes.map(\.id))
        var linked: [ManagedObjectID: ChangeMask] = [:]
        var order: [ManagedObjectID] = []
        for link in changes.links {
            for ownerIsFirst in [true, false] {
                let side = ownerIsFirst ? link.pair.first : link.pair.second
                let id = result.permanentIDs[side] ?? side
                guard id.primaryKey != nil, !inserted.contains(id), !deleted.contains(id) else { continue }
                for (i, r) in HistoryTables.manyToManyRelationships(id.entity).enumerated()
                where r.join?.table.name == link.pair.table && r.join?.ownerIsFirst == ownerIsFirst {
                    if linked[id] == nil { order.append(id) }
                    linked[id, default: ChangeMask()].insert(i)
                }
            }
        }
        return (linked, order)
    }

    /// The next key of a history table: past both its Z_MAX and its highest row, so a
    /// number is never given twice, even after the history before it was deleted.
    private func nextHistoryKey(_ db: Database, _ entity: Int64, table: String) throws -> Int64 {
        let zmax = try Int64.fetchOne(db.cachedStatement(sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?"), arguments: [entity]) ?? 0
        let rowMax = try Int64.fetchOne(db.cachedStatement(sql: "SELECT MAX(Z_PK) FROM \(table)")) ?? 0
        return max(zmax, rowMax) + 1
    }

    private func internedString(_ db: Database, _ name: String) throws -> Int64 {
        if let pk = try Int64.fetchOne(db.cachedStatement(sql: "SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?"), arguments: [name]) {
            return pk
        }
        let pk = try nextHistoryKey(db, HistoryTables.stringEntity, table: "ATRANSACTIONSTRING")
        try db.execute(sql: "INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, ZNAME) VALUES (?, 16003, ?)", arguments: [pk, name])
        try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = 16003", arguments: [pk])
        return pk
    }

    /// Whether the store holds the history tables.
    func hasHistoryTables(_ db: Database) throws -> Bool {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN ('ATRANSACTION', 'ACHANGE', 'ATRANSACTIONSTRING')") == 3
    }

    /// The number of the store's last transaction (nil without history or transactions).
    func lastTransactionNumber() throws(ManagedContextError) -> Int64? {
        try historyRead("read the persistent history") { db in
            guard try self.hasHistoryTables(db) else { return nil }
            return try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM ATRANSACTION")
        }
    }

    func historyRead<T>(_ what: String, _ body: (Database) throws -> T) throws(ManagedContextError) -> T {
        do {
            return try DispatchBypass.run { try pool.read(body) }
        } catch {
            throw Self.translate(error, path: url.path, doing: what)
        }
    }

    func historyWrite<T>(_ what: String, _ body: (Database) throws -> T) throws(ManagedContextError) -> T {
        guard !isReadOnly else {
            throw ManagedContextError(.readOnlyStore, "The store was opened read-only, so it cannot \(what).", path: url.path)
        }
        do {
            return try DispatchBypass.run { try pool.write(body) }
        } catch {
            throw Self.translate(error, path: url.path, doing: what)
        }
    }
}
