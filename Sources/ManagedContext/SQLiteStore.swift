import Foundation
import CtxdebugHelpers
import GRDB
import GRDBSQLite

/// A row a fetch found: its ID and, when values were asked for, its snapshot.
struct FetchedRow: Sendable {
    let id: ManagedObjectID
    var snapshot: RowSnapshot?
}

/// One SQLite file in Core Data's layout, in WAL mode, through a GRDB
/// `DatabasePool`: one writer, concurrent readers on snapshots.
final class SQLiteStore: Sendable {
    let url: URL
    let model: ManagedObjectModel
    let identity: StoreIdentity
    let isReadOnly: Bool
    let pool: DatabasePool
    /// Z_ENT of each entity of the model, by the entity's index. A store made by
    /// Core Data may number entities differently; Z_PRIMARYKEY says how.
    private let entityNumbers: [Int64]
    /// The entity each Z_ENT stands for, by number (an inheritance tree's rows say which
    /// entity they are).
    private let entitiesByNumber: [Int64: EntityDescription]

    /// Opens the store at `url`. A store that does not fit `model` is refused with
    /// `.schemaMismatch` (Core Data's 134100), or, when `migrate` is set (Core Data's
    /// automatic migration with an inferred mapping model), migrated in place in one
    /// transaction when Core Data could infer the migration, and refused with
    /// `.migrationFailed` otherwise. A refused store is not touched.
    init(url: URL, model: ManagedObjectModel, readOnly: Bool, migrate: Bool = false, pragmas: [SQLitePragma] = []) throws(ManagedContextError) {
        self.url = url
        self.model = model
        self.isReadOnly = readOnly
        let path = url.path
        let fileHoldsData = try Self.checkFile(path: path, readOnly: readOnly)
        let (existingLayout, needsMigration) =
            fileHoldsData ? try Self.compareFirst(path: path, model: model, readOnly: readOnly, migrate: migrate) : (nil, false)

        let pool: DatabasePool
        do {
            let config = Self.configuration(readOnly: readOnly, pragmas: pragmas)
            pool = try DispatchBypass.run { try DatabasePool(path: path, configuration: config) }
        } catch {
            throw Self.translate(error, path: path, doing: "open the store")
        }
        self.pool = pool
        let numbers: [Int64]
        if needsMigration {
            self.identity = StoreIdentity(uuid: try Self.migrateInPlace(pool, model: model, path: path))
            numbers = model.entities.map { Int64($0.index + 1) }
        } else if let existingLayout {
            self.identity = StoreIdentity(uuid: existingLayout.uuid)
            numbers = existingLayout.numbers
        } else {
            self.identity = StoreIdentity(uuid: try Self.createSchema(pool, model: model, readOnly: readOnly, path: path))
            numbers = model.entities.map { Int64($0.index + 1) }
        }
        self.entityNumbers = numbers
        self.entitiesByNumber = Dictionary(zip(numbers, model.entities), uniquingKeysWith: { a, _ in a })
        if !readOnly && model.declaresIndexes {
            do {
                try DispatchBypass.run {
                    try pool.write { db in
                        try StoreSchema.addMissingIndexes(db, model: model, entityNumber: { numbers[$0.index] }, path: path)
                    }
                }
            } catch {
                try? pool.close()
                if let e = error as? ManagedContextError { throw e }
                throw Self.translate(error, path: path, doing: "add the model's indexes and uniqueness constraints to the store")
            }
        }
    }

    /// Whether the file at `path` holds a database to open (false: a new store is made
    /// there), after checking its place and header; refuses a read-only open of nothing.
    private static func checkFile(path: String, readOnly: Bool) throws(ManagedContextError) -> Bool {
        try StoreSchema.validateLocation(path: path, readOnly: readOnly)
        let fileExists = FileManager.default.fileExists(atPath: path)
        // A zero-byte file is an empty SQLite database (SQLite's own definition), as
        // a process killed while it created the store leaves it: a new store is
        // made in it, as Core Data would. Nothing is there to lose.
        var fileHoldsData = fileExists
        if fileExists, try StoreSchema.isEmptyDatabaseFile(path: path, readOnly: readOnly) { fileHoldsData = false }
        if fileHoldsData { try StoreSchema.validateHeader(path: path) } else if !fileExists && readOnly {
            throw ManagedContextError(.storeOpenFailed, "There is no store at this path to open read-only. Check the path, or open it writable to create one.", path: path)
        }
        return fileHoldsData
    }

