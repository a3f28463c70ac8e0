public import Foundation
@_spi(CoreData) import ManagedContext

/// Core Data's `NSFetchIndexElementType`: how an element is indexed.
public enum NSFetchIndexElementType: UInt, Sendable, Hashable {
    /// A B-tree index, the kind SQLite makes: what the store makes here.
    case binary = 0
    /// An R-tree (a spatial index over a range). Kept in the model; the store makes no
    /// index for such an element, and fetches answer the same without it.
    case rTree = 1
}

/// Core Data's `NSFetchIndexDescription`: a fetch index of an entity, which its SQLite
/// store makes an index `Z_<Entity>_<name>` over the elements' columns (as the
/// store of an iOS app has `CREATE INDEX Z_CallRecord_byDateIndex ON ZCALLRECORD (ZDATE
/// COLLATE BINARY ASC)`).
open class NSFetchIndexDescription: NSObject, @unchecked Sendable {
    open var name: String
    open var elements: [NSFetchIndexElementDescription] {
        didSet { for element in elements { element.indexDescription = self } }
    }
    /// The entity whose `indexes` hold this index.
    public internal(set) weak var entity: NSEntityDescription?
    /// Core Data's partial index. Kept; the store indexes every row, which answers the
    /// same fetches (a little larger).
    open var partialIndexPredicate: NSPredicate?

    public init(name: String, elements: [NSFetchIndexElementDescription]?) {
        self.name = name
        self.elements = elements ?? []
        super.init()
        for element in self.elements { element.indexDescription = self }
    }

    /// The runtime's index: binary elements whose property the entity has, by name.
    var compiled: FetchIndex {
        FetchIndex(
            name: name,
            elements: elements.compactMap { element in
                guard element.collationType == .binary, let property = element.propertyName else { return nil }
                return FetchIndex.Element(property: property, isAscending: element.isAscending)
            })
    }
}

/// Core Data's `NSFetchIndexElementDescription`: one property of a fetch index, its
/// collation and its order.
open class NSFetchIndexElementDescription: NSObject, @unchecked Sendable {
    public private(set) var property: NSPropertyDescription?
    /// The property's name (an element read from a model file names its property).
    public private(set) var propertyName: String?
    open var collationType: NSFetchIndexElementType
    open var isAscending = true
    public internal(set) weak var indexDescription: NSFetchIndexDescription?

    public init(property: NSPropertyDescription, collationType: NSFetchIndexElementType) {
        self.property = property
        self.propertyName = property.name
        self.collationType = collationType
    }

    init(propertyName: String, collationType: NSFetchIndexElementType, isAscending: Bool) {
        self.propertyName = propertyName
        self.collationType = collationType
        self.isAscending = isAscending
    }

    /// Links an element read by name to its entity's property, once the properties exist.
    func resolve(in entity: NSEntityDescription) {
        if property == nil, let propertyName { property = entity.propertiesByName[propertyName] }
    }
}
