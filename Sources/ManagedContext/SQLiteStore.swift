import Foundation
import GRDB
import GRDBSQLite

/// A row a fetch found: its ID and, when values were asked for, its snapshot.
struct FetchedRow: Sendable {
    let id: ManagedObjectID
    var snapshot: RowSnapshot?
}

/// The changes of one save, as the store applies them.
struct StoreChanges: Sendable {
    struct Insert: Sendable {
        let id: ManagedObjectID
        let values: [StoredValue]
        let toOne: [ManagedObjectID?]
    }
    struct Update: Sendable {
        let id: ManagedObjectID
        let values: [StoredValue]
        let toOne: [ManagedObjectID?]
        let changedAttributes: ChangeMask
        let changedToOne: ChangeMask
        /// What the context loaded: to find what the store changed since.
        let snapshot: RowSnapshot?
    }
    struct Delete: Sendable {
        let id: ManagedObjectID
        let expectedVersion: Int64
    }
    var inserts: [Insert] = []
    var updates: [Update] = []
    var deletes: [Delete] = []
    var mergePolicy: MergePolicy = .error
    var isEmpty: Bool { inserts.isEmpty && updates.isEmpty && deletes.isEmpty }
}

/// What a save did, for the context to bring its objects in step.
struct StoreSaveResult: Sendable {
    /// Temporary ID → permanent ID of each inserted object.
    var permanentIDs: [ManagedObjectID: ManagedObjectID] = [:]
    /// The row each saved object now has (values as written, new version).
    var written: [ManagedObjectID: RowSnapshot] = [:]
    /// Objects whose in-memory changes were dropped (rollback policy, or row gone).
    var discarded: [ManagedObjectID: RowSnapshot?] = [:]
    /// Attributes whose change by another save this save overwrote (trump/overwrite).
    var lostUpdates: [LostUpdate] = []
}

struct LostUpdate: Sendable {
    let id: ManagedObjectID
    let attributes: [String]
    let fromVersion: Int64
}

/// One SQLite file in Core Data's layout, in WAL mode, through a GRDB
/// `DatabasePool`: one writer, concurrent readers on snapshots.
final class SQLiteStore: Sendable {
    let url: URL
    let model: ManagedObjectModel
    let identity: StoreIdentity
    let isReadOnly: Bool
    private let pool: DatabasePool
    /// Z_ENT of each entity of the model, by the entity's index. A store made by
    /// Core Data may number entities differently; Z_PRIMARYKEY says how.
    private let entityNumbers: [Int64]