    /// An existing file compared with the model first, through a private copy: a file
    /// that is refused must not be touched, and opening the pool would switch it to WAL
    /// (rewriting its header) before any check could run. Returns the layout of a file
    /// that fits, or that a lightweight migration is to make it fit.
    private static func compareFirst(
        path: String, model: ManagedObjectModel, readOnly: Bool, migrate: Bool
    ) throws(ManagedContextError) -> (existingLayout: (uuid: String, numbers: [Int64])?, needsMigration: Bool) {
        let comparison: SchemaComparison?
        do {
            comparison = try DispatchBypass.run { try StoreSchema.compare(path: path, model: model) }
        } catch {
            throw Self.translate(error, path: path, doing: "read the store's schema")
        }
        guard let comparison else { return (nil, false) }
        if comparison.matches { return ((comparison.uuid, comparison.numbers), false) }
        try Self.refuseOrMigrate(comparison, readOnly: readOnly, migrate: migrate, path: path)
        return (nil, true)
    }

    /// The pool's configuration: the store's SQL functions and the user's pragmas on each connection.
    private static func configuration(readOnly: Bool, pragmas: [SQLitePragma]) -> Configuration {
        var config = Configuration()
        config.readonly = readOnly
        config.busyMode = .timeout(10)
        config.label = "ctxdebug.store"
        config.prepareDatabase { db in
            StoreSQLFunctions.register(in: db)
            for pragma in pragmas {
                do {
                    try db.execute(sql: pragma.sql)
                } catch let error as DatabaseError where error.resultCode == .SQLITE_READONLY && db.configuration.readonly {
                    // A pragma that writes the file (user_version) is the writer connection's to run.
                }
            }
        }
        return config
    }

    /// The lightweight migration in one transaction, compared again under the write lock;
    /// returns the store's UUID. On failure the store is as it was and the pool closed.
    private static func migrateInPlace(_ pool: DatabasePool, model: ManagedObjectModel, path: String) throws(ManagedContextError) -> String {
        do {
            return try DispatchBypass.run { try pool.write { db in
                // Compared again under the write lock: what is migrated is what is there.
                guard let layout = try StoreLayout.read(db, path: path) else {
                    throw ManagedContextError(.migrationFailed, "The store's tables disappeared while it was opened. Nothing was migrated.", path: path)
                }
                let comparison = try SchemaComparison(layout: layout, model: model, db: db)
                if !comparison.damage.isEmpty || !comparison.blockers.isEmpty {
                    throw ManagedContextError(.migrationFailed, "The store changed while it was opened and can no longer be migrated: \(comparison.summary()). Nothing was changed.", path: path)
                }
                try LightweightMigration.apply(comparison, model: model, db: db)
                // In the same transaction: rows the migration gave one value break a
                // uniqueness constraint, and the whole migration is rolled back.
                try StoreSchema.addMissingIndexes(db, model: model, entityNumber: { Int64($0.index + 1) }, path: path)
                return comparison.uuid
            } }
        } catch {
            try? pool.close()
            if let e = error as? ManagedContextError { throw e }
            throw ManagedContextError(
                .migrationFailed, "The lightweight migration failed and was rolled back; the store is as it was. (\(error))", path: path,
                cause: error as? DatabaseError)
        }
    }

    /// The tables of a new store; returns its new UUID.
    private static func createSchema(_ pool: DatabasePool, model: ManagedObjectModel, readOnly: Bool, path: String) throws(ManagedContextError) -> String {
        if readOnly {
            throw ManagedContextError(.schemaMismatch, "The store is empty and was opened read-only, so its tables cannot be created.", path: path)
        }
        let uuid = UUID().uuidString
        do {
            try DispatchBypass.run { try pool.write { db in try StoreSchema.createSchema(db, model: model, uuid: uuid) } }
        } catch {
            throw Self.translate(error, path: path, doing: "create the store's tables")
        }
        return uuid
    }

    /// Throws the error for a store that does not fit the model, unless a lightweight
    /// migration may and can make it fit (then returns).
    private static func refuseOrMigrate(_ c: SchemaComparison, readOnly: Bool, migrate: Bool, path: String) throws(ManagedContextError) {
        if !c.damage.isEmpty {
            throw ManagedContextError(.schemaMismatch, "The store's own bookkeeping is inconsistent: \(c.summary()). Nothing was changed; restore the store from a copy.", path: path)
        }
        guard migrate else {
            throw ManagedContextError(
                .schemaMismatch,
                "The model used to open the store is incompatible with the one used to create the store: \(c.summary()). Nothing was changed. Open it with the model it was made with, or allow lightweight migration (shouldMigrateStoreAutomatically and shouldInferMappingModelAutomatically).",
                path: path)
        }
        if readOnly {
            throw ManagedContextError(.schemaMismatch, "The store needs a migration to fit the model (\(c.summary())), but it was opened read-only. Nothing was changed; open it writable to migrate it.", path: path)
        }
        if !c.blockers.isEmpty {
            throw ManagedContextError(
                .migrationFailed, "The store cannot be migrated to the model with an inferred mapping: \(c.summary()). Nothing was changed. Make the change one lightweight migration can infer, or migrate the data yourself.",
                path: path)
        }
    }

