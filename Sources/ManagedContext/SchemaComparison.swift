import Foundation
import GRDB

/// An existing store compared with a model, as Core Data compares a store's entity
/// version hashes with the model's before it opens the store. Here the store's own
/// schema is compared: its Z_PRIMARYKEY entities, their tables and columns (names and
/// declared types), and the entity numbers the rows carry.
///
/// The differences fall in three kinds:
/// - `changes`: what Core Data's lightweight migration infers and makes in place
///   (entities added or removed; attributes and to-one relationships added or removed,
///   a new mandatory attribute only with a default value or no rows to fill);
/// - `blockers`: differences no inferred mapping can bridge (a column's type changed, a
///   mandatory attribute added without a default to a table that has rows);
/// - `damage`: a store whose own bookkeeping disagrees with itself (numbering, an
///   inheritance tree this runtime does not store); no migration is tried.
struct SchemaComparison {
    enum Change {
        case addEntity(EntityDescription)
        case removeEntity(name: String, table: String)
        /// An entity renamed with a renaming identifier: its table keeps its rows.
        case renameEntity(from: String, table: String, to: EntityDescription)
        case addColumn(table: String, column: String, type: String, fill: StoredValue, indexed: Bool)
        case removeColumn(table: String, column: String)
        /// An attribute renamed with a renaming identifier: its column keeps its values.
        case renameColumn(table: String, from: String, to: String)
        /// A many-to-many relationship's join table the store lacks.
        case addJoinTable(JoinTable)
    }

    let uuid: String
    private(set) var changes: [Change] = []
    private(set) var blockers: [String] = []
    private(set) var damage: [String] = []
    /// Each model entity's Z_ENT in the store, by entity index (when it has one).
    private(set) var numbers: [Int64] = []

    var matches: Bool { changes.isEmpty && blockers.isEmpty && damage.isEmpty }

    init(layout: StoreLayout, model: ManagedObjectModel, db: Database) throws {
        uuid = layout.uuid
        let byName = checkPrimaryKeys(layout)
        let namesByNumber = Dictionary(layout.primaryKeys.map { ($0.entityNumber, $0.name) }, uniquingKeysWith: { a, _ in a })
        let modelNames = Set(model.entities.map(\.name))
        // Core Data's renaming identifier: a new entity that was an old one, by name.
        var renamed: [String: String] = [:]
        for entity in model.entities where byName[entity.name] == nil {
            if let old = entity.renamingIdentifier, old != entity.name, byName[old] != nil, !modelNames.contains(old) { renamed[old] = entity.name }
        }
        for row in layout.primaryKeys where !modelNames.contains(row.name) && renamed[row.name] == nil {
            if row.superNumber != 0 {
                // Its rows live in its root's table: dropping them is a change to a tree.
                blockers.append("the store keeps the subentity \(row.name), which the model does not have; an inferred migration here does not reshape an inheritance tree")
            } else {
                changes.append(.removeEntity(name: row.name, table: "Z" + row.name.uppercased()))
            }
        }
        for entity in model.entities {
            let storedName = renamed.first { $0.value == entity.name }?.key ?? entity.name
            try compare(entity, storedName: storedName, layout: layout, byName: byName, namesByNumber: namesByNumber, db: db)
        }
        compareJoinTables(model, layout: layout, byName: byName)
        // Renames first: the column changes name the new tables.
        changes = changes.filter(Self.isRename) + changes.filter { !Self.isRename($0) }
    }