    init(url: URL, model: ManagedObjectModel, readOnly: Bool) throws(ManagedContextError) {
        self.url = url
        self.model = model
        self.isReadOnly = readOnly
        let path = url.path
        try Self.validateLocation(path: path, readOnly: readOnly)
        let fileExists = FileManager.default.fileExists(atPath: path)
        // A zero-byte file is an empty SQLite database (SQLite's own definition), as
        // a process killed while it created the store leaves it: a new store is
        // made in it, as Core Data would. Nothing is there to lose.
        var fileHoldsData = fileExists
        if fileExists, try Self.isEmptyDatabaseFile(path: path, readOnly: readOnly) { fileHoldsData = false }
        if fileHoldsData { try Self.validateHeader(path: path) } else if !fileExists && readOnly {
            throw ManagedContextError(.storeOpenFailed, "There is no store at this path to open read-only. Check the path, or open it writable to create one.", path: path)
        }

        // Inspect an existing file through a read-only connection first: a file
        // that is refused must not be touched, and opening the pool would switch
        // it to WAL (rewriting its header) before any check could run.
        var existingLayout: (uuid: String, numbers: [Int64])?
        if fileHoldsData {
            do {
                var inspect = Configuration()
                inspect.readonly = true
                let queue = try DatabaseQueue(path: path, configuration: inspect)
                defer { try? queue.close() }
                existingLayout = try Self.inspectSchema(queue, model: model, path: path)
            } catch {
                throw Self.translate(error, path: path, doing: "read the store's schema")
            }
        }

        var config = Configuration()
        config.readonly = readOnly
        config.busyMode = .timeout(10)
        config.label = "ctxdebug.store"
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: config)
        } catch {
            throw Self.translate(error, path: path, doing: "open the store")
        }
        self.pool = pool
        if let existingLayout {
            self.identity = StoreIdentity(uuid: existingLayout.uuid)
            self.entityNumbers = existingLayout.numbers
        } else {
            if readOnly {
                throw ManagedContextError(.schemaMismatch, "The store is empty and was opened read-only, so its tables cannot be created.", path: path)
            }
            let uuid = UUID().uuidString
            do {
                try pool.write { db in try Self.createSchema(db, model: model, uuid: uuid) }
            } catch {
                throw Self.translate(error, path: path, doing: "create the store's tables")
            }
            self.identity = StoreIdentity(uuid: uuid)
            self.entityNumbers = model.entities.map { Int64($0.index + 1) }
        }
    }

    // MARK: Opening

    private static func validateLocation(path: String, readOnly: Bool) throws(ManagedContextError) {
        let dir = (path as NSString).deletingLastPathComponent
        let directory = dir.isEmpty ? "." : dir
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDir) else {
            throw ManagedContextError(.directoryMissing, "The store's directory \(directory) does not exist. Create it first, or choose another store path.", path: path)
        }
        guard isDir.boolValue else {
            throw ManagedContextError(.directoryMissing, "\(directory) is not a directory, so the store cannot live in it. Choose another store path.", path: path)
        }
        if !readOnly && access(directory, W_OK) != 0 {
            throw ManagedContextError(.directoryUnwritable, "The store's directory \(directory) is not writable (SQLite needs to create the -wal and -shm files there). Fix its permissions, or open the store read-only.", path: path)
        }
        var fileIsDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &fileIsDir), fileIsDir.boolValue {
            throw ManagedContextError(.notAStore, "The store path is a directory, not a file. Name a .sqlite file inside it.", path: path)
        }
    }

    private static func fileSize(_ path: String) -> Int64 {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// True for a zero-byte store file whose `-wal` is missing or empty: an empty
    /// database. A zero-byte file next to a `-wal` that holds pages is refused:
    /// whether those pages belong to it cannot be told.
    private static func isEmptyDatabaseFile(path: String, readOnly: Bool) throws(ManagedContextError) -> Bool {
        guard fileSize(path) == 0 else { return false }
        if fileSize(path + "-wal") > 0 {
            throw ManagedContextError(.notAStore, "The store file is empty but its -wal file is not, so the pages in the -wal cannot be matched to a database. Restore the store from a copy, or delete both files to start a new store.", path: path)
        }
        if readOnly {
            throw ManagedContextError(.schemaMismatch, "The store is empty and was opened read-only, so its tables cannot be created.", path: path)
        }
        return true
    }

    /// Refuses files that are not SQLite before SQLite sees them, so nothing is
    /// ever written into them: another format, or one cut short.
    private static func validateHeader(path: String) throws(ManagedContextError) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ManagedContextError(.storeOpenFailed, "The store file cannot be read. Check its permissions.", path: path)
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 100)) ?? Data()
        let size = Self.fileSize(path)
        let magic = Array("SQLite format 3".utf8) + [0]
        guard header.count >= 100, Array(header.prefix(16)) == magic else {
            throw ManagedContextError(.notAStore, "The file is not an SQLite database (its first bytes are not the SQLite header). Check the path; nothing was changed.", path: path)
        }
        let bytes = [UInt8](header)
        func be32(_ o: Int) -> UInt32 { bytes[o..<(o + 4)].reduce(0) { $0 << 8 | UInt32($1) } }
        let rawPageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        let pageSize = rawPageSize == 1 ? 65536 : rawPageSize
        guard pageSize >= 512, pageSize & (pageSize - 1) == 0 else {
            throw ManagedContextError(.corruptStore, "The SQLite header is damaged (page size \(rawPageSize)). Restore the store from a copy.", path: path)
        }
        let pageCount = Int64(be32(28))
        let headerCountValid = be32(92) == be32(24) && pageCount > 0
        if size % Int64(pageSize) != 0 || (headerCountValid && size < pageCount * Int64(pageSize)) {
            throw ManagedContextError(.corruptStore, "The store file is cut short (\(size) bytes, the header says \(pageCount) pages of \(pageSize)). Restore it from a copy; nothing was changed.", path: path)
        }
    }

    static func translate(_ error: any Error, path: String, doing: String) -> ManagedContextError {
        if let e = error as? ManagedContextError { return e }
        if let db = error as? DatabaseError {
            let detail = db.message ?? "\(db.resultCode)"
            switch db.resultCode {
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

    /// The layout of an existing store, or nil when the database has no tables
    /// yet. Throws `.schemaMismatch` when it is not a store of this model.
    private static func inspectSchema(_ queue: DatabaseQueue, model: ManagedObjectModel, path: String) throws -> (uuid: String, numbers: [Int64])? {
        try queue.read { db in
            let existing = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            if existing.isEmpty { return nil }
            let tables = Set(existing)
            guard tables.contains("Z_METADATA"), tables.contains("Z_PRIMARYKEY") else {
                let sample = existing.sorted().prefix(5).joined(separator: ", ")
                throw ManagedContextError(.schemaMismatch, "This SQLite database is not a store in Core Data's layout: it has tables (\(sample)) but no Z_METADATA and Z_PRIMARYKEY. Nothing was changed; point to a Core Data store.", path: path)
            }
            let uuid = try String.fetchOne(db, sql: "SELECT Z_UUID FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1") ?? ""
            guard !uuid.isEmpty else {
                throw ManagedContextError(.schemaMismatch, "The store's Z_METADATA has no Z_UUID. Nothing was changed.", path: path)
            }
            var byName: [String: Int64] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY") {
                if let name: String = row["Z_NAME"], let ent: Int64 = row["Z_ENT"] { byName[name] = ent }
            }
            var numbers: [Int64] = []
            for entity in model.entities {
                guard let number = byName[entity.name] else {
                    throw ManagedContextError(.schemaMismatch, "The store has no entity \(entity.name) (its Z_PRIMARYKEY lists \(byName.keys.sorted().joined(separator: ", "))). It was made with another model; open it with the model it was made with.", path: path)
                }
                guard tables.contains(entity.tableName) else {
                    throw ManagedContextError(.schemaMismatch, "The store has no table \(entity.tableName) for entity \(entity.name).", path: path)
                }
                let columns = Set(try db.columns(in: entity.tableName).map { $0.name.uppercased() })
                let needed = ["Z_PK", "Z_ENT", "Z_OPT"] + entity.attributes.map(\.columnName) + entity.toOneRelationships.map(\.columnName)
                for column in needed where !columns.contains(column) {
                    throw ManagedContextError(.schemaMismatch, "The store's table \(entity.tableName) has no column \(column), which the model's \(entity.name) needs. It was made with another model.", path: path)
                }
                numbers.append(number)
            }
            return (uuid, numbers)
        }
    }

    private static func createSchema(_ db: Database, model: ManagedObjectModel, uuid: String) throws {
        for entity in model.entities {
            var columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
            columns += entity.toOneRelationships.map { "\($0.columnName) INTEGER" }
            columns += entity.attributes.map { "\($0.columnName) \($0.attributeType.sqlType)" }
            try db.execute(sql: "CREATE TABLE \(entity.tableName) ( \(columns.joined(separator: ", ")) )")
            for r in entity.toOneRelationships {
                try db.execute(sql: "CREATE INDEX \(entity.tableName)_\(r.columnName)_INDEX ON \(entity.tableName) (\(r.columnName))")
            }
        }
        try db.execute(sql: "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
        for entity in model.entities {
            try db.execute(sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, 0)", arguments: [entity.index + 1, entity.name])
        }
        try db.execute(sql: "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
        try db.execute(sql: "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)", arguments: [uuid, StoreMetadata.plist(model: model, uuid: uuid)])
    }

    // MARK: Reading

    func entityNumber(_ entity: EntityDescription) -> Int64 { entityNumbers[entity.index] }

    private func selectList(_ entity: EntityDescription) -> String {
        (["Z_PK", "Z_OPT"] + entity.attributes.map(\.columnName) + entity.toOneRelationships.map(\.columnName)).joined(separator: ", ")
    }

    /// Decodes the current row of `statement` (columns as `selectList` lays them
    /// out) straight from the SQLite C API: the hot loop of batched fetches and
    /// exports, where GRDB's generic `Row` decoding costs a metadata lookup per value.
    fileprivate func decodeRow(_ statement: SQLiteStatement, entity: EntityDescription) -> RowSnapshot {
        let attributeCount = entity.attributes.count
        // An entity without attributes gets a plain empty array: the unsafe initializer
        // with capacity 0 would write into the shared empty-array storage.
        let values = attributeCount == 0 ? [] : [StoredValue](unsafeUninitializedCapacity: attributeCount) { buffer, count in
            for i in 0..<attributeCount {
                (buffer.baseAddress! + i).initialize(to: StoredValue(statement, CInt(2 + i)))
            }
            count = attributeCount
        }
        var toOne: [ManagedObjectID?] = []
        if !entity.toOneRelationships.isEmpty {
            let fkBase = 2 + attributeCount
            for (j, r) in entity.toOneRelationships.enumerated() {
                let column = CInt(fkBase + j)
                let pk = sqlite3_column_type(statement, column) == SQLITE_NULL ? 0 : sqlite3_column_int64(statement, column)
                toOne.append(pk > 0 ? ManagedObjectID(entity: r.destinationEntity!, store: identity, primaryKey: pk) : nil)
            }
        }
        return RowSnapshot(values: values, toOne: toOne, version: sqlite3_column_int64(statement, 1))
    }

    private func decodeRow(_ row: Row, entity: EntityDescription) -> RowSnapshot {
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
    func fetch(_ f: ResolvedFetch, applyWindow: Bool, loadValues: Bool) throws(ManagedContextError) -> [FetchedRow] {
        let (whereSQL, arguments) = SQLCompiler.compile(f.predicate, entity: f.entity, store: identity)
        var sql = "SELECT \(loadValues ? selectList(f.entity) : "Z_PK") FROM \(f.entity.tableName) WHERE \(whereSQL)"
        sql += SQLCompiler.orderBy(f.sorts, entity: f.entity)
        if applyWindow && (f.limit > 0 || f.offset > 0) {
            sql += " LIMIT \(f.limit > 0 ? f.limit : -1) OFFSET \(f.offset)"
        }
        return try read("fetch \(f.entity.name)") { db in
            var rows: [FetchedRow] = []
            let statement = try db.cachedStatement(sql: sql)
            let cursor = try Row.fetchCursor(statement, arguments: StatementArguments(arguments))
            let raw = statement.sqliteStatement
            while try cursor.next() != nil {
                let id = ManagedObjectID(entity: f.entity, store: identity, primaryKey: sqlite3_column_int64(raw, 0))
                rows.append(FetchedRow(id: id, snapshot: loadValues ? decodeRow(raw, entity: f.entity) : nil))
            }
            return rows
        }
    }

    func count(_ f: ResolvedFetch) throws(ManagedContextError) -> Int {
        let (whereSQL, arguments) = SQLCompiler.compile(f.predicate, entity: f.entity, store: identity)
        var sql = "SELECT COUNT(*) FROM (SELECT Z_PK FROM \(f.entity.tableName) WHERE \(whereSQL)"
        if f.limit > 0 || f.offset > 0 { sql += " LIMIT \(f.limit > 0 ? f.limit : -1) OFFSET \(f.offset)" }
        sql += ")"
        return try read("count \(f.entity.name)") { db in
            try Int.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)) ?? 0
        }
    }

    /// The rows with these primary keys; missing ones are left out.
    func snapshots(entity: EntityDescription, primaryKeys: [Int64]) throws(ManagedContextError) -> [Int64: RowSnapshot] {
        if primaryKeys.isEmpty { return [:] }
        return try read("load \(entity.name) rows") { db in
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

    /// The rows matching a fetch, values loaded, in SQL order, read one at a time
    /// by `RowStream.next()`. One query, stepped on the caller's thread, on a
    /// read-only connection of its own: the caller may use the store between rows
    /// (fire a fault, fetch), which it could not inside a pool read (GRDB's reads
    /// are not reentrant). The statement reads one snapshot, from its first row.
    func rowStream(_ f: ResolvedFetch, applyWindow: Bool) throws(ManagedContextError) -> RowStream {
        let (whereSQL, arguments) = SQLCompiler.compile(f.predicate, entity: f.entity, store: identity)
        var sql = "SELECT \(selectList(f.entity)) FROM \(f.entity.tableName) WHERE \(whereSQL)" + SQLCompiler.orderBy(f.sorts, entity: f.entity)
        if applyWindow && (f.limit > 0 || f.offset > 0) { sql += " LIMIT \(f.limit > 0 ? f.limit : -1) OFFSET \(f.offset)" }
        let doing = "fetch \(f.entity.name)"
        let connection = try StreamConnection(path: url.path, doing: doing)
        do {
            let statement = try connection.prepare(sql, arguments, doing: doing)
            return RowStream(store: self, entity: f.entity, connection: connection, statement: statement, doing: doing)
        } catch {
            connection.close()
            throw error
        }
    }

    /// An open `rowStream`: closes its statement and connection when done or dropped.
    final class RowStream {
        private let store: SQLiteStore
        private let entity: EntityDescription
        private let connection: StreamConnection
        private var statement: OpaquePointer?
        private let doing: String

        fileprivate init(store: SQLiteStore, entity: EntityDescription, connection: StreamConnection, statement: OpaquePointer, doing: String) {
            self.store = store
            self.entity = entity
            self.connection = connection
            self.statement = statement
            self.doing = doing
        }

        /// The next row, or nil at the end.
        func next() throws(ManagedContextError) -> FetchedRow? {
            guard let statement else { return nil }
            let rc = sqlite3_step(statement)
            guard rc == SQLITE_ROW else {
                close()
                if rc == SQLITE_DONE { return nil }
                throw connection.error(rc, doing: doing)
            }
            let id = ManagedObjectID(entity: entity, store: store.identity, primaryKey: sqlite3_column_int64(statement, 0))
            return FetchedRow(id: id, snapshot: store.decodeRow(statement, entity: entity))
        }

        func close() {
            guard let statement else { return }
            sqlite3_finalize(statement)
            self.statement = nil
            connection.close()
        }

        deinit { close() }
    }

    /// The read-only SQLite connection of one `rowStream`.
    fileprivate struct StreamConnection {
        let handle: OpaquePointer
        let path: String

        init(path: String, doing: String) throws(ManagedContextError) {
            var handle: OpaquePointer?
            let rc = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
            guard rc == SQLITE_OK, let handle else {
                let message = handle.map { String(cString: sqlite3_errmsg($0)) }
                sqlite3_close_v2(handle)
                throw SQLiteStore.translate(DatabaseError(resultCode: ResultCode(rawValue: rc), message: message), path: path, doing: doing)
            }
            self.handle = handle
            self.path = path
            sqlite3_busy_timeout(handle, 10_000)
        }

        func prepare(_ sql: String, _ arguments: [DatabaseValue], doing: String) throws(ManagedContextError) -> OpaquePointer {
            var statement: OpaquePointer?
            let rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
            guard rc == SQLITE_OK, let statement else { throw error(rc, doing: doing) }
            for (i, value) in arguments.enumerated() {
                let index = CInt(i + 1)
                let bound: CInt
                switch value.storage {
                case .null: bound = sqlite3_bind_null(statement, index)
                case .int64(let v): bound = sqlite3_bind_int64(statement, index, v)
                case .double(let v): bound = sqlite3_bind_double(statement, index, v)
                case .string(let v): bound = sqlite3_bind_text(statement, index, v, -1, Self.transient)
                case .blob(let v):
                    bound = v.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, CInt($0.count), Self.transient) }
                }
                guard bound == SQLITE_OK else {
                    sqlite3_finalize(statement)
                    throw error(bound, doing: doing)
                }
            }
            return statement
        }

        func error(_ rc: CInt, doing: String) -> ManagedContextError {
            let message = String(cString: sqlite3_errmsg(handle))
            return SQLiteStore.translate(DatabaseError(resultCode: ResultCode(rawValue: rc), message: message), path: path, doing: doing)
        }

        func close() { sqlite3_close_v2(handle) }

        /// SQLITE_TRANSIENT: SQLite copies the bound value.
        private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
    }

    private func read<T>(_ what: String, _ body: (Database) throws -> T) throws(ManagedContextError) -> T {
        do {
            return try pool.read(body)
        } catch {
            throw Self.translate(error, path: url.path, doing: what)
        }
    }

    // MARK: Writing

    /// Reserves primary keys in Z_PRIMARYKEY, for `obtainPermanentIDs(for:)`.
    func reservePrimaryKeys(entity: EntityDescription, count: Int) throws(ManagedContextError) -> [Int64] {
        guard !isReadOnly else {
            throw ManagedContextError(.readOnlyStore, "The store was opened read-only; permanent IDs need a write.", path: url.path)
        }
        do {
            return try pool.write { db in
                let first = try nextPrimaryKey(db, entity: entity)
                let keys = (0..<Int64(count)).map { first + $0 }
                try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [first + Int64(count) - 1, entityNumber(entity)])
                return keys
            }
        } catch {
            throw Self.translate(error, path: url.path, doing: "reserve permanent IDs")
        }
    }

    private func nextPrimaryKey(_ db: Database, entity: EntityDescription) throws -> Int64 {
        let zmax = try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [entityNumber(entity)]) ?? 0
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
            return try pool.write { db in try applySave(db, changes) }
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
        let maxKeys = try assignPrimaryKeys(db, changes.inserts, into: &result)
        for insert in changes.inserts { try insertRow(db, insert, into: &result) }
        for update in changes.updates {
            try updateRow(db, update, conflicting: storeRows, policy: changes.mergePolicy, into: &result)
        }
        for delete in changes.deletes {
            guard let pk = delete.id.primaryKey else { continue }
            if let store = storeRows[delete.id], changes.mergePolicy == .rollback {
                result.discarded[delete.id] = store
                continue
            }
            try db.execute(sql: "DELETE FROM \(delete.id.entity.tableName) WHERE Z_PK = ?", arguments: [pk])
        }
        for (index, key) in maxKeys {
            let entity = model.entities[index]
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = MAX(IFNULL(Z_MAX, 0), ?) WHERE Z_ENT = ?", arguments: [key, entityNumber(entity)])
        }
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
        if !conflicts.isEmpty && changes.mergePolicy == .error {
            throw ManagedContextError(
                .mergeConflict,
                "Save failed: \(conflicts.count) object(s) changed in the store since this context loaded them (optimistic locking). Merge the other save first, refresh the objects, or set a merge policy.\n  " + conflicts.map(\.description).joined(separator: "\n  "),
                path: url.path, conflicts: conflicts)
        }
        return storeRows
    }

    /// Gives each inserted object its permanent key (its own, when it already has
    /// one); returns the highest key used per entity index, for Z_PRIMARYKEY.
    private func assignPrimaryKeys(_ db: Database, _ inserts: [StoreChanges.Insert], into result: inout StoreSaveResult) throws -> [Int: Int64] {
        var nextKey: [Int: Int64] = [:]
        var maxKey: [Int: Int64] = [:]
        for ins in inserts {
            let entity = ins.id.entity
            let pk: Int64
            if let existing = ins.id.primaryKey {
                pk = existing
            } else {
                if nextKey[entity.index] == nil { nextKey[entity.index] = try nextPrimaryKey(db, entity: entity) }
                pk = nextKey[entity.index]!
                nextKey[entity.index] = pk + 1
            }
            maxKey[entity.index] = max(maxKey[entity.index] ?? 0, pk)
            result.permanentIDs[ins.id] = ManagedObjectID(entity: entity, store: identity, primaryKey: pk)
        }
        return maxKey
    }

    /// The primary key a to-one relationship stores for `id`: its own, or the one
    /// this save gave it.
    private func foreignKey(_ id: ManagedObjectID?, from entity: EntityDescription, _ r: RelationshipDescription, _ result: StoreSaveResult) throws -> Int64? {
        guard let id else { return nil }
        if let pk = id.primaryKey { return pk }
        if let permanent = result.permanentIDs[id] { return permanent.primaryKey }
        throw ManagedContextError(.saveFailed, "\(entity.name).\(r.name) points to \(id), an object that is not saved in this save or before (is it in another context?). Save the destination first, in the same context.", path: url.path)
    }

    private func insertRow(_ db: Database, _ ins: StoreChanges.Insert, into result: inout StoreSaveResult) throws {
        let entity = ins.id.entity
        let permanent = result.permanentIDs[ins.id]!
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        var args: [DatabaseValue] = [permanent.key.databaseValue, entityNumber(entity).databaseValue, 1.databaseValue]
        for a in entity.attributes {
            columns.append(a.columnName)
            args.append(ins.values[a.index].databaseValue)
        }
        var toOne: [ManagedObjectID?] = []
        for r in entity.toOneRelationships {
            columns.append(r.columnName)
            let fk = try foreignKey(ins.toOne[r.toOneIndex], from: entity, r, result)
            args.append(fk?.databaseValue ?? .null)
            toOne.append(fk.map { ManagedObjectID(entity: r.destinationEntity!, store: identity, primaryKey: $0) })
        }
        let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        try db.execute(sql: "INSERT INTO \(entity.tableName) (\(columns.joined(separator: ", "))) VALUES (\(marks))", arguments: StatementArguments(args))
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
        _ db: Database, _ u: StoreChanges.Update, conflicting storeRows: StoreRows, policy: MergePolicy,
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
        try db.execute(sql: "UPDATE \(entity.tableName) SET \(sets.joined(separator: ", ")) WHERE Z_PK = ?", arguments: StatementArguments(args))
        if db.changesCount == 0 {
            result.discarded[u.id] = .some(nil)
            return
        }
        result.written[u.id] = RowSnapshot(values: row.values, toOne: resolvedToOne, version: newVersion)
    }

    /// Applies the merge policy to an update whose row changed in the store since
    /// it was loaded. Returns false when the update is dropped (rollback).
    private func resolveConflict(
        _ u: StoreChanges.Update, store: RowSnapshot, policy: MergePolicy, row: inout UpdateRow, result: inout StoreSaveResult
    ) -> Bool {
        let entity = u.id.entity
        row.baseVersion = store.version
        func differs(_ a: StoredValue, _ b: StoredValue) -> Bool { StoredValue.compare(a, b) != 0 }
        switch policy {
        case .rollback:
            result.discarded[u.id] = store
            return false
        case .overwrite:
            if let loaded = u.snapshot {
                let overwritten = entity.attributes.filter {
                    differs(loaded.values[$0.index], store.values[$0.index]) && differs(row.values[$0.index], store.values[$0.index])
                }
                if !overwritten.isEmpty { result.lostUpdates.append(LostUpdate(id: u.id, attributes: overwritten.map(\.name), fromVersion: loaded.version)) }
            }
        case .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .error:
            let objectWins = policy == .mergeByPropertyObjectTrump
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

    /// Writes every page of the WAL into the main file (used before copying a store).
    func checkpoint() throws(ManagedContextError) {
        do {
            try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        } catch {
            throw Self.translate(error, path: url.path, doing: "checkpoint")
        }
    }

    /// Writes the WAL back into the main file and closes every connection.
    func close() {
        if !isReadOnly { try? checkpoint() }
        try? pool.close()
    }
}

extension StoredValue {
    /// Column `index` of the current row of `statement`.
    @inline(__always)
    init(_ statement: SQLiteStatement, _ index: CInt) {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: self = .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: self = .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, index))
            if let bytes = sqlite3_column_text(statement, index) {
                self = .text(String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self))
            } else {
                self = .text("")
            }
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, index))
            if let bytes = sqlite3_column_blob(statement, index), count > 0 {
                self = .blob(Data(bytes: bytes, count: count))
            } else {
                self = .blob(Data())
            }
        default: self = .null
        }
    }

    init(_ dbValue: DatabaseValue) {
        switch dbValue.storage {
        case .null: self = .null
        case .int64(let i): self = .integer(i)
        case .double(let d): self = .real(d)
        case .string(let s): self = .text(s)
        case .blob(let b): self = .blob(b)
        }
    }

    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let i): i.databaseValue
        case .real(let d): d.databaseValue
        case .text(let s):
            // GRDB binds a String NUL-terminated, which would cut the value at an
            // embedded NUL; such text is stored as its UTF-8 bytes instead, and
            // reads back as the same String (String.fromStored decodes BLOBs).
            s.utf8.contains(0) ? Data(s.utf8).databaseValue : s.databaseValue
        case .blob(let b): b.databaseValue
        }
    }
}