    static func translate(_ error: any Error, path: String, doing: String) -> ManagedContextError {
        if let e = error as? ManagedContextError { return e }
        if let db = error as? DatabaseError {
            let detail = db.message ?? "\(db.resultCode)"
            switch db.resultCode {
            case .SQLITE_CONSTRAINT where (db.message ?? "").contains("UNIQUE"):
                return ManagedContextError(
                    .constraintConflict,
                    "Could not \(doing): the values a uniqueness constraint makes unique are another row's (\(detail)). Nothing was written; change the values, or delete the other row first.",
                    path: path, cause: db)
            case .SQLITE_NOTADB:
                return ManagedContextError(.notAStore, "Could not \(doing): the file is not an SQLite database (\(detail)). Nothing was changed.", path: path, cause: db)
            case .SQLITE_CORRUPT:
                return ManagedContextError(.corruptStore, "Could not \(doing): the database is malformed (\(detail)). Restore it from a copy.", path: path, cause: db)
            case .SQLITE_READONLY:
                return ManagedContextError(.readOnlyStore, "Could not \(doing): the store is read-only (\(detail)).", path: path, cause: db)
            case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH:
                return ManagedContextError(.storeOpenFailed, "Could not \(doing): SQLite cannot open the file (\(detail)). Check that the path and its directory are readable and writable.", path: path, cause: db)
            case .SQLITE_FULL, .SQLITE_IOERR:
                return ManagedContextError(.saveFailed, "Could not \(doing): \(detail). Free some disk space and try again; the store still holds its last saved state.", path: path, cause: db)
            default:
                return ManagedContextError(.storeOpenFailed, "Could not \(doing): \(detail).", path: path, cause: db)
            }
        }
        return ManagedContextError(.storeOpenFailed, "Could not \(doing): \(error)", path: path)
    }

    // MARK: Reading

    func entityNumber(_ entity: EntityDescription) -> Int64 { entityNumbers[entity.index] }

    func selectList(_ entity: EntityDescription) -> String {
        (["Z_PK", "Z_OPT"] + entity.rowLayout.columns).joined(separator: ", ")
    }

    /// The entity whose number a row's Z_ENT holds.
    func entity(numbered number: Int64) -> EntityDescription? { entitiesByNumber[number] }

    /// `WHERE` of a fetch: the predicate's SQL, and in a table an inheritance tree shares,
    /// the rows of the fetched entity (and of its subentities, when the fetch includes them).
    func whereClause(_ f: ResolvedFetch) -> (String, [DatabaseValue]) {
        let (sql, arguments) = SQLCompiler.compile(f.predicate, entity: f.entity, store: identity)
        guard f.entity.sharesTable, f.entity.superentity != nil || !f.includesSubentities else { return (sql, arguments) }
        let entities = f.includesSubentities ? f.entity.selfAndDescendants : [f.entity]
        let numbers = entities.map { String(entityNumber($0)) }.joined(separator: ", ")
        return ("\(f.entity.tableName).Z_ENT IN (\(numbers)) AND \(sql)", arguments)
    }

    func decodeRow(_ row: Row, entity: EntityDescription) -> RowSnapshot {
        if !entity.rowLayout.isPlain {
            return decodeRow(
                as: entity, in: entity.rowLayout, int: { row[$0 + 2] as Int64? }, value: { StoredValue(row[$0 + 2] as DatabaseValue) },
                version: row[1] ?? 0)
        }
        var values: [StoredValue] = []
        values.reserveCapacity(entity.attributes.count)
        let base = 2
        for i in entity.attributes.indices {
            values.append(StoredValue(row[base + i] as DatabaseValue))
        }
        let fkBase = base + entity.attributes.count
        var toOne: [ManagedObjectID?] = []
        for (j, r) in entity.toOneRelationships.enumerated() {
            let pk: Int64? = row[fkBase + j]
            toOne.append(pk.flatMap { $0 > 0 ? ManagedObjectID(entity: r.destinationEntity!, store: identity, primaryKey: $0) : nil })
        }
        return RowSnapshot(values: values, toOne: toOne, version: row[1] ?? 0)
    }

