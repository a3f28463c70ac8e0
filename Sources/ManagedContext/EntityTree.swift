import Foundation
import GRDB
import GRDBSQLite

/// Entity inheritance as Core Data's SQLite store keeps it: every entity of a tree is
/// stored in the table of its root entity (`Z<ROOT>`), whose columns are those of all the
/// tree's entities, and each row's `Z_ENT` says which entity it is. Entities are numbered
/// parents first: the roots in order of name, each followed by its subentities (in order
/// of name, each with its own subentities), so a model without inheritance is numbered
/// alphabetically, as before. `Z_PRIMARYKEY.Z_SUPER` holds each entity's parent's number.
enum EntityTree {
    /// Links each entity to its parent and returns the entities in Core Data's order,
    /// with their indexes (`Z_ENT` minus one) and their columns assigned.
    static func arrange(_ entities: [EntityDescription], declarations: [EntityDeclaration], byName: [String: EntityDescription]) -> [EntityDescription] {
        for declaration in declarations {
            guard let parentName = declaration.parentName, let entity = byName[declaration.name] else { continue }
            guard let parent = byName[parentName] else {
                preconditionFailure("Entity \(declaration.name) names the parent entity \(parentName), which is not in the model. Add it, or clear the parent entity.")
            }
            entity.superentity = parent
            parent.subentities.append(entity)
        }
        var ordered: [EntityDescription] = []
        func visit(_ e: EntityDescription) {
            e.subentities.sort { $0.name < $1.name }
            let start = ordered.count
            ordered.append(e)
            for child in e.subentities { visit(child) }
            e.selfAndDescendants = Array(ordered[start...])
        }
        for root in entities.filter({ $0.superentity == nil }).sorted(by: { $0.name < $1.name }) { visit(root) }
        precondition(
            ordered.count == entities.count,
            "The parent entities of \(Set(entities.map(\.name)).subtracting(ordered.map(\.name)).sorted().joined(separator: ", ")) form a cycle. An entity cannot inherit from itself.")
        for (i, e) in ordered.enumerated() {
            e.index = i
            e.sharesTable = e.rootEntity.subentities.isEmpty == false
        }
        for e in ordered where e.superentity != nil { checkInherits(e) }
        for root in ordered where root.superentity == nil && !root.subentities.isEmpty { assignColumns(root) }
        return ordered
    }

    /// The order column of the ordered to-many relationships whose inverse is `inverse`:
    /// Core Data's `Z_FOK_<INVERSE>`, in the destination's table.
    static func orderKeyName(inverse: String) -> String { "Z_FOK_" + inverse.uppercased() }