    /// Z_PRIMARYKEY's rows by entity name; an entity or a number listed twice, or a
    /// parent number no entity has, is damage.
    private mutating func checkPrimaryKeys(_ layout: StoreLayout) -> [String: StoreLayout.PrimaryKeyRow] {
        var byName: [String: StoreLayout.PrimaryKeyRow] = [:]
        var seenNumbers: Set<Int64> = []
        for row in layout.primaryKeys {
            if byName.updateValue(row, forKey: row.name) != nil {
                damage.append("Z_PRIMARYKEY lists the entity \(row.name) twice")
            }
            if !seenNumbers.insert(row.entityNumber).inserted {
                damage.append("Z_PRIMARYKEY gives the number \(row.entityNumber) to two entities")
            }
        }
        let entityNumbers = Set(layout.primaryKeys.map(\.entityNumber))
        for row in layout.primaryKeys where row.superNumber != 0 && !entityNumbers.contains(row.superNumber) {
            damage.append("Z_PRIMARYKEY gives \(row.name) the parent entity number \(row.superNumber), which no entity has")
        }
        return byName
    }

    /// One model entity against the store's entity of `storedName` (its own name, or the
    /// one it was renamed from): its number, its place in a tree, its table's columns.
    private mutating func compare(
        _ entity: EntityDescription, storedName: String, layout: StoreLayout, byName: [String: StoreLayout.PrimaryKeyRow],
        namesByNumber: [Int64: String], db: Database
    ) throws {
        guard let row = byName[storedName] else {
            numbers.append(0)
            if entity.superentity == nil {
                changes.append(.addEntity(entity))
            } else if byName[entity.rootEntity.name] != nil {
                blockers.append("the model adds the subentity \(entity.name) to \(entity.rootEntity.name)'s inheritance tree, which the store has; an inferred migration here does not reshape an inheritance tree")
            }
            return
        }
        numbers.append(row.entityNumber)
        let storedParent = row.superNumber == 0 ? nil : namesByNumber[row.superNumber]
        if storedParent != entity.superentity?.name {
            blockers.append(
                "\(entity.name) inherits from \(storedParent ?? "no entity") in the store but from \(entity.superentity?.name ?? "no entity") in the model; an inferred migration here does not reshape an inheritance tree")
            return
        }
        // A subentity's rows and columns are in its root's table, compared with the root.
        if entity.superentity != nil { return }
        let table = "Z" + storedName.uppercased()
        guard let columns = layout.tables[table] else {
            damage.append("Z_PRIMARYKEY lists \(storedName) but the store has no table \(table)")
            return
        }
        if storedName != entity.name { changes.append(.renameEntity(from: storedName, table: table, to: entity)) }
        try compareColumns(entity: entity, columns: columns, db: db, table: table)
        let treeNumbers = Set([row.entityNumber] + entity.selfAndDescendants.dropFirst().compactMap { byName[$0.name]?.entityNumber })
        if let first = try StoreLayout.firstEntityNumber(db, table: table), !treeNumbers.contains(first) {
            damage.append("the rows of \(table) carry Z_ENT \(first), but Z_PRIMARYKEY numbers \(storedName) \(row.entityNumber)")
        }
    }

    /// Many-to-many join tables, named from the entity numbers (Core Data's `Z_<n><NAME>`).
    private mutating func compareJoinTables(_ model: ManagedObjectModel, layout: StoreLayout, byName: [String: StoreLayout.PrimaryKeyRow]) {
        var storedJoinNames: [String: [String]] = [:]
        for entity in model.entities {
            for r in entity.relationships {
                guard let side = r.join, let inverse = r.inverseRelationship, let destination = r.destinationEntity,
                    let na = byName[EntityTree.declaring(r, on: entity).name]?.entityNumber,
                    let nb = byName[EntityTree.declaring(inverse, on: destination).name]?.entityNumber
                else { continue }
                storedJoinNames[side.table.name, default: []] += ["Z_\(na)\(r.name.uppercased())", "Z_\(nb)\(inverse.name.uppercased())"]
            }
        }
        for table in model.joinTables {
            guard let columns = layout.tables[table.name] else {
                // The store numbers its entities otherwise: its join table has another name.
                if let other = storedJoinNames[table.name]?.first(where: { layout.tables[$0] != nil }) {
                    blockers.append("the store keeps the links of \(table.name) in \(other), named from its own entity numbers; renaming a join table is not supported")
                } else {
                    changes.append(.addJoinTable(table))
                }
                continue
            }
            let names = Set(columns.map(\.name))
            if !names.contains(table.firstColumn) || !names.contains(table.secondColumn) {
                blockers.append("the join table \(table.name) has the columns \(columns.map(\.name).sorted().joined(separator: ", ")), not \(table.firstColumn) and \(table.secondColumn)")
            }
        }
    }

