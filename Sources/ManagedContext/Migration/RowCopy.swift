import CtxdebugHelpers
public import Foundation
import GRDB

/// One entity mapping a migration can make in SQL: every row of a source entity copied
/// into a destination entity, each destination attribute from a source attribute (by
/// name) or, with none, its default. `PersistentStoreCoordinator.copyRows` refuses (nil)
/// what it cannot copy exactly as the migration manager's objects would be written.
@_spi(CoreData) public struct RowCopy: Sendable {
    public let sourceEntity: String
    public let destinationEntity: String
    /// Destination attribute name → source attribute name; an attribute not listed takes its default.
    public let attributes: [String: String]

    public init(sourceEntity: String, destinationEntity: String, attributes: [String: String]) {
        (self.sourceEntity, self.destinationEntity, self.attributes) = (sourceEntity, destinationEntity, attributes)
    }
}

extension PersistentStoreCoordinator {
    /// Copies the rows of `copies` from the store of `source` into this coordinator's
    /// (empty, new) store, in one transaction: `INSERT … SELECT` from the source file
    /// attached, no object made. Returns the rows copied, or nil, with nothing written,
    /// when a copy is not exact: an entity in an inheritance tree, with relationships or
    /// uniqueness constraints; two copies into one entity; a value that changes storage
    /// (other than an integer widened); a mandatory attribute left without a value (the
    /// objects' save would fail its validation, and says why).
    @_spi(CoreData) public func copyRows(_ copies: [RowCopy], from source: PersistentStoreCoordinator) throws(ManagedContextError) -> Int? {
        let store = try store(), sourceStore = try source.store()
        guard let plans = Self.copyPlans(copies, from: sourceStore, to: store) else { return nil }
        do {
            return try DispatchBypass.run {
                try store.pool.writeWithoutTransaction { db -> Int? in
                    try db.execute(sql: "ATTACH DATABASE ? AS ctxdebug_source", arguments: [sourceStore.url.path])
                    defer { try? db.execute(sql: "DETACH DATABASE ctxdebug_source") }
                    var copied: Int? = 0
                    try db.inTransaction {
                        for plan in plans {
                            // A mandatory attribute the source leaves NULL: the objects' path reports it.
                            for check in plan.mandatory where try Bool.fetchOne(db, sql: check) == true {
                                copied = nil
                                return .rollback
                            }
                            try db.execute(sql: plan.insert, arguments: StatementArguments(plan.arguments))
                            copied! += db.changesCount
                            try db.execute(
                                sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = (SELECT IFNULL(MAX(Z_PK), 0) FROM \(plan.table)) WHERE Z_ENT = ?",
                                arguments: [plan.entityNumber])
                        }
                        return .commit
                    }
                    return copied
                }
            }
        } catch {
            throw SQLiteStore.translate(error, path: store.url.path, doing: "copy the migrated rows")
        }
    }

    private struct CopyPlan {
        let table: String
        let entityNumber: Int64
        let insert: String
        let arguments: [DatabaseValue]
        let mandatory: [String]
    }

    private static func copyPlans(_ copies: [RowCopy], from sourceStore: SQLiteStore, to store: SQLiteStore) -> [CopyPlan]? {
        var plans: [CopyPlan] = [], targets = Set<String>()
        for copy in copies {
            guard let from = sourceStore.model.entity(named: copy.sourceEntity), let to = store.model.entity(named: copy.destinationEntity),
                targets.insert(to.name).inserted, from.superentity == nil, from.subentities.isEmpty, to.superentity == nil, to.subentities.isEmpty,
                to.relationships.isEmpty, to.uniquenessConstraints.isEmpty
            else { return nil }
            var columns = ["Z_PK", "Z_ENT", "Z_OPT"], values = ["Z_PK", "?", "1"]
            var arguments: [DatabaseValue] = [store.entityNumber(to).databaseValue]
            var mandatory: [String] = []
            for a in to.attributes {
                columns.append(a.columnName)
                guard let name = copy.attributes[a.name] else {
                    guard a.isOptional || !a.defaultValue.isNull else { return nil }
                    values.append("?")
                    arguments.append(a.defaultValue.databaseValue)
                    continue
                }
                guard let s = from.attribute(named: name), !s.isOrderKey, a.attributeType == s.attributeType || widens(s.attributeType, a.attributeType) else { return nil }
                if a.isOptional {
                    values.append(s.columnName)
                } else if !a.defaultValue.isNull {
                    // A mandatory attribute keeps its default where the source has no value (as the objects' mapping does).
                    values.append("IFNULL(\(s.columnName), ?)")
                    arguments.append(a.defaultValue.databaseValue)
                } else {
                    values.append(s.columnName)
                    mandatory.append("SELECT COUNT(*) > 0 FROM ctxdebug_source.\(from.tableName) WHERE \(s.columnName) IS NULL")
                }
            }
            let insert = "INSERT INTO main.\(to.tableName) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM ctxdebug_source.\(from.tableName) ORDER BY Z_PK"
            plans.append(CopyPlan(table: to.tableName, entityNumber: store.entityNumber(to), insert: insert, arguments: arguments, mandatory: mandatory))
        }
        return plans
    }

    /// An integer stored in a wider integer type: the same value, the same storage.
    private static func widens(_ from: AttributeType, _ to: AttributeType) -> Bool {
        let order: [AttributeType] = [.integer16, .integer32, .integer64]
        guard let f = order.firstIndex(of: from), let t = order.firstIndex(of: to) else { return false }
        return f <= t
    }
}
