import Foundation
import GRDBSQLite

/// Writes a store as Core Data lays it out, through the SQLite C API, and leaves
/// every row in the -wal file, as a seed store does: the files are copied while
/// the writing connection is still open and nothing was checkpointed.
enum CoreDataFixture {
    static let uuid = "6F1E5C3A-0B1D-4C2E-9A7F-3D2B1C0E9F8A"

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// With `extraColumn`, ZSAMPLE has a column ZEXTRA ("kept" in every row) that the
    /// test model does not declare: a store made with a model that had one more
    /// attribute.
    static func write(at path: String, rows: Int, reference: Date, extraColumn: Bool = false) throws {
        let scratch = path + ".writing"
        var db: OpaquePointer?
        guard sqlite3_open(scratch, &db) == SQLITE_OK, let db else { throw Failure(description: "open failed") }
        defer {
            sqlite3_close(db)
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: scratch + suffix) }
        }
        func exec(_ sql: String) throws {
            var err: UnsafeMutablePointer<CChar>?
            if sqlite3_exec(db, sql, nil, nil, &err) != SQLITE_OK {
                let message = err.map { String(cString: $0) } ?? "?"
                sqlite3_free(err)
                throw Failure(description: "\(message) in \(sql)")
            }
        }
        try exec("PRAGMA journal_mode=WAL")
        try exec("PRAGMA wal_autocheckpoint=0")
        // Entity numbers differ from ours on purpose: Core Data's model had more entities.
        try exec("CREATE TABLE ZSAMPLE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZSMALL INTEGER, ZMEDIUM INTEGER, ZLARGE INTEGER, ZFLAG INTEGER, ZWHEN TIMESTAMP, ZRATIO FLOAT, ZNAME VARCHAR, ZBLOB BLOB\(extraColumn ? ", ZEXTRA VARCHAR" : "") )")
        try exec("CREATE TABLE ZPLACE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZOWNER INTEGER, ZTITLE VARCHAR )")
        try exec("CREATE TABLE ZVISIT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZRATING INTEGER, ZPLACE INTEGER, ZNOTE VARCHAR )")
        try exec("CREATE TABLE ZPERSON ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZHOME INTEGER, ZNAME VARCHAR )")
        try exec("CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
        try exec("CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
        try exec("CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)")
        try exec("INSERT INTO Z_MODELCACHE VALUES (x'00')")
        try exec("INSERT INTO Z_PRIMARYKEY VALUES (7, 'Sample', 0, \(rows + 9)), (8, 'Place', 0, 0), (9, 'Visit', 0, 0), (10, 'Person', 0, 0)")
        try exec("INSERT INTO Z_METADATA VALUES (1, '\(uuid)', x'')")
        try exec("BEGIN")
        var stmt: OpaquePointer?
        let insert =
            extraColumn
            ? "INSERT INTO ZSAMPLE (Z_PK, Z_ENT, Z_OPT, ZSMALL, ZMEDIUM, ZLARGE, ZFLAG, ZWHEN, ZRATIO, ZNAME, ZBLOB, ZEXTRA) VALUES (?, 7, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            : "INSERT INTO ZSAMPLE (Z_PK, Z_ENT, Z_OPT, ZSMALL, ZMEDIUM, ZLARGE, ZFLAG, ZWHEN, ZRATIO, ZNAME, ZBLOB) VALUES (?, 7, 1, ?, ?, ?, ?, ?, ?, ?, ?)"
        guard sqlite3_prepare_v2(db, insert, -1, &stmt, nil) == SQLITE_OK else {
            throw Failure(description: "prepare failed")
        }
        defer { sqlite3_finalize(stmt) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for i in 0..<rows {
            sqlite3_reset(stmt)
            sqlite3_bind_int64(stmt, 1, Int64(i + 10))
            sqlite3_bind_int64(stmt, 2, Int64(i % 5 + 1))
            sqlite3_bind_int64(stmt, 3, Int64(i) * 1000)
            sqlite3_bind_int64(stmt, 4, Int64(i) * 1_000_000_000)
            sqlite3_bind_int64(stmt, 5, i % 2 == 0 ? 1 : 0)
            // TIMESTAMP has NUMERIC affinity: whole seconds come back as integers.
            sqlite3_bind_double(stmt, 6, reference.timeIntervalSinceReferenceDate + Double(i) * 60)
            sqlite3_bind_double(stmt, 7, Double(i) / 4)
            sqlite3_bind_text(stmt, 8, "Spot-\(String(format: "%03d", i))", -1, transient)
            let blob: [UInt8] = [UInt8(i % 256), 0, 255]
            sqlite3_bind_blob(stmt, 9, blob, 3, transient)
            if extraColumn { sqlite3_bind_text(stmt, 10, "kept", -1, transient) }
            guard sqlite3_step(stmt) == SQLITE_DONE else { throw Failure(description: "insert failed") }
        }
        try exec("COMMIT")
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: scratch + suffix, toPath: path + suffix)
        }
    }
}