    private static func isRename(_ change: Change) -> Bool {
        if case .renameEntity = change { return true }
        return false
    }

    /// Compares the columns of `storedTable` (the entity's table, or the table of the
    /// entity it renames) with the attributes and to-one relationships of the entity and
    /// of every entity that inherits from it (they share the table).
    private mutating func compareColumns(entity: EntityDescription, columns: [StoreLayout.Column], db: Database, table storedTable: String) throws {
        let table = entity.tableName
        var stored: [String: String] = [:]
        for c in columns { stored[c.name] = c.type }
        for required in ["Z_PK", "Z_ENT", "Z_OPT"] where stored[required] == nil {
            damage.append("the table \(table) has no \(required) column")
        }
        var expected: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
        let tree = entity.selfAndDescendants
        let modelColumns = Set(tree.flatMap { e in e.attributes.map(\.columnName) + e.toOneRelationships.map(\.columnName) })
        var hasRows: Bool?
        func tableHasRows() throws -> Bool {
            if let hasRows { return hasRows }
            let found = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(storedTable))") ?? false
            hasRows = found
            return found
        }
        for (owner, a) in tree.flatMap({ e in e.attributes.map { (e, $0) } }) where !expected.contains(a.columnName) {
            let entity = owner
            expected.insert(a.columnName)
            if let type = stored[a.columnName] {
                if Self.family(type) != Self.family(a.attributeType.sqlType) {
                    blockers.append("\(entity.name).\(a.name) is stored as \(type) but the model makes it \(a.attributeType) (\(a.attributeType.sqlType)); an inferred migration does not change a type")
                }
            } else if let old = a.renamingIdentifier.map({ "Z" + $0.uppercased() }), let type = stored[old], !modelColumns.contains(old) {
                // Core Data's renaming identifier: the old attribute's column, renamed.
                expected.insert(old)
                if Self.family(type) != Self.family(a.attributeType.sqlType) {
                    blockers.append("\(entity.name).\(a.name) renames \(old), stored as \(type), but the model makes it \(a.attributeType); an inferred migration does not change a type")
                } else {
                    changes.append(.renameColumn(table: table, from: old, to: a.columnName))
                }
            } else if try !a.isOptional && a.defaultValue.isNull && tableHasRows() {
                blockers.append("\(entity.name).\(a.name) is new and mandatory with no default value, and \(table) has rows that would have none (give it a default, or make it optional)")
            } else {
                changes.append(.addColumn(table: table, column: a.columnName, type: a.attributeType.sqlType, fill: a.defaultValue, indexed: false))
            }
        }
        for (owner, r) in tree.flatMap({ e in e.toOneRelationships.map { (e, $0) } }) where !expected.contains(r.columnName) {
            let entity = owner
            expected.insert(r.columnName)
            if let type = stored[r.columnName] {
                if Self.family(type) != "INTEGER" {
                    blockers.append("\(entity.name).\(r.name) is stored as \(type), not as the INTEGER key of a to-one relationship")
                }
            } else {
                changes.append(.addColumn(table: table, column: r.columnName, type: "INTEGER", fill: .null, indexed: true))
            }
        }
        // A to-one made to-many: its links leave this table, which no column change here does.
        let toMany = Set(tree.flatMap { e in e.relationships.filter(\.isToMany).map(\.columnName) })
        for c in columns where !expected.contains(c.name) {
            if toMany.contains(c.name) {
                blockers.append("\(entity.name)'s relationship in \(c.name) is to-one in the store and to-many in the model; its links move out of \(table), which a migration in place does not do (a migration through the inferred mapping model does)")
                continue
            }
            changes.append(.removeColumn(table: table, column: c.name))
        }
    }

    /// A declared column type reduced to what it means here: Core Data's `VARCHAR`,
    /// `INTEGER`, `FLOAT` (Core Data's `DECIMAL` for Decimal attributes too, which this
    /// runtime keeps as doubles), `TIMESTAMP`, `BLOB`, with SQL's synonyms of each.
    static func family(_ declared: String) -> String {
        let base = declared.uppercased().split(separator: "(").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        switch base {
        case "VARCHAR", "TEXT", "CHAR", "CLOB", "NVARCHAR", "CHARACTER": return "VARCHAR"
        case "INTEGER", "INT", "BIGINT", "SMALLINT", "TINYINT", "BOOLEAN": return "INTEGER"
        case "FLOAT", "REAL", "DOUBLE", "DOUBLE PRECISION", "DECIMAL", "NUMERIC": return "FLOAT"
        default: return base
        }
    }

    /// What differs, one line each, for an error message (at most `limit` lines).
    func summary(limit: Int = 6) -> String {
        var lines = damage + blockers
        for change in changes {
            switch change {
            case .addEntity(let e): lines.append("the model has the entity \(e.name), the store does not")
            case .removeEntity(let name, _): lines.append("the store has the entity \(name), the model does not")
            case .renameEntity(let from, _, let to): lines.append("the model renames the entity \(from) to \(to.name)")
            case .addColumn(let table, let column, _, _, _): lines.append("the model has \(table).\(column), the store does not")
            case .removeColumn(let table, let column): lines.append("the store has \(table).\(column), the model does not")
            case .renameColumn(let table, let from, let to): lines.append("the model renames \(table).\(from) to \(to)")
            case .addJoinTable(let table): lines.append("the model has the many-to-many join table \(table.name), the store does not")
            }
        }
        let shown = lines.prefix(limit).joined(separator: "; ")
        return lines.count > limit ? shown + "; and \(lines.count - limit) more" : shown
    }
}