/// Z_METADATA's Z_PLIST: a binary property list as Core Data writes it.
enum StoreMetadata {
    static func plist(model: ManagedObjectModel, uuid: String) -> Data {
        var hashes: [String: Data] = [:]
        for e in model.entities {
            let text = e.name + "|" + e.attributes.map { "\($0.name):\($0.attributeType.rawValue)" }.joined(separator: ",")
                + "|" + e.relationships.map { "\($0.name)->\($0.destinationEntityName)" }.joined(separator: ",")
            hashes[e.name] = Data(fnv1a(text))
        }
        let dict: [String: Any] = [
            "NSStoreType": "SQLite",
            "NSStoreUUID": uuid,
            "NSPersistenceFrameworkVersion": 1,
            "NSStoreModelVersionHashesVersion": 3,
            "NSStoreModelVersionHashes": hashes,
            "NSStoreModelVersionIdentifiers": [""],
            "ctxdebugVersion": "1",
        ]
        return (try? PropertyListSerialization.data(fromPropertyList: dict, format: .binary, options: 0)) ?? Data()
    }

    /// A stable 32-byte digest (four FNV-1a lanes); not Core Data's hash.
    private static func fnv1a(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        for lane in 0..<4 {
            var h: UInt64 = 0xcbf2_9ce4_8422_2325 &+ UInt64(lane)
            for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
            for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: h >> (UInt64(i) * 8))) }
        }
        return out
    }
}
