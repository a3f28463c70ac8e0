@_spi(CoreData) public import ManagedContext

/// Core Data's `NSEntityDescription`: an entity's name, class, properties and place in
/// the inheritance tree. Editable until its model is used, as in Core Data.
///
/// `@unchecked Sendable`: edited only before its model is compiled, read-only after.
open class NSEntityDescription: NSObject, @unchecked Sendable {
    open var name: String?
    /// The class name as the model says it (`representedClassName`): `Module.Class`, or
    /// a bare class name. `NSManagedObject` when nil.
    open var managedObjectClassName: String!
    open var isAbstract = false
    open var userInfo: [AnyHashable: Any]?
    /// Core Data's `uniquenessConstraints`: arrays of property names.
    open var uniquenessConstraints: [[Any]] = []
    /// Core Data's `renamingIdentifier`.
    open var renamingIdentifier: String?
    /// Core Data's `versionHashModifier`.
    open var versionHashModifier: String?
    /// Core Data's `indexes`: the entity's fetch indexes, each an SQLite index of the store.
    open var indexes: [NSFetchIndexDescription] = [] {
        didSet { for index in indexes { index.entity = self } }
    }
    public internal(set) weak var managedObjectModel: NSManagedObjectModel!
    open internal(set) weak var superentity: NSEntityDescription?
    private var storedSubentities: [NSEntityDescription] = []
    private var storedProperties: [NSPropertyDescription] = []
    /// Xcode's Codegen setting (`codeGenerationType`): `class` (Class Definition),
    /// `category` (Category/Extension), or nil (Manual/None). `ctxdebug port` reads it to
    /// know which entity classes Xcode would have generated.
    package var codeGenerationType: String?
    /// The runtime entity, once the model is compiled.
    var compiled: EntityDescription? {
        didSet {
            conversionTable = Self.conversions(compiled, allProperties)
            compiled?.convertsOnAccess = conversionTable.contains { $0 != nil } ? conversionTable.map { $0 != nil } : []
        }
    }
    /// By runtime attribute index: the attribute when its values convert on access.
    /// Unchecked exclusivity: set as the model is compiled, read on every key-value access.
    @exclusivity(unchecked) private(set) var conversionTable: [NSAttributeDescription?] = []

    private static func conversions(_ compiled: EntityDescription?, _ properties: [NSPropertyDescription]) -> [NSAttributeDescription?] {
        guard let compiled else { return [] }
        let byName = Dictionary(properties.compactMap { p in (p as? NSAttributeDescription).map { (p.name, $0) } }, uniquingKeysWith: { _, b in b })
        let converting: Set<NSAttributeType> = [.floatAttributeType, .decimalAttributeType, .UUIDAttributeType, .URIAttributeType, .transformableAttributeType]
        return compiled.attributes.map { a in byName[a.name].flatMap { converting.contains($0.attributeType) ? $0 : nil } }
    }

    public override init() {}

    open var subentities: [NSEntityDescription] {
        get { storedSubentities }
        set {
            storedSubentities = newValue
            for e in newValue { e.superentity = self }
        }
    }

    /// Its own properties (not those inherited).
    open var properties: [NSPropertyDescription] {
        get { storedProperties }
        set {
            storedProperties = newValue
            for p in newValue { p.entity = self }
        }
    }

    /// Every property, inherited ones first, as Core Data's `properties` of a subentity.
    var allProperties: [NSPropertyDescription] { (superentity?.allProperties ?? []) + storedProperties }

    open var propertiesByName: [String: NSPropertyDescription] {
        Dictionary(allProperties.map { ($0.name, $0) }, uniquingKeysWith: { _, b in b })
    }
    open var attributesByName: [String: NSAttributeDescription] {
        Dictionary(allProperties.compactMap { p in (p as? NSAttributeDescription).map { (p.name, $0) } }, uniquingKeysWith: { _, b in b })
    }
    open var relationshipsByName: [String: NSRelationshipDescription] {
        Dictionary(allProperties.compactMap { p in (p as? NSRelationshipDescription).map { (p.name, $0) } }, uniquingKeysWith: { _, b in b })
    }

    open func relationships(forDestination entity: NSEntityDescription) -> [NSRelationshipDescription] {
        relationshipsByName.values.filter { $0.destinationEntity === entity }
    }

    /// Whether this entity is `entity` or inherits from it.
    open func isKindOf(entity: NSEntityDescription) -> Bool {
        var e: NSEntityDescription? = self
        while let current = e {
            if current === entity { return true }
            e = current.superentity
        }
        return false
    }

    open override var description: String { "NSEntityDescription(\(name ?? "unnamed"))" }

    /// The entity named `entityName` in `context`'s model.
    open class func entity(forEntityName entityName: String, in context: NSManagedObjectContext) -> NSEntityDescription? {
        guard let entity = context.runtimeModel.entity(named: entityName) else { return nil }
        return NSManagedObjectModel.description(of: entity)
    }