/// Core Data's lightweight migration, made in place in one transaction: the changes a
/// `SchemaComparison` found, then the entities renumbered in the model's order (Core
/// Data's Z_ENT), Z_PRIMARYKEY rebuilt and Z_METADATA's model hashes rewritten.
enum LightweightMigration {
    static func apply(_ comparison: SchemaComparison, model: ManagedObjectModel, db: Database) throws {
        for change in comparison.changes { try apply(change, db: db) }
        // Renumber: Z_ENT is the entity's place in the model, as in a new store.
        var maxByName: [String: Int64] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY") {
            if let name: String = row["Z_NAME"] { maxByName[name] = row["Z_MAX"] ?? 0 }
        }
        // An inheritance tree's table holds several entities' rows: each number maps alone.
        for root in model.entities where root.superentity == nil {
            let renumbered = root.selfAndDescendants.filter { e in
                let stored = comparison.numbers[e.index]
                return stored != 0 && stored != Int64(e.index + 1)
            }
            if renumbered.isEmpty { continue }
            if root.selfAndDescendants.count == 1 {
                try db.execute(sql: "UPDATE \(root.tableName) SET Z_ENT = ?", arguments: [root.index + 1])
            } else {
                let cases = renumbered.map { "WHEN \(comparison.numbers[$0.index]) THEN \($0.index + 1)" }.joined(separator: " ")
                try db.execute(sql: "UPDATE \(root.tableName) SET Z_ENT = CASE Z_ENT \(cases) ELSE Z_ENT END")
            }
        }
        try renumberHistoryChanges(comparison, model: model, db: db)
        // Core Data's history tables keep their rows (16001…16003) and so their Z_MAX.
        let historyNumbers = HistoryTables.rows.keys.sorted().map(String.init).joined(separator: ", ")
        try db.execute(sql: "DELETE FROM Z_PRIMARYKEY WHERE Z_ENT NOT IN (\(historyNumbers))")
        for entity in model.entities {
            try db.execute(
                sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                arguments: [entity.index + 1, entity.name, entity.superentity.map { $0.index + 1 } ?? 0, maxByName[entity.name] ?? 0])
        }
        try db.execute(
            sql: "UPDATE Z_METADATA SET Z_PLIST = ? WHERE Z_VERSION = (SELECT MIN(Z_VERSION) FROM Z_METADATA)",
            arguments: [StoreMetadata.plist(model: model, uuid: comparison.uuid)])
    }

    /// One change of the schema, as SQL on the store's tables.
    private static func apply(_ change: SchemaComparison.Change, db: Database) throws {
        switch change {
        case .removeEntity(_, let table):
            try db.execute(sql: "DROP TABLE IF EXISTS \(table)")
        case .renameEntity(let from, let table, let entity):
            try db.execute(sql: "ALTER TABLE \(table) RENAME TO \(entity.tableName)")
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_NAME = ? WHERE Z_NAME = ?", arguments: [entity.name, from])
        case .addEntity(let entity):
            try StoreSchema.createTable(db, entity: entity)
        case .removeColumn(let table, let column):
            for index in try indexes(db, table: table, covering: column) {
                try db.execute(sql: "DROP INDEX \(index)")
            }
            try db.execute(sql: "ALTER TABLE \(table) DROP COLUMN \(column)")
        case .renameColumn(let table, let from, let to):
            try db.execute(sql: "ALTER TABLE \(table) RENAME COLUMN \(from) TO \(to)")
        case .addJoinTable(let table):
            for sql in table.createSQL { try db.execute(sql: sql) }
        case .addColumn(let table, let column, let type, let fill, let indexed):
            try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN \(column) \(type)")
            if !fill.isNull {
                try db.execute(sql: "UPDATE \(table) SET \(column) = ?", arguments: [fill.databaseValue])
            }
            if indexed {
                try db.execute(sql: "CREATE INDEX \(table)_\(column)_INDEX ON \(table) (\(column))")
            }
        }
    }

    /// The history's changes name their entity by its Z_ENT (`ACHANGE.ZENTITY`): they follow
    /// the renumbering, and those of a removed entity name none (0), so that they are not
    /// read as another entity's.
    private static func renumberHistoryChanges(_ comparison: SchemaComparison, model: ManagedObjectModel, db: Database) throws {
        guard try db.tableExists("ACHANGE") else { return }
        var renumbered: [Int64: Int64] = [:]
        for entity in model.entities where comparison.numbers[entity.index] != 0 {
            renumbered[comparison.numbers[entity.index]] = Int64(entity.index + 1)
        }
        let stored = try Int64.fetchAll(db, sql: "SELECT Z_ENT FROM Z_PRIMARYKEY").filter { HistoryTables.rows[$0] == nil }
        guard stored.contains(where: { renumbered[$0] != $0 }) else { return }
        let cases = renumbered.sorted { $0.key < $1.key }.map { "WHEN \($0.key) THEN \($0.value)" }.joined(separator: " ")
        try db.execute(sql: cases.isEmpty ? "UPDATE ACHANGE SET ZENTITY = 0" : "UPDATE ACHANGE SET ZENTITY = CASE ZENTITY \(cases) ELSE 0 END")
    }

    /// The indexes of `table` that include `column` (SQLite refuses to drop an indexed column).
    private static func indexes(_ db: Database, table: String, covering column: String) throws -> [String] {
        var names: [String] = []
        for index in try Row.fetchAll(db, sql: "SELECT name FROM pragma_index_list(?)", arguments: [table]) {
            guard let name: String = index["name"], !name.hasPrefix("sqlite_") else { continue }
            let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_index_info(?)", arguments: [name])
            if columns.contains(where: { $0.uppercased() == column }) { names.append(name) }
        }
        return names
    }
}
