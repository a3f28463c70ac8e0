import GRDB

/// A fetch index of an entity, Core Data's `NSFetchIndexDescription` as its SQLite store
/// keeps it: an SQLite index named `Z_<Entity>_<name>` over its elements' columns, each
/// `COLLATE BINARY` and ascending or descending, in the table of the entity's tree.
public struct FetchIndex: Sendable, Hashable {
    public struct Element: Sendable, Hashable {
        /// An attribute's name, or a to-one relationship's (its foreign key is indexed).
        public var property: String
        public var isAscending: Bool
        public init(property: String, isAscending: Bool = true) {
            self.property = property
            self.isAscending = isAscending
        }
    }
    public var name: String
    public var elements: [Element]
    public init(name: String, elements: [Element]) {
        self.name = name
        self.elements = elements
    }
}

extension StoreSchema {
    /// Every index the model asks of the store, besides those each table has (its to-one
    /// keys, `Z_ENT`): the uniqueness constraints', the fetch indexes' and the indexed
    /// attributes'. Names and SQL as Core Data writes them (an iOS store's schema:
    /// `CREATE INDEX Z_CallRecord_byDateIndex ON ZCALLRECORD (ZDATE COLLATE BINARY ASC)`).
    static func modelIndexes(of model: ManagedObjectModel, entityNumber: (EntityDescription) -> Int64) -> [(name: String, sql: String)] {
        uniqueIndexes(of: model, entityNumber: entityNumber) + fetchIndexes(of: model) + attributeIndexes(of: model)
    }

    /// An element naming no attribute or to-one relationship of the entity is left out,
    /// as is an index left with no element.
    static func fetchIndexes(of model: ManagedObjectModel) -> [(name: String, sql: String)] {
        var indexes: [(String, String)] = []
        for entity in model.entities {
            for index in entity.fetchIndexes {
                let columns = index.elements.compactMap { element -> String? in
                    let column = entity.attribute(named: element.property)?.columnName
                        ?? entity.relationship(named: element.property).flatMap { $0.isToMany ? nil : $0.columnName }
                    return column.map { "\($0) COLLATE BINARY \(element.isAscending ? "ASC" : "DESC")" }
                }
                guard !columns.isEmpty else { continue }
                let name = "Z_\(entity.name)_\(index.name)"
                indexes.append((name, "CREATE INDEX IF NOT EXISTS \"\(name)\" ON \(entity.tableName) (\(columns.joined(separator: ", ")))"))
            }
        }
        return indexes
    }

    /// `isIndexed` attributes: `<TABLE>_<COLUMN>_INDEX`, as the table's to-one keys are indexed.
    static func attributeIndexes(of model: ManagedObjectModel) -> [(name: String, sql: String)] {
        var indexes: [(String, String)] = []
        var seen: Set<String> = []
        for entity in model.entities {
            for attribute in entity.attributes where attribute.isIndexed {
                let name = "\(entity.tableName)_\(attribute.columnName)_INDEX"
                guard seen.insert(name).inserted else { continue }
                indexes.append((name, "CREATE INDEX IF NOT EXISTS \(name) ON \(entity.tableName) (\(attribute.columnName))"))
            }
        }
        return indexes
    }
}

extension ManagedObjectModel {
    /// Whether the model asks the store for any index besides each table's own.
    var declaresIndexes: Bool {
        entities.contains { !$0.declaredConstraints.isEmpty || !$0.fetchIndexes.isEmpty || $0.attributes.contains(where: \.isIndexed) }
    }
}