    /// The rows matching a fetch, in SQL order. The window (offset, limit) is applied
    /// only when asked: a context with unsaved changes applies it after merging them.
    func fetch(_ f: ResolvedFetch, applyWindow: Bool, loadValues: Bool, in generation: QueryGeneration? = nil) throws(ManagedContextError) -> [FetchedRow] {
        let (whereSQL, arguments) = whereClause(f)
        let plain = f.entity.rowLayout.isPlain
        var sql = "SELECT \(loadValues || !plain ? selectList(f.entity) : "Z_PK") FROM \(f.entity.tableName) WHERE \(whereSQL)"
        sql += SQLCompiler.orderBy(f.sorts, entity: f.entity)
        if applyWindow && (f.limit > 0 || f.offset > 0) {
            sql += " LIMIT \(f.limit > 0 ? f.limit : -1) OFFSET \(f.offset)"
        }
        return try read("fetch \(f.entity.name)", in: generation) { db in
            var rows: [FetchedRow] = []
            let statement = try db.cachedStatement(sql: sql)
            let cursor = try Row.fetchCursor(statement, arguments: StatementArguments(arguments))
            let raw = statement.sqliteStatement
            while try cursor.next() != nil {
                if plain {
                    let id = ManagedObjectID(entity: f.entity, store: identity, primaryKey: sqlite3_column_int64(raw, 0))
                    rows.append(FetchedRow(id: id, snapshot: loadValues ? decodeRow(raw, entity: f.entity) : nil))
                } else {
                    let (entity, snapshot) = decodeFetchedRow(raw, fetching: f.entity)
                    let id = ManagedObjectID(entity: entity, store: identity, primaryKey: sqlite3_column_int64(raw, 0))
                    rows.append(FetchedRow(id: id, snapshot: loadValues ? snapshot : nil))
                }
            }
            return rows
        }
    }

    func count(_ f: ResolvedFetch, in generation: QueryGeneration? = nil) throws(ManagedContextError) -> Int {
        let (whereSQL, arguments) = whereClause(f)
        var sql = "SELECT COUNT(*) FROM (SELECT Z_PK FROM \(f.entity.tableName) WHERE \(whereSQL)"
        if f.limit > 0 || f.offset > 0 { sql += " LIMIT \(f.limit > 0 ? f.limit : -1) OFFSET \(f.offset)" }
        sql += ")"
        return try read("count \(f.entity.name)", in: generation) { db in
            try Int.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)) ?? 0
        }
    }

    /// The rows with these primary keys; missing ones are left out.
    func snapshots(entity: EntityDescription, primaryKeys: [Int64], in generation: QueryGeneration? = nil) throws(ManagedContextError) -> [Int64: RowSnapshot] {
        if primaryKeys.isEmpty { return [:] }
        return try read("load \(entity.name) rows", in: generation) { db in
            var result: [Int64: RowSnapshot] = [:]
            result.reserveCapacity(primaryKeys.count)
            for chunk in stride(from: 0, to: primaryKeys.count, by: 500) {
                let part = primaryKeys[chunk..<min(chunk + 500, primaryKeys.count)]
                let marks = Array(repeating: "?", count: part.count).joined(separator: ",")
                let statement = try db.cachedStatement(sql: "SELECT \(selectList(entity)) FROM \(entity.tableName) WHERE Z_PK IN (\(marks))")
                let cursor = try Row.fetchCursor(statement, arguments: StatementArguments(Array(part)))
                let raw = statement.sqliteStatement
                while try cursor.next() != nil {
                    result[sqlite3_column_int64(raw, 0)] = decodeRow(raw, entity: entity)
                }
            }
            return result
        }
    }
    /// Reads the store as it is, or as the pinned query generation saw it.
    private func read<T>(_ what: String, in generation: QueryGeneration? = nil, _ body: (Database) throws -> T) throws(ManagedContextError) -> T {
        do {
            if let generation, generation.store === self { return try DispatchBypass.run { try generation.snapshot.read(body) } }
            return try DispatchBypass.run { try pool.read(body) }  // the store is the runtime's own: not the app's dispatch
        } catch {
            throw Self.translate(error, path: url.path, doing: what)
        }
    }


    /// A query generation of the store as it is now: a read transaction held open on a
    /// connection of its own (SQLite's WAL keeps the pages it sees).
    func currentGeneration() throws(ManagedContextError) -> QueryGeneration {
        do {
            return QueryGeneration(store: self, snapshot: try DispatchBypass.run { try pool.makeSnapshot() })
        } catch {
            throw Self.translate(error, path: url.path, doing: "pin a query generation")
        }
    }

    /// Writes every page of the WAL into the main file (used before copying a store).
    func checkpoint() throws(ManagedContextError) {
        do {
            try DispatchBypass.run { try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) } }
        } catch {
            throw Self.translate(error, path: url.path, doing: "checkpoint")
        }
    }

    /// Writes the WAL back into the main file and closes every connection.
    func close() {
        if !isReadOnly { try? checkpoint() }
        DispatchBypass.run { try? pool.close() }
    }
}

