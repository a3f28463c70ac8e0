public import Foundation
import GRDB

/// Core Data's SQLite layout: what a store file must be before it is opened
/// (its location, its header), the tables of an existing store (`Z_METADATA`,
/// `Z_PRIMARYKEY`, one `Z<ENTITY>` table per entity) and the making of a new one.
enum StoreSchema {
    static func validateLocation(path: String, readOnly: Bool) throws(ManagedContextError) {
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

    static func fileSize(_ path: String) -> Int64 {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// True for a zero-byte store file whose `-wal` is missing or empty: an empty
    /// database. A zero-byte file next to a `-wal` that holds pages is refused:
    /// whether those pages belong to it cannot be told.
    static func isEmptyDatabaseFile(path: String, readOnly: Bool) throws(ManagedContextError) -> Bool {
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
    static func validateHeader(path: String) throws(ManagedContextError) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ManagedContextError(.storeOpenFailed, "The store file cannot be read. Check its permissions.", path: path)
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 100)) ?? Data()
        let size = fileSize(path)
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

    /// The store at `path` compared with `model`, or nil when the database has no
    /// tables yet. Read through a private copy (see `withPrivateCopy`), so a store that
    /// is then refused is left byte for byte as it was, its -wal and -shm included.
    static func compare(path: String, model: ManagedObjectModel) throws -> SchemaComparison? {
        try withPrivateCopy(path: path) { copy in
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: copy, configuration: configuration)
            defer { try? queue.close() }
            return try queue.read { db in
                guard let layout = try StoreLayout.read(db, path: path) else { return nil }
                return try SchemaComparison(layout: layout, model: model, db: db)
            }
        }
    }

    /// Runs `body` on a private view of the store: the main file hard-linked into a
    /// fresh directory (in the temporary directory, or beside the store when that is
    /// another file system), copied only when it cannot be linked, with a copy of its
    /// `-wal`. SQLite writes to the `-shm` of a WAL database even through a read-only
    /// connection (the readers' marks in its wal-index) and creates a missing `-wal` and
    /// `-shm`; here it does so beside the view. The main file is only read.
    static func withPrivateCopy<T>(path: String, _ body: (String) throws -> T) throws -> T {
        let fm = FileManager.default
        let name = "ctxdebug-inspect-\(UUID().uuidString)"
        let storeDirectory = (path as NSString).deletingLastPathComponent
        let places = [NSTemporaryDirectory(), storeDirectory.isEmpty ? "." : storeDirectory]
        var linked: (directory: String, copy: String)?
        for place in places {
            let directory = (place as NSString).appendingPathComponent(place == places[0] ? name : "." + name)
            guard (try? fm.createDirectory(atPath: directory, withIntermediateDirectories: true)) != nil else { continue }
            let copy = (directory as NSString).appendingPathComponent("store.sqlite")
            if link(path, copy) == 0 {
                linked = (directory, copy)
                break
            }
            try? fm.removeItem(atPath: directory)
        }
        let directory: String
        let copy: String
        if let linked {
            (directory, copy) = linked
        } else {
            directory = (NSTemporaryDirectory() as NSString).appendingPathComponent(name)
            try fm.createDirectory(atPath: directory, withIntermediateDirectories: true)
            copy = (directory as NSString).appendingPathComponent("store.sqlite")
            do {
                try fm.copyItem(atPath: path, toPath: copy)
            } catch {
                try? fm.removeItem(atPath: directory)
                throw error
            }
        }
        defer { try? fm.removeItem(atPath: directory) }
        if fm.fileExists(atPath: path + "-wal") {
            try fm.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
        }
        return try body(copy)
    }

    static func createSchema(_ db: Database, model: ManagedObjectModel, uuid: String) throws {
        for entity in model.entities where entity.superentity == nil { try createTable(db, entity: entity) }
        for table in model.joinTables {
            for sql in table.createSQL { try db.execute(sql: sql) }
        }
        for index in modelIndexes(of: model, entityNumber: { Int64($0.index + 1) }) { try db.execute(sql: index.sql) }
        try db.execute(sql: "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
        for entity in model.entities {
            try db.execute(
                sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)",
                arguments: [entity.index + 1, entity.name, entity.superentity.map { $0.index + 1 } ?? 0])
        }
        try db.execute(sql: "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
        try db.execute(sql: "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)", arguments: [uuid, StoreMetadata.plist(model: model, uuid: uuid)])
    }

    /// A root entity's table `Z<ENTITY>`, with an index on each to-one relationship's key.
    /// The table of an inheritance tree holds the columns of every entity of the tree
    /// (Core Data's single-table inheritance), and an index on Z_ENT.
    static func createTable(_ db: Database, entity: EntityDescription) throws {
        var columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
        var keys: [String] = []
        var seen: Set<String> = []
        for e in entity.selfAndDescendants {
            for r in e.toOneRelationships where seen.insert(r.columnName).inserted {
                columns.append("\(r.columnName) INTEGER")
                keys.append(r.columnName)
            }
        }
        for e in entity.selfAndDescendants {
            for a in e.attributes where seen.insert(a.columnName).inserted { columns.append("\(a.columnName) \(a.attributeType.sqlType)") }
        }
        try db.execute(sql: "CREATE TABLE \(entity.tableName) ( \(columns.joined(separator: ", ")) )")
        for key in keys {
            try db.execute(sql: "CREATE INDEX \(entity.tableName)_\(key)_INDEX ON \(entity.tableName) (\(key))")
        }
        if entity.selfAndDescendants.count > 1 {
            try db.execute(sql: "CREATE INDEX \(entity.tableName)_Z_ENT_INDEX ON \(entity.tableName) (Z_ENT)")
        }
    }

}

/// Z_METADATA's Z_PLIST: a binary property list as Core Data writes it.
@_spi(CoreData) public enum StoreMetadata {
    /// The key ctxdebug adds to the metadata it writes: its stores' version hashes are
    /// its own (`versionHash(of:)`), not Core Data's.
    static let ownVersionKey = "ctxdebugVersion"
    /// The key `metadataForStore(at:)` adds to the metadata of a store Core Data wrote:
    /// the store's path, so compatibility is judged by its schema (Core Data's version
    /// hash function is not documented). Never written into a store.
    static let storePathKey = "ctxdebugStorePath"

    /// An entity's version hash as this runtime writes it: a digest of its name, its
    /// attributes' names and types, and its relationships' names and destinations.
    static func versionHash(of e: EntityDescription) -> Data {
        let text = e.name + "|" + e.attributes.map { "\($0.name):\($0.attributeType.rawValue)" }.joined(separator: ",")
            + "|" + e.relationships.map { "\($0.name)->\($0.destinationEntityName)" }.joined(separator: ",")
        return Data(fnv1a(text))
    }

    /// The digest version hashes are made of, for CoreData's properties' `versionHash`.
    @_spi(CoreData) public static func versionDigest(_ text: String) -> Data { Data(fnv1a(text)) }

    static func plist(model: ManagedObjectModel, uuid: String) -> Data {
        let hashes = model.entityVersionHashesByName
        let dict: [String: Any] = [
            "NSStoreType": "SQLite",
            "NSStoreUUID": uuid,
            "NSPersistenceFrameworkVersion": 1,
            "NSStoreModelVersionHashesVersion": 3,
            "NSStoreModelVersionHashes": hashes,
            "NSStoreModelVersionIdentifiers": [""],
            ownVersionKey: "1",
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
