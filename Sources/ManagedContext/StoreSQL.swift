import Foundation
import GRDB

/// Compiles Core Data's predicate language (`ResolvedStorePredicate`) to SQL, with
/// bound parameters. Key paths through to-one relationships are scalar subselects on
/// the foreign key (`(SELECT t1.ZNAME FROM ZFOLDER t1 WHERE t1.Z_PK = ZNOTE.ZFOLDER)`);
/// to-many aggregates are subselects on the inverse's foreign key (`EXISTS`, `COUNT(*)`).
/// The string operators other than case-sensitive BEGINSWITH/CONTAINS, and `[c]`/`[d]`,
/// run through functions registered with every connection (`StoreSQLFunctions`), the
/// same Swift code the in-memory evaluation runs.
enum StoreSQL {
    static func emit(
        _ p: ResolvedStorePredicate, entity: EntityDescription, store: StoreIdentity, ref: String, aliases: inout Int, args: inout [DatabaseValue]
    ) -> String {
        switch p {
        case .quantified(let q, let steps, let r, let inner):
            guard let inverse = r.inverseRelationship, let destination = r.destinationEntity else { return q == .any ? "0" : "1" }
            let owner = objectSQL(steps, ref: ref, aliases: &aliases)
            aliases += 1
            let alias = "t\(aliases)"
            let condition = SQLCompiler.emit(q == .all ? .not(inner) : inner, entity: destination, store: store, ref: alias, aliases: &aliases, args: &args)
            let exists =
                "EXISTS (SELECT 1 FROM \(related(r, inverse: inverse, destination: destination, alias: alias, owner: owner)) AND \(condition))"
            return q == .any ? "(\(exists))" : "(NOT \(exists))"
        case .compare(let l, let op, let r, let options):
            let lhs = operand(l, store: store, ref: ref, aliases: &aliases, args: &args)
            if op.isStringOperator {
                let rhs = operand(r, store: store, ref: ref, aliases: &aliases, args: &args)
                return "(\(StoreSQLFunctions.stringOperator)(\(op.rawValue), \(options.rawValue), \(lhs), \(rhs)) = 1)"
            }
            let folded = { (sql: String) in options.isEmpty ? sql : "\(StoreSQLFunctions.fold)(\(sql), \(options.rawValue))" }
            switch op {
            case .in:
                let items: [DatabaseValue]
                switch r {
                case .values(let list): items = list.filter { !$0.isNull }.map { fold($0, options).databaseValue }
                case .objects(let ids): items = ids.map { primaryKey($0, store: store) }
                default: return "0"
                }
                if items.isEmpty { return "0" }
                args += items
                return "(\(folded(lhs)) IN (\(Array(repeating: "?", count: items.count).joined(separator: ","))))"
            case .between:
                guard case .values(let bounds) = r, bounds.count == 2 else { return "0" }
                args += bounds.map { fold($0, options).databaseValue }
                return "(\(folded(lhs)) BETWEEN ? AND ?)"
            default:
                let rhs = operand(r, store: store, ref: ref, aliases: &aliases, args: &args, options: options)
                let symbol: String
                switch op {
                case .equal: symbol = "IS"
                case .notEqual: symbol = "IS NOT"
                case .less: symbol = "<"
                case .lessOrEqual: symbol = "<="
                case .greater: symbol = ">"
                default: symbol = ">="
                }
                return "(\(folded(lhs)) \(symbol) \(rhs))"
            }
        }
    }

    private static func fold(_ v: StoredValue, _ options: StringComparisonOptions) -> StoredValue {
        StoreStringFunctions.fold(v, options)
    }

    /// A temporary object (no row yet) or one of another store: a key no row has.
    private static func primaryKey(_ id: ManagedObjectID?, store: StoreIdentity) -> DatabaseValue {
        guard let id else { return .null }
        guard let pk = id.primaryKey, id.store == store else { return (-1 as Int64).databaseValue }
        return pk.databaseValue
    }