    /// A new object of the entity named `entityName`, inserted into `context`.
    open class func insertNewObject(forEntityName entityName: String, into context: NSManagedObjectContext) -> NSManagedObject {
        guard let entity = context.runtimeModel.entity(named: entityName) else {
            preconditionFailure("+entityForName: could not locate an entity named '\(entityName)' in this model.")
        }
        guard let cls = entity.managedObjectClass as? NSManagedObject.Type else {
            preconditionFailure("The class of entity \(entityName) is not an NSManagedObject subclass.")
        }
        return cls.init(entity: entity, insertInto: context)
    }

    /// Describes an entity declared with `@Attribute`s in ManagedContext.
    convenience init(describing entity: EntityDescription) {
        self.init()
        name = entity.name
        managedObjectClassName = String(reflecting: entity.managedObjectClass)
        properties =
            entity.attributes.map { a in
                let d = NSAttributeDescription()
                d.name = a.name
                d.attributeType = NSAttributeType(a.attributeType)
                d.isOptional = a.isOptional
                return d
            }
            + entity.relationships.map { r in
                let d = NSRelationshipDescription()
                d.name = r.name
                d.maxCount = r.isToMany ? 0 : 1
                d.deleteRule = r.deleteRule == .cascade ? .cascadeDeleteRule : .nullifyDeleteRule
                return d
            }
        compiled = entity
    }
}

/// Core Data's `NSPropertyDescription`.
open class NSPropertyDescription: NSObject, @unchecked Sendable {
    open var name: String = ""
    open var isOptional = true
    open var isTransient = false
    open var userInfo: [AnyHashable: Any]?
    open var renamingIdentifier: String?
    /// Core Data's `versionHashModifier`: a string that makes `versionHash` differ for
    /// versions of the property that are otherwise the same.
    open var versionHashModifier: String?
    /// Core Data's `isIndexed`: the store keeps an SQLite index on the property's column
    /// (`Z<ENTITY>_<COLUMN>_INDEX`). Apple deprecates it for `NSFetchIndexDescription`.
    open var isIndexed = false
    /// Accepted and kept: there is no Spotlight on Linux.
    open var isIndexedBySpotlight = false
    public internal(set) weak var entity: NSEntityDescription!
    public override init() {}
    open override var description: String { "\(type(of: self))(\(name))" }
}

/// Core Data's `NSAttributeType`, with its raw values.
public enum NSAttributeType: UInt, Sendable, Hashable {
    case undefinedAttributeType = 0
    case integer16AttributeType = 100
    case integer32AttributeType = 200
    case integer64AttributeType = 300
    case decimalAttributeType = 400
    case doubleAttributeType = 500
    case floatAttributeType = 600
    case stringAttributeType = 700
    case booleanAttributeType = 800
    case dateAttributeType = 900
    case binaryDataAttributeType = 1000
    case UUIDAttributeType = 1100
    case URIAttributeType = 1200
    case transformableAttributeType = 1800
    case objectIDAttributeType = 2000
    case compositeAttributeType = 2100

    init(_ type: AttributeType) {
        switch type {
        case .string: self = .stringAttributeType
        case .integer16: self = .integer16AttributeType
        case .integer32: self = .integer32AttributeType
        case .integer64: self = .integer64AttributeType
        case .double: self = .doubleAttributeType
        case .boolean: self = .booleanAttributeType
        case .date: self = .dateAttributeType
        case .binaryData: self = .binaryDataAttributeType
        }
    }
}

/// Core Data's `NSAttributeDescription`.
open class NSAttributeDescription: NSPropertyDescription, @unchecked Sendable {
    open var attributeType: NSAttributeType = .undefinedAttributeType
    open var defaultValue: Any?
    /// Core Data's `attributeValueClassName` (for transformable attributes, the class
    /// the model names).
    open var attributeValueClassName: String?
    /// Core Data's `valueTransformerName` (transformable attributes).
    open var valueTransformerName: String?
    open var allowsExternalBinaryDataStorage = false
    /// Core Data's `preservesValueInHistoryOnDeletion` (Xcode's "Preserve After
    /// Deletion"): a history-tracked save that deletes the object keeps this attribute's
    /// value in the delete's change, as its `tombstone`.
    open var preservesValueInHistoryOnDeletion = false
    /// Xcode's "Use Scalar Type": the generated property is a Swift scalar, not an
    /// optional object.
    open var usesScalarValueType = false
}

/// Core Data's `NSDeleteRule`.
public enum NSDeleteRule: UInt, Sendable, Hashable {
    case noActionDeleteRule = 0
    case nullifyDeleteRule = 1
    case cascadeDeleteRule = 2
    case denyDeleteRule = 3
}

/// Core Data's `NSRelationshipDescription`.
open class NSRelationshipDescription: NSPropertyDescription, @unchecked Sendable {
    open weak var destinationEntity: NSEntityDescription?
    open weak var inverseRelationship: NSRelationshipDescription?
    /// The destination's name, for models read from XML before entities are linked.
    var destinationEntityName: String?
    var inverseName: String?
    open var minCount = 0
    /// 1 for a to-one relationship; 0 (no limit) or more for a to-many one.
    open var maxCount = 1
    open var deleteRule: NSDeleteRule = .nullifyDeleteRule
    open var isOrdered = false
    open var isToMany: Bool { maxCount != 1 }
}
