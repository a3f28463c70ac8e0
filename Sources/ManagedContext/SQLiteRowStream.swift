import Foundation
import GRDB
import GRDBSQLite

/// The raw row path: rows stepped and decoded straight from the SQLite C API, for
/// batched fetches and exports, where GRDB's generic `Row` costs a lookup per value.
extension SQLiteStore {
    /// Decodes the current row of `statement` (columns as `selectList` lays them
    /// out) straight from the SQLite C API: the hot loop of batched fetches and
    /// exports, where GRDB's generic `Row` decoding costs a metadata lookup per value.
    func decodeRow(_ statement: SQLiteStatement, entity: EntityDescription) -> RowSnapshot {
        if !entity.rowLayout.isPlain {
            return decodeRow(
                as: entity, in: entity.rowLayout,
                int: { sqlite3_column_type(statement, CInt(2 + $0)) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, CInt(2 + $0)) },
                value: { StoredValue(statement, CInt(2 + $0)) }, version: sqlite3_column_int64(statement, 1))
        }
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


    /// The rows matching a fetch, values loaded, in SQL order, read one at a time
    /// by `RowStream.next()`. One query, stepped on the caller's thread, on a
    /// read-only connection of its own: the caller may use the store between rows
    /// (fire a fault, fetch), which it could not inside a pool read (GRDB's reads
    /// are not reentrant). The statement reads one snapshot, from its first row.
    func rowStream(_ f: ResolvedFetch, applyWindow: Bool) throws(ManagedContextError) -> RowStream {
        let (whereSQL, arguments) = whereClause(f)
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

    /// A prepared statement on a connection of its own, stepped row by row: closes
    /// both when the rows end, on an error, or when dropped.
    final class OpenStatement {
        private let connection: StreamConnection
        private var statement: OpaquePointer?
        private let doing: String

        fileprivate init(connection: StreamConnection, statement: OpaquePointer, doing: String) {
            self.connection = connection
            self.statement = statement
            self.doing = doing
        }

        /// The statement positioned on its next row, or nil at the end.
        func step() throws(ManagedContextError) -> OpaquePointer? {
            guard let statement else { return nil }
            let rc = sqlite3_step(statement)
            guard rc == SQLITE_ROW else {
                close()
                if rc == SQLITE_DONE { return nil }
                throw connection.error(rc, doing: doing)
            }
            return statement
        }

        func close() {
            guard let statement else { return }
            sqlite3_finalize(statement)
            self.statement = nil
            connection.close()
        }

        deinit { close() }
    }

    /// An open `rowStream`.
    final class RowStream {
        private let store: SQLiteStore
        private let entity: EntityDescription
        private let rows: OpenStatement

        fileprivate init(store: SQLiteStore, entity: EntityDescription, connection: StreamConnection, statement: OpaquePointer, doing: String) {
            self.store = store
            self.entity = entity
            self.rows = OpenStatement(connection: connection, statement: statement, doing: doing)
        }

        /// The next row, or nil at the end.
        func next() throws(ManagedContextError) -> FetchedRow? {
            guard let statement = try rows.step() else { return nil }
            if !entity.rowLayout.isPlain {
                let (concrete, snapshot) = store.decodeFetchedRow(statement, fetching: entity)
                return FetchedRow(id: ManagedObjectID(entity: concrete, store: store.identity, primaryKey: sqlite3_column_int64(statement, 0)), snapshot: snapshot)
            }
            let id = ManagedObjectID(entity: entity, store: store.identity, primaryKey: sqlite3_column_int64(statement, 0))
            return FetchedRow(id: id, snapshot: store.decodeRow(statement, entity: entity))
        }

        func close() { rows.close() }
    }

    /// The values of `columns` of the rows matching a fetch, in SQL order, for a
    /// dictionary fetch: `SELECT [DISTINCT] columns`, stepped by `ColumnStream.next`,
    /// on a read-only connection of its own (as `rowStream`).
    func columnStream(_ f: ResolvedFetch, columns: [String], distinct: Bool) throws(ManagedContextError) -> ColumnStream {
        let (whereSQL, arguments) = whereClause(f)
        // DISTINCT rows have no single Z_PK to break ties with: the sorts alone order them.
        let order = !distinct ? SQLCompiler.orderBy(f.sorts, entity: f.entity)
            : f.sorts.isEmpty ? "" : " ORDER BY " + f.sorts.map { SQLCompiler.sortTerm($0, entity: f.entity) }.joined(separator: ", ")
        var sql = "SELECT \(distinct ? "DISTINCT " : "")\(columns.joined(separator: ", ")) FROM \(f.entity.tableName) WHERE \(whereSQL)" + order
        if f.limit > 0 || f.offset > 0 { sql += " LIMIT \(f.limit > 0 ? f.limit : -1) OFFSET \(f.offset)" }
        let doing = "fetch \(f.entity.name) dictionaries"
        let connection = try StreamConnection(path: url.path, doing: doing)
        do {
            let statement = try connection.prepare(sql, arguments, doing: doing)
            return ColumnStream(connection: connection, statement: statement, doing: doing)
        } catch {
            connection.close()
            throw error
        }
    }

    /// An open `columnStream`.
    final class ColumnStream {
        private let rows: OpenStatement

        fileprivate init(connection: StreamConnection, statement: OpaquePointer, doing: String) {
            self.rows = OpenStatement(connection: connection, statement: statement, doing: doing)
        }

        /// Reads the next row's columns into `values` (one per column, in place: a
        /// buffer nobody else holds is reused); false at the end.
        func next(into values: inout [StoredValue]) throws(ManagedContextError) -> Bool {
            guard let statement = try rows.step() else { return false }
            values.withUnsafeMutableBufferPointer { buffer in
                for i in buffer.indices { buffer[i] = StoredValue(statement, CInt(i)) }
            }
            return true
        }

        func close() { rows.close() }
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
