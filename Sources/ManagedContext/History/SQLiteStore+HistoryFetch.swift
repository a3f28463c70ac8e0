import Foundation
import GRDB

extension SQLiteStore {
    private var notTracked: ManagedContextError {
        ManagedContextError(
            .fetchFailed,
            "This store records no persistent history: it was never opened with persistent history tracking. Open it with NSPersistentHistoryTrackingKey (StoreOptions.persistentHistoryTracking) set to true; history starts then.",
            path: url.path)
    }

    /// The transactions after `boundary`, oldest first, with their changes when asked.
    /// A token of another store, or one older than the history left (deleted past it),
    /// is refused with a clear error, as Core Data refuses an expired token (134301).
    func fetchHistory(
        after boundary: PersistentHistoryBoundary, withChanges: Bool, checkingToken: Bool = true
    ) throws(ManagedContextError) -> [PersistentHistoryTransaction] {
        let notTracked = self.notTracked
        return try historyRead("fetch the persistent history") { db in
            guard try self.hasHistoryTables(db) else { throw notTracked }
            let (condition, argument) = try self.condition(db, after: boundary, checkingToken: checkingToken)
            let sql = """
                SELECT t.Z_PK, t.ZTIMESTAMP, COALESCE(a.ZNAME, t.ZAUTHOR), COALESCE(b.ZNAME, t.ZBUNDLEID), \
                COALESCE(c.ZNAME, t.ZCONTEXTNAME), COALESCE(p.ZNAME, t.ZPROCESSID) FROM ATRANSACTION t \
                LEFT JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS LEFT JOIN ATRANSACTIONSTRING b ON b.Z_PK = t.ZBUNDLEIDTS \
                LEFT JOIN ATRANSACTIONSTRING c ON c.Z_PK = t.ZCONTEXTNAMETS LEFT JOIN ATRANSACTIONSTRING p ON p.Z_PK = t.ZPROCESSIDTS \
                WHERE \(condition) ORDER BY t.Z_PK
                """
            let rows = try Row.fetchAll(db, sql: sql, arguments: [argument])
            guard let firstRow = rows.first, let lastRow = rows.last else { return [] }
            let changes = withChanges ? try self.changes(db, from: firstRow[0], through: lastRow[0]) : [:]
            let storeID = self.identity.uuid
            return rows.map { row in
                let number: Int64 = row[0]
                return PersistentHistoryTransaction(
                    transactionNumber: number, token: PersistentHistoryToken(storeIdentifier: storeID, transactionNumber: number),
                    timestamp: Date(timeIntervalSinceReferenceDate: row[1] ?? 0), author: row[2], contextName: row[4], bundleID: row[3],
                    processID: row[5], storeID: storeID, changes: withChanges ? changes[number] ?? [] : nil)
            }
        }
    }

    /// The `WHERE` of a fetch after `boundary`, checking a token against the store.
    private func condition(_ db: Database, after boundary: PersistentHistoryBoundary, checkingToken: Bool) throws -> (String, DatabaseValue) {
        switch boundary {
        case .date(let date):
            return ("t.ZTIMESTAMP > ?", date.timeIntervalSinceReferenceDate.databaseValue)
        case .token(nil):
            return ("? IS NULL", .null)
        case .token(let token?):
            if checkingToken { try checkToken(db, token) }
            return ("t.Z_PK > ?", token.transactionNumber.databaseValue)
        }
    }

