import Foundation
import GRDB

/// Compiles resolved predicates and sorts to SQL. Values are always bound
/// parameters, never spliced into the text.
enum SQLCompiler {
    static func compile(_ p: ResolvedPredicate, entity: EntityDescription, store: StoreIdentity) -> (String, [DatabaseValue]) {
        var args: [DatabaseValue] = []
        var aliases = 0
        let sql = emit(p, entity: entity, store: store, ref: entity.tableName, aliases: &aliases, args: &args)
        return (sql, args)
    }

    /// `ref` names the row being tested (the fetched table, or a subselect's alias);
    /// the typed predicates' unqualified columns resolve to the innermost table, which
    /// is always `ref`'s.
    static func emit(
        _ p: ResolvedPredicate, entity: EntityDescription, store: StoreIdentity, ref: String, aliases: inout Int, args: inout [DatabaseValue]
    ) -> String {
        func emit(_ p: ResolvedPredicate, entity: EntityDescription, store: StoreIdentity, args: inout [DatabaseValue]) -> String {
            SQLCompiler.emit(p, entity: entity, store: store, ref: ref, aliases: &aliases, args: &args)
        }
        switch p {
        case .store(let s):
            return StoreSQL.emit(s, entity: entity, store: store, ref: ref, aliases: &aliases, args: &args)
        case .constant(let b):
            return b ? "1" : "0"
        case .and(let parts):
            if parts.isEmpty { return "1" }
            return "(" + parts.map { emit($0, entity: entity, store: store, args: &args) }.joined(separator: " AND ") + ")"
        case .or(let parts):
            if parts.isEmpty { return "0" }
            return "(" + parts.map { emit($0, entity: entity, store: store, args: &args) }.joined(separator: " OR ") + ")"
        case .not(let inner):
            // NOT over a comparison with NULL must stay two-valued, as in memory.
            return "(NOT IFNULL(" + emit(inner, entity: entity, store: store, args: &args) + ", 0))"
        case .compare(let i, let op, let value):
            return comparison(entity.attributes[i].columnName, op, value, args: &args)
        case .inList(let i, let values):
            let nonNull = values.filter { !$0.isNull }
            if nonNull.isEmpty { return "0" }
            args += nonNull.map(\.databaseValue)
            return "(\(entity.attributes[i].columnName) IN (\(Array(repeating: "?", count: nonNull.count).joined(separator: ","))))"
        case .beginsWith(let i, let prefix):
            let column = entity.attributes[i].columnName
            // Case-sensitive and byte-exact, unlike LIKE; compared as bytes (a BLOB),
            // since SQLite's text functions stop at a NUL and memory does not.
            let bytes = Data(prefix.utf8)
            // An empty BLOB binds as NULL: every text begins with "".
            if bytes.isEmpty { return "(typeof(\(column)) = 'text')" }
            args.append(bytes.count.databaseValue)
            args.append(bytes.databaseValue)
            return "(typeof(\(column)) = 'text' AND substr(CAST(\(column) AS BLOB), 1, ?) = ?)"
        case .contains(let i, let text):
            let column = entity.attributes[i].columnName
            if text.isEmpty { return "(typeof(\(column)) = 'text')" }
            args.append(Data(text.utf8).databaseValue)
            return "(typeof(\(column)) = 'text' AND instr(CAST(\(column) AS BLOB), ?) > 0)"
        case .toOne(let slot, let id, let equal):
            let column = entity.toOneRelationships[slot].columnName
            guard let id else { return equal ? "(\(column) IS NULL)" : "(\(column) IS NOT NULL)" }
            guard let pk = id.primaryKey, id.store == store else {
                // A temporary object has no row yet: nothing in the store points to it.
                return equal ? "0" : "1"
            }
            args.append(pk.databaseValue)
            return equal ? "(\(column) = ?)" : "(\(column) <> ? OR \(column) IS NULL)"
        }
    }

    /// A column compared with a value: `IS NULL` for nil (two-valued, as in memory), and
    /// `<>` true for a NULL column, as Core Data's in-memory `!=` is.
    static func comparison(_ column: String, _ op: ComparisonOperator, _ value: StoredValue, args: inout [DatabaseValue]) -> String {
        if value.isNull {
            switch op {
            case .equal: return "(\(column) IS NULL)"
            case .notEqual: return "(\(column) IS NOT NULL)"
            default: return "0"
            }
        }
        args.append(value.databaseValue)
        switch op {
        case .equal: return "(\(column) = ?)"
        case .notEqual: return "(\(column) <> ? OR \(column) IS NULL)"
        case .less: return "(\(column) < ?)"
        case .lessOrEqual: return "(\(column) <= ?)"
        case .greater: return "(\(column) > ?)"
        case .greaterOrEqual: return "(\(column) >= ?)"
        }
    }

    static func orderBy(_ sorts: [ResolvedSort], entity: EntityDescription) -> String {
        " ORDER BY " + (sorts.map { sortTerm($0, entity: entity) } + ["Z_PK ASC"]).joined(separator: ", ")
    }

    /// One sort's `ORDER BY` term: its column (a subselect through to-one
    /// relationships), collation and direction.
    static func sortTerm(_ s: ResolvedSort, entity: EntityDescription) -> String {
        let collation = s.comparator.map { " COLLATE \($0.rawValue)" } ?? ""
        let column: String
        if let owner = s.steps.last?.destinationEntity {
            var aliases = 0
            column = StoreSQL.columnSQL(owner.attributes[s.attribute].columnName, through: s.steps, ref: entity.tableName, aliases: &aliases)
        } else {
            column = entity.attributes[s.attribute].columnName
        }
        return "\(column)\(collation) \(s.ascending ? "ASC" : "DESC")"
    }
}