    /// The SQL of one operand. A constant binds folded when `options` folds (the
    /// column side is folded by the caller).
    private static func operand(
        _ o: ResolvedOperand, store: StoreIdentity, ref: String, aliases: inout Int, args: inout [DatabaseValue], options: StringComparisonOptions = []
    ) -> String {
        switch o {
        case .value(let v):
            if v.isNull { return "NULL" }
            args.append(fold(v, options).databaseValue)
            return "?"
        case .object(let id):
            guard id != nil else { return "NULL" }
            args.append(primaryKey(id, store: store))
            return "?"
        case .values, .objects:
            return "NULL"  // only meaningful with IN and BETWEEN, handled by the caller
        case .path(let path):
            let sql: String
            switch path.end {
            case .object: sql = objectSQL(path.steps, ref: ref, aliases: &aliases)
            case .toOne(let r): sql = columnSQL(r.columnName, through: path.steps, ref: ref, aliases: &aliases)
            case .attribute(let a): sql = columnSQL(a.columnName, through: path.steps, ref: ref, aliases: &aliases)
            }
            return options.isEmpty ? sql : "\(StoreSQLFunctions.fold)(\(sql), \(options.rawValue))"
        case .count(let steps, let r, let condition):
            guard let inverse = r.inverseRelationship, let destination = r.destinationEntity else { return "0" }
            let owner = objectSQL(steps, ref: ref, aliases: &aliases)
            aliases += 1
            let alias = "t\(aliases)"
            var sql = "(SELECT COUNT(*) FROM \(related(r, inverse: inverse, destination: destination, alias: alias, owner: owner))"
            if let condition {
                sql += " AND " + SQLCompiler.emit(condition, entity: destination, store: store, ref: alias, aliases: &aliases, args: &args)
            }
            return sql + ")"
        }
    }

    /// `FROM … WHERE …` of the rows to-many `r` relates to `owner`, named `alias`: those
    /// whose inverse key is the owner's, or for a many-to-many relationship, those its
    /// join table links to the owner.
    private static func related(_ r: RelationshipDescription, inverse: RelationshipDescription, destination: EntityDescription, alias: String, owner: String) -> String {
        guard let side = r.join else {
            return "\(destination.tableName) \(alias) WHERE \(alias).\(inverse.columnName) = \(owner)"
        }
        let j = "j_\(alias)"
        return "\(side.table.name) \(j) JOIN \(destination.tableName) \(alias) ON \(alias).Z_PK = \(j).\(side.otherColumn) WHERE \(j).\(side.ownerColumn) = \(owner)"
    }

    /// The primary key of the object `steps` reach from `ref`'s row (NULL when a step is nil).
    private static func objectSQL(_ steps: [RelationshipDescription], ref: String, aliases: inout Int) -> String {
        guard let last = steps.last else { return "\(ref).Z_PK" }
        return columnSQL(last.columnName, through: Array(steps.dropLast()), ref: ref, aliases: &aliases)
    }

    /// The column `column` of the object `steps` reach from `ref`'s row: nested scalar
    /// subselects on each foreign key.
    static func columnSQL(_ column: String, through steps: [RelationshipDescription], ref: String, aliases: inout Int) -> String {
        guard let first = steps.first else { return "\(ref).\(column)" }
        var key = "\(ref).\(first.columnName)"
        var table = first.destinationEntity?.tableName ?? ""
        for step in steps.dropFirst() {
            aliases += 1
            let t = "t\(aliases)"
            key = "(SELECT \(t).\(step.columnName) FROM \(table) \(t) WHERE \(t).Z_PK = \(key))"
            table = step.destinationEntity?.tableName ?? ""
        }
        aliases += 1
        let t = "t\(aliases)"
        return "(SELECT \(t).\(column) FROM \(table) \(t) WHERE \(t).Z_PK = \(key))"
    }
}

/// The functions `StoreSQL` calls, registered with every connection of a store.
enum StoreSQLFunctions {
    static let fold = "CTXDEBUG_FOLD"
    static let stringOperator = "CTXDEBUG_STRING_OP"

    static func register(in db: Database) {
        db.add(function: DatabaseFunction(fold, argumentCount: 2, pure: true) { values in
            guard let s = String.fromDatabaseValue(values[0]), values[0].storage.isText,
                let raw = Int.fromDatabaseValue(values[1])
            else { return values[0] }
            return StoreStringFunctions.fold(s, StringComparisonOptions(rawValue: raw))
        })
        db.add(function: DatabaseFunction(stringOperator, argumentCount: 4, pure: true) { values in
            guard let code = Int.fromDatabaseValue(values[0]), let op = StoreOperator(rawValue: code),
                let raw = Int.fromDatabaseValue(values[1]),
                values[2].storage.isText, values[3].storage.isText,
                let text = String.fromDatabaseValue(values[2]), let pattern = String.fromDatabaseValue(values[3])
            else { return 0 }
            return StoreStringFunctions.stringOperator(op, StringComparisonOptions(rawValue: raw), text, pattern) ? 1 : 0
        })
        for comparator in [StringSortComparator.caseInsensitive, .localizedStandard] {
            db.add(collation: DatabaseCollation(comparator.rawValue) { a, b in
                let c = comparator.compare(a, b)
                return c < 0 ? .orderedAscending : (c == 0 ? .orderedSame : .orderedDescending)
            })
        }
    }
}

extension DatabaseValue.Storage {
    fileprivate var isText: Bool { if case .string = self { true } else { false } }
}