    private func checkToken(_ db: Database, _ token: PersistentHistoryToken) throws {
        guard token.storeIdentifier == identity.uuid else {
            throw ManagedContextError(
                .invalidFetchRequest,
                "The history token is of the store \(token.storeIdentifier), not of this store (\(identity.uuid)). Use a token this store's coordinator gave (currentPersistentHistoryToken, a transaction's token).",
                path: url.path)
        }
        // The history before the oldest transaction left was deleted: a token before that
        // gap has lost the transactions after it.
        let oldest = try Int64.fetchOne(db, sql: "SELECT MIN(Z_PK) FROM ATRANSACTION")
        let deletedThrough = try oldest.map { $0 - 1 } ?? (Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16002") ?? 0)
        if token.transactionNumber < deletedThrough {
            throw ManagedContextError(
                .historyTokenExpired,
                "The history token (transaction \(token.transactionNumber)) is older than the history left in the store, which was deleted through transaction \(deletedThrough). Refetch the objects you show, then continue from currentPersistentHistoryToken.",
                path: url.path)
        }
    }

    /// The changes of the transactions `first…last`, by transaction number.
    private func changes(_ db: Database, from first: Int64, through last: Int64) throws -> [Int64: [PersistentHistoryChange]] {
        var byTransaction: [Int64: [PersistentHistoryChange]] = [:]
        let tombstoneColumns = (0..<(try HistoryTables.tombstoneColumnCount(db))).map(HistoryTables.tombstoneColumn)
        let rows = try Row.fetchCursor(
            db,
            sql: "SELECT " + (["Z_PK", "ZCHANGETYPE", "ZENTITY", "ZENTITYPK", "ZTRANSACTIONID", "ZCOLUMNS"] + tombstoneColumns).joined(separator: ", ")
                + " FROM ACHANGE WHERE ZTRANSACTIONID BETWEEN ? AND ? ORDER BY Z_PK",
            arguments: [first, last])
        while let row = try rows.next() {
            // A change of an entity this model lacks (a later version's) is left out.
            guard let entity = entity(numbered: row[2]), let type = PersistentHistoryChangeType(rawValue: row[1]) else { continue }
            let id = ManagedObjectID(entity: entity, store: identity, primaryKey: row[3])
            let columns: Data? = row[5]
            let transaction: Int64 = row[4]
            byTransaction[transaction, default: []].append(
                PersistentHistoryChange(
                    changeID: row[0], changeType: type, changedObjectID: id,
                    updatedProperties: type == .update ? columns.map { HistoryTables.propertyNames(entity, columns: $0) } ?? [] : nil,
                    transactionNumber: transaction, tombstoneValues: type == .delete ? Self.tombstone(row, of: entity) : nil))
        }
        return byTransaction
    }

    /// A delete's preserved values by attribute name, from the row's tombstone columns
    /// (after its first six); nil when the entity preserves nothing.
    private static func tombstone(_ row: Row, of entity: EntityDescription) -> [String: StoredValue]? {
        let preserved = entity.tombstoneAttributes
        guard !preserved.isEmpty else { return nil }
        var values: [String: StoredValue] = [:]
        for (n, index) in preserved.enumerated() where 6 + n < row.count {
            values[entity.attributes[index].name] = StoredValue(row[6 + n] as DatabaseValue)
        }
        return values
    }

    /// Deletes the transactions up to and including `boundary`'s token (or before its
    /// date), with their changes; returns how many transactions went. The interned
    /// strings stay, as Core Data leaves them.
    func deleteHistory(before boundary: PersistentHistoryBoundary) throws(ManagedContextError) -> Int {
        let notTracked = self.notTracked
        return try historyWrite("delete the persistent history") { db in
            guard try self.hasHistoryTables(db) else { throw notTracked }
            var condition = "? IS NULL"
            var argument = DatabaseValue.null
            switch boundary {
            case .date(let date):
                (condition, argument) = ("ZTIMESTAMP < ?", date.timeIntervalSinceReferenceDate.databaseValue)
            case .token(nil):
                break
            case .token(let token?):
                guard token.storeIdentifier == self.identity.uuid else {
                    throw ManagedContextError(
                        .invalidFetchRequest, "The history token is of the store \(token.storeIdentifier), not of this store (\(self.identity.uuid)). Nothing was deleted.",
                        path: self.url.path)
                }
                (condition, argument) = ("Z_PK <= ?", token.transactionNumber.databaseValue)
            }
            try db.execute(sql: "DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT Z_PK FROM ATRANSACTION WHERE \(condition))", arguments: [argument])
            try db.execute(sql: "DELETE FROM ATRANSACTION WHERE \(condition)", arguments: [argument])
            return db.changesCount
        }
    }
}