    /// The declarations with the order column of each ordered to-many relationship added
    /// to the entity that declares its inverse to-one (an INTEGER, as Core Data keeps it);
    /// a subentity gets its parent's at the same position, after the inherited attributes.
    static func addingOrderKeys(to declarations: [EntityDeclaration]) -> [EntityDeclaration] {
        let byName = Dictionary(declarations.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        // The entity that declares a relationship: the topmost ancestor that has it.
        func declaring(_ relationship: String, from entity: String) -> String {
            var owner = entity
            while let parent = byName[owner]?.parentName, byName[parent]?.relationships.contains(where: { $0.name == relationship }) == true {
                owner = parent
            }
            return owner
        }
        var keys: [String: [String]] = [:]
        for d in declarations {
            for r in d.relationships where r.isToMany && r.isOrdered {
                guard let inverse = r.inverseName, byName[r.destinationEntityName]?.relationships.contains(where: { $0.name == inverse && !$0.isToMany }) == true
                else { continue }
                let owner = declaring(inverse, from: r.destinationEntityName)
                let name = orderKeyName(inverse: inverse)
                if keys[owner]?.contains(name) != true { keys[owner, default: []].append(name) }
            }
        }
        if keys.isEmpty { return declarations }
        var finished: [String: [EntityDeclaration.Attribute]] = [:]
        func attributes(of name: String) -> [EntityDeclaration.Attribute] {
            if let done = finished[name] { return done }
            guard let d = byName[name] else { return [] }
            var result: [EntityDeclaration.Attribute] = []
            if let parent = d.parentName, byName[parent] != nil {
                let inherited = attributes(of: parent)
                let names = Set(inherited.map(\.name))
                result = inherited + d.attributes.filter { !names.contains($0.name) }
            } else {
                result = d.attributes
            }
            for key in keys[name] ?? [] where !result.contains(where: { $0.name == key }) {
                var a = EntityDeclaration.Attribute(name: key, attributeType: .integer64, isOptional: true, defaultValue: StoredValue.null)
                a.isOrderKey = true
                result.append(a)
            }
            finished[name] = result
            return result
        }
        return declarations.map { d in
            var d = d
            d.attributes = attributes(of: d.name)
            return d
        }
    }

    /// A subentity's attributes and relationships start with its parent's, in the parent's
    /// order: a predicate or sort resolved against the parent then reads a subentity's
    /// values at the same positions.
    private static func checkInherits(_ e: EntityDescription) {
        guard let parent = e.superentity else { return }
        let attributes = e.attributes.prefix(parent.attributes.count).map(\.name)
        let relationships = e.relationships.prefix(parent.relationships.count).map(\.name)
        precondition(
            attributes == parent.attributes.map(\.name) && relationships == parent.relationships.map(\.name),
            "Entity \(e.name) inherits from \(parent.name) but does not declare \(parent.name)'s properties first, in \(parent.name)'s order. Declare the inherited attributes and relationships first.")
        for (a, b) in zip(e.attributes, parent.attributes) where a.attributeType != b.attributeType {
            preconditionFailure("Entity \(e.name) inherits \(parent.name).\(b.name) as \(a.attributeType), but \(parent.name) declares it \(b.attributeType).")
        }
    }

    /// The columns of a tree's table: inherited properties keep their parent's column; a
    /// subentity's own property takes `Z<NAME>`, or `Z<NAME>1`, `Z<NAME>2`… when a sibling
    /// already took it, as Core Data names them.
    private static func assignColumns(_ root: EntityDescription) {
        var used: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
        func take(_ base: String) -> String {
            if used.insert(base).inserted { return base }
            var n = 1
            while !used.insert("\(base)\(n)").inserted { n += 1 }
            return "\(base)\(n)"
        }
        for e in root.selfAndDescendants {
            let parent = e.superentity
            let inheritedAttributes = parent?.attributes.count ?? 0
            let inheritedRelationships = parent?.relationships.count ?? 0
            for (i, a) in e.attributes.enumerated() {
                if i < inheritedAttributes {
                    if let column = parent!.attributes[i].assignedColumnName { e.assignColumn(attribute: i, column) }
                } else {
                    let column = take(a.columnName)
                    if column != a.columnName { e.assignColumn(attribute: i, column) }
                }
            }
            for (i, r) in e.relationships.enumerated() where !r.isToMany {
                if i < inheritedRelationships {
                    r.assignedColumnName = parent!.relationships[i].assignedColumnName
                } else {
                    let column = take(r.columnName)
                    if column != r.columnName { r.assignedColumnName = column }
                }
            }
        }
    }

    /// What a fetch of `entity` selects and where each entity's values are (`RowLayout`).
    static func rowLayout(of entity: EntityDescription) -> RowLayout {
        var layout = RowLayout()
        let polymorphicToOne = entity.selfAndDescendants.contains { e in
            e.toOneRelationships.contains { !($0.destinationEntity?.subentities.isEmpty ?? true) }
        }
        if !entity.sharesTable && !polymorphicToOne {
            layout.columns = entity.attributes.map(\.columnName) + entity.toOneRelationships.map(\.columnName)
            return layout
        }
        layout.isPlain = false
        var position: [String: Int] = [:]
        func column(_ sql: String) -> Int {
            if let p = position[sql] { return p }
            position[sql] = layout.columns.count
            layout.columns.append(sql)
            return layout.columns.count - 1
        }
        for e in entity.selfAndDescendants {
            var p = RowLayout.Positions()
            p.attributes = e.attributes.map { column($0.columnName) }
            p.toOne = e.toOneRelationships.map { column($0.columnName) }
            layout.positions[e.index] = p
        }
        if entity.sharesTable { layout.entityColumn = column("Z_ENT") }
        for e in entity.selfAndDescendants {
            layout.positions[e.index]!.toOneEntity = e.toOneRelationships.map { r in
                guard let destination = r.destinationEntity, !destination.subentities.isEmpty else { return -1 }
                return column("(SELECT d.Z_ENT FROM \(destination.tableName) d WHERE d.Z_PK = \(entity.tableName).\(r.columnName))")
            }
        }
        return layout
    }
}

extension SQLiteStore {
    /// Decodes a row selected with `layout` (a fetch of `layout`'s entity) as an object of
    /// `entity`: its values and to-one keys where the layout put them, each related
    /// object's ID naming the entity its row is. `int` and `value` read a column by its
    /// position in `layout.columns`.
    func decodeRow(
        as entity: EntityDescription, in layout: RowLayout, int: (Int) -> Int64?, value: (Int) -> StoredValue, version: Int64
    ) -> RowSnapshot {
        guard let p = layout.positions[entity.index] else {
            preconditionFailure("A row of \(entity.name) was read with the columns of another entity's fetch.")
        }
        let values = p.attributes.map(value)
        var toOne: [ManagedObjectID?] = []
        toOne.reserveCapacity(p.toOne.count)
        for (j, r) in entity.toOneRelationships.enumerated() {
            guard let pk = int(p.toOne[j]), pk > 0 else {
                toOne.append(nil)
                continue
            }
            var destination = r.destinationEntity!
            if p.toOneEntity[j] >= 0, let number = int(p.toOneEntity[j]), let concrete = self.entity(numbered: number), concrete.isKind(of: destination) {
                destination = concrete
            }
            toOne.append(ManagedObjectID(entity: destination, store: identity, primaryKey: pk))
        }
        return RowSnapshot(values: values, toOne: toOne, version: version)
    }

    /// A row of a fetch of `entity` whose layout is not plain: the entity the row is (from
    /// its Z_ENT, in an inheritance tree) and its values as that entity's.
    func decodeFetchedRow(_ statement: SQLiteStatement, fetching entity: EntityDescription) -> (EntityDescription, RowSnapshot) {
        let layout = entity.rowLayout
        var concrete = entity
        if layout.entityColumn >= 0, let e = self.entity(numbered: sqlite3_column_int64(statement, CInt(2 + layout.entityColumn))),
            layout.positions[e.index] != nil
        {
            concrete = e
        }
        let snapshot = decodeRow(
            as: concrete, in: layout,
            int: { sqlite3_column_type(statement, CInt(2 + $0)) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, CInt(2 + $0)) },
            value: { StoredValue(statement, CInt(2 + $0)) }, version: sqlite3_column_int64(statement, 1))
        return (concrete, snapshot)
    }
}
