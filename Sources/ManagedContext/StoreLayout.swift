import Foundation
import GRDB

/// What an existing store holds, read in one pass: its UUID, Z_PRIMARYKEY, and the
/// columns of each table. Compared with a model by `SchemaComparison`.
struct StoreLayout {
    struct Column {
        /// Upper-cased, as Core Data names columns.
        let name: String
        /// The declared type, upper-cased (`VARCHAR`, `INTEGER`, `TIMESTAMP`, …).
        let type: String
    }
    struct PrimaryKeyRow {
        let entityNumber: Int64
        let name: String
        let superNumber: Int64
        let max: Int64
    }

    let uuid: String
    /// Z_PRIMARYKEY's rows, in Z_ENT order.
    let primaryKeys: [PrimaryKeyRow]
    /// Each table's columns, by upper-cased table name.
    let tables: [String: [Column]]

    /// Reads the layout, or nil when the database has no tables yet. Throws
    /// `.schemaMismatch` when it is not a store in Core Data's layout at all.
    static func read(_ db: Database, path: String) throws -> StoreLayout? {
        let existing = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        if existing.isEmpty { return nil }
        let names = Set(existing.map { $0.uppercased() })
        guard names.contains("Z_METADATA"), names.contains("Z_PRIMARYKEY") else {
            let sample = existing.sorted().prefix(5).joined(separator: ", ")
            throw ManagedContextError(
                .schemaMismatch,
                "This SQLite database is not a store in Core Data's layout: it has tables (\(sample)) but no Z_METADATA and Z_PRIMARYKEY. Nothing was changed; point to a Core Data store.",
                path: path)
        }
        let uuid = try String.fetchOne(db, sql: "SELECT Z_UUID FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1") ?? ""
        guard !uuid.isEmpty else {
            throw ManagedContextError(.schemaMismatch, "The store's Z_METADATA has no Z_UUID. Nothing was changed.", path: path)
        }
        var primaryKeys: [PrimaryKeyRow] = []
        for row in try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT") {
            guard let number: Int64 = row["Z_ENT"], let name: String = row["Z_NAME"] else {
                throw ManagedContextError(.schemaMismatch, "The store's Z_PRIMARYKEY has a row without Z_ENT or Z_NAME, so its entities cannot be told apart. Nothing was changed; restore the store from a copy.", path: path)
            }
            // The persistent history tables' rows (16001…16003) are no entities of the model.
            if HistoryTables.isHistoryRow(number: number, name: name) { continue }
            primaryKeys.append(PrimaryKeyRow(entityNumber: number, name: name, superNumber: row["Z_SUPER"] ?? 0, max: row["Z_MAX"] ?? 0))
        }
        var tables: [String: [Column]] = [:]
        for table in existing {
            tables[table.uppercased()] = try db.columns(in: table).map { Column(name: $0.name.uppercased(), type: $0.type.uppercased()) }
        }
        return StoreLayout(uuid: uuid, primaryKeys: primaryKeys, tables: tables)
    }

    /// The first row's Z_ENT of a table, to check that the rows carry the number
    /// Z_PRIMARYKEY gives their entity (one row: a scan would cost a read of the table).
    static func firstEntityNumber(_ db: Database, table: String) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT Z_ENT FROM \(table) LIMIT 1")
    }
}
