import CtxdebugHelpers
import Foundation
import ConcurrencyDebug

/// An attribute of an entity: its name, type and default.
public struct AttributeDescription: Sendable, Hashable {
    /// Its name in the model, and its column's (`Z<NAME>`).
    public let name: String
    /// The type of its values (string, integer, date...).
    public let attributeType: AttributeType
    /// Whether it may have no value; a save of an object without a value for a
    /// non-optional attribute fails validation.
    public let isOptional: Bool
    package let defaultValue: StoredValue
    /// Its position among the entity's attributes.
    public let index: Int
    /// Core Data's `renamingIdentifier`: the attribute's name in an earlier model, which
    /// a lightweight migration renames its column from.
    package var renamingIdentifier: String? = nil
    /// The column the model gives it when `Z` and the upper-cased name is taken in its
    /// table by another entity of the same inheritance tree (Core Data's `ZNAME1`).
    package var assignedColumnName: String? = nil
    /// Core Data's `Z_FOK_<INVERSE>` column: an object's place in the ordered to-many
    /// relationship whose inverse this entity declares. Not one of the model's attributes:
    /// key-value access, `changedValues()` and dictionary fetches leave it out.
    package var isOrderKey = false
    /// Core Data's `isIndexed`: the store keeps an index `Z<ENTITY>_<COLUMN>_INDEX` on its column.
    package var isIndexed = false
    /// Core Data's `preservesValueInHistoryOnDeletion`: a tracked delete keeps its value
    /// in the change's tombstone (`ACHANGE.ZTOMBSTONE<n>`).
    package var preservesValueInHistoryOnDeletion = false
    /// Core Data's `NSDerivedAttributeDescription`: the store computes the value at save
    /// (`Derivation`); nil for every other attribute.
    package var derivation: Derivation? = nil
    /// Core Data's column name: `Z` and the upper-cased name (with a number after it
    /// when a sibling entity in the same table has a property of the same name).
    package var columnName: String { assignedColumnName ?? "Z" + name.uppercased() }
}

/// What happens to the destination when the source of a relationship is deleted.
public enum DeleteRule: Sendable, Hashable {
    /// The inverse is set to nil (Core Data's default).
    case nullify
    /// The destination objects are deleted too.
    case cascade
}

/// A relationship of an entity. To-one relationships are stored as a foreign-key
/// column `Z<NAME>` holding the destination's `Z_PK`; a to-many relationship is
/// the inverse of a to-one and has no column of its own.
public final class RelationshipDescription: Sendable, Hashable {
    /// Its name in the model.
    public let name: String
    /// The name of the entity it points to.
    public let destinationEntityName: String
    /// The name of the destination's relationship that points back, if the model has one.
    public let inverseName: String?
    /// Whether it holds a set of objects (to-many) or one (to-one).
    public let isToMany: Bool
    /// What deleting the source does to the destination objects.
    public let deleteRule: DeleteRule
    /// Core Data's `isOrdered`, for a to-many relationship: its objects keep the order
    /// they were given, in the destination's `Z_FOK_<INVERSE>` column.
    public let isOrdered: Bool
    /// For an ordered to-many relationship: the index, among the destination's
    /// attributes, of the order column. Set once while the model is built.
    nonisolated(unsafe) package internal(set) var orderAttributeIndex = -1
    /// For a many-to-many relationship: its join table. Set once while the model is built.
    nonisolated(unsafe) package internal(set) var join: JoinSide?
    /// Its position among the entity's relationships.
    public let index: Int
    /// For to-one relationships, its position among the entity's to-one slots.
    let toOneIndex: Int
    /// Set once when the model is built, then never changed.
    nonisolated(unsafe) public internal(set) weak var destinationEntity: EntityDescription?
    /// The destination's relationship named `inverseName`, set with `destinationEntity`.
    nonisolated(unsafe) public internal(set) weak var inverseRelationship: RelationshipDescription?

    init(
        name: String, destination: String, inverse: String?, isToMany: Bool, deleteRule: DeleteRule, index: Int, toOneIndex: Int,
        isOrdered: Bool = false
    ) {
        self.name = name
        self.destinationEntityName = destination
        self.inverseName = inverse
        self.isToMany = isToMany
        self.deleteRule = deleteRule
        self.isOrdered = isOrdered && isToMany
        self.index = index
        self.toOneIndex = toOneIndex
    }

    /// Set once while the model is built, when a sibling entity's property took the plain name.
    nonisolated(unsafe) package internal(set) var assignedColumnName: String?
    package var columnName: String { assignedColumnName ?? "Z" + name.uppercased() }

    public static func == (a: RelationshipDescription, b: RelationshipDescription) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// An entity: a `ManagedObject` subclass, its attributes and relationships, and
/// the table `Z<ENTITY>` that stores it.
///
/// `@unchecked Sendable`: every stored property is set while the model is built
/// (before the model is published to any context) and never changed after.
public final class EntityDescription: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// Its name in the model.
    public let name: String
    /// The class the runtime makes its objects of.
    public let managedObjectClass: ManagedObject.Type
    /// Its attributes, in the order of their `index`.
    public private(set) var attributes: [AttributeDescription] = []
    /// Its relationships, in the order of their `index`.
    public private(set) var relationships: [RelationshipDescription] = []
    /// The entity's position in its model; Core Data's `Z_ENT` is this plus one.
    public internal(set) var index: Int = 0
    var toOneRelationships: [RelationshipDescription] = []
    // Unchecked exclusivity on the tables key-value access reads at every call: they are
    // set once while the model is built, before any object exists. (The attribute is
    // honoured only by code of this module: CoreData reads them through
    // `keyValueAttribute(_:)`, docs/benchmarks.md, item 13.)
    /// Attribute names, for the linear scan of a name the slot table does not know.
    @usableFromInline @exclusivity(unchecked) private(set) var attributeNames: [String] = []
    /// Attribute types by index: key-value access converts with them without copying a
    /// description (and retaining its strings).
    @_spi(CoreData) @exclusivity(unchecked) public private(set) var attributeTypes: [AttributeType] = []
    /// Whether key-value access converts attribute `index`'s values (CoreData's Float,
    /// Decimal, UUID, URI and transformable attributes), by index; set as CoreData
    /// compiles its model. Empty when nothing converts.
    @_spi(CoreData) @exclusivity(unchecked) public var convertsOnAccess: [Bool] = []
    /// Finds an attribute's index from its name's bits (see `AttributeSlots`).
    @usableFromInline @exclusivity(unchecked) private(set) var attributeSlots = AttributeSlots(names: [])
    var attributesByName: [String: AttributeDescription] = [:]
    var relationshipsByName: [String: RelationshipDescription] = [:]
    /// What this entity was compiled from, when it was not declared with `@Attribute`s
    /// (Core Data's `NSEntityDescription`). Set once while the model is built.
    @_spi(CoreData) public internal(set) var declaration: AnyObject?
    /// Core Data's `renamingIdentifier`: the entity's name in an earlier model, which a
    /// lightweight migration renames its table from. Set once while the model is built.
    package internal(set) var renamingIdentifier: String?
    /// Key paths the predicate builder has resolved, by recording which accessor
    /// a key path reaches on a prototype.
    let keyPathCache = KeyPathCache()

    init(name: String, managedObjectClass: ManagedObject.Type) {
        self.name = name
        self.managedObjectClass = managedObjectClass
    }

    /// The parent entity (Core Data's `superentity`). Set once while the model is built.
    public internal(set) weak var superentity: EntityDescription?
    /// The entities that inherit from this one directly, by name.
    public internal(set) var subentities: [EntityDescription] = []
    /// Core Data's `isAbstract`: no object of this very entity can be inserted.
    public internal(set) var isAbstract = false
    /// This entity and every entity that inherits from it, parents before children
    /// (the order Core Data numbers them in).
    public internal(set) var selfAndDescendants: [EntityDescription] = []
    /// Whether its table holds other entities' rows too (an inheritance tree): then its
    /// rows are told apart by `Z_ENT`, as Core Data's SQLite store does.
    package internal(set) var sharesTable = false
    /// The columns a fetch of this entity selects after `Z_PK, Z_OPT`, and where each
    /// entity's values sit among them (see `RowLayout`).
    package internal(set) var rowLayout = RowLayout()

    /// The entity at the top of its inheritance tree, whose table `Z<ROOT>` holds the
    /// rows of every entity of the tree (Core Data's single-table inheritance).
    public var rootEntity: EntityDescription {
        var e = self
        while let parent = e.superentity { e = parent }
        return e
    }

    /// Whether this entity is `other` or inherits from it.
    public func isKind(of other: EntityDescription) -> Bool {
        var e: EntityDescription? = self
        while let current = e {
            if current === other { return true }
            e = current.superentity
        }
        return false
    }

    package var tableName: String { "Z" + rootEntity.name.uppercased() }
    public var description: String { name }

    /// The attribute called `name`, or nil.
    public func attribute(named name: String) -> AttributeDescription? { attributesByName[name] }
    /// The relationship called `name`, or nil.
    public func relationship(named name: String) -> RelationshipDescription? { relationshipsByName[name] }

    /// The index of the attribute `name`. The accessors call it on every get and set:
    /// a name that is the very string an `@Attribute` declared (its literal) is found
    /// by its bits in one probe or two; any other string by comparing names.
    @inline(__always)
    func attributeIndex(_ name: String) -> Int {
        let index = attributeSlots.index(of: name)
        if _fastPath(index >= 0) { return index }
        return attributeIndexComparingNames(name)
    }

    /// The index of the attribute `name`, or nil: what key-value access resolves a key
    /// with, once per call (the slot table first, as `attributeIndex(_:)`).
    @inlinable
    @_spi(CoreData) public func attributeIndex(ifPresent name: String) -> Int? {
        let index = attributeSlots.index(of: name)
        if _fastPath(index >= 0) { return index }
        return attributeNames.firstIndex(of: name)
    }

    /// What key-value access needs of the attribute `key`, in one call: its index, its
    /// stored type, and whether its values convert on access; nil for no attribute.
    @_spi(CoreData) public func keyValueAttribute(_ key: String) -> (index: Int, type: AttributeType, converts: Bool)? {
        guard let index = attributeIndex(ifPresent: key) else { return nil }
        return (index, attributeTypes[index], index < convertsOnAccess.count && convertsOnAccess[index])
    }

    @inline(never)
    func attributeIndexComparingNames(_ name: String) -> Int {
        for i in attributeNames.indices where attributeNames[i] == name { return i }
        preconditionFailure("Entity \(self.name) has no attribute named '\(name)'. Declare it with @Attribute(\"\(name)\") in \(managedObjectClass).")
    }

    @inline(__always)
    func relationshipIndex(_ name: String) -> Int {
        for i in relationships.indices where relationships[i].name == name { return i }
        preconditionFailure("Entity \(self.name) has no relationship named '\(name)'.")
    }

    /// The attributes a tracked delete keeps in its change's tombstone, in order: the
    /// n-th is `ACHANGE.ZTOMBSTONE<n>`.
    package private(set) var tombstoneAttributes: [Int] = []

    /// The constraints as declared (attribute names), resolved by `uniquenessConstraints`.
    var declaredConstraints: [[String]] = []

    /// The fetch indexes the entity declares (not those it inherits: an index is made
    /// once, on the table of the tree, by the entity that declares it).
    package internal(set) var fetchIndexes: [FetchIndex] = []

    /// The entity's uniqueness constraints and those it inherits, as attribute indices
    /// (resolved once, when the model is built: each save asks).
    package internal(set) var uniquenessConstraints: [[Int]] = []

    /// A constraint that names anything but attributes (a relationship) is not enforced.
    func resolvedConstraints() -> [[Int]] {
        var all: [[String]] = []
        var entity: EntityDescription? = self
        while let e = entity {
            all.append(contentsOf: e.declaredConstraints)
            entity = e.superentity
        }
        return all.compactMap { names in
            let indices = names.compactMap { attributeIndex(ifPresent: $0) }
            return indices.count == names.count && !indices.isEmpty ? indices : nil
        }
    }

    func finishDeclaring(attributes: [AttributeDescription], relationships: [RelationshipDescription]) {
        self.attributes = attributes
        self.relationships = relationships
        self.attributeNames = attributes.map(\.name)
        self.attributeTypes = attributes.map(\.attributeType)
        self.tombstoneAttributes = attributes.filter(\.preservesValueInHistoryOnDeletion).map(\.index)
        self.attributeSlots = AttributeSlots(names: attributeNames)
        self.defaultValues = attributes.map(\.defaultValue)
        self.toOneRelationships = relationships.filter { !$0.isToMany }
        self.attributesByName = Dictionary(uniqueKeysWithValues: attributes.map { ($0.name, $0) })
        self.relationshipsByName = Dictionary(uniqueKeysWithValues: relationships.map { ($0.name, $0) })
    }

    /// Gives attribute `index` the column `name` (a sibling in the same table took the plain one).
    func assignColumn(attribute index: Int, _ name: String) {
        attributes[index].assignedColumnName = name
        attributesByName[attributes[index].name] = attributes[index]
    }

    /// Default values for a newly inserted object (one shared buffer, copied on write).
    private(set) var defaultValues: [StoredValue] = []

    public static func == (a: EntityDescription, b: EntityDescription) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// An open-addressing table from the bits of an attribute's name (a `String` is two
/// words) to the attribute's index, built once with the entity.
///
/// Every object of a class builds its `@Attribute` wrappers from the same string
/// literals, so the name an accessor passes has the very bits of the name the entity
/// was built from: a small name holds its UTF-8 bytes in those words, a longer literal
/// points at the same constant storage. Equal bits are always equal strings (the
/// table keeps its strings alive, so their storage cannot be reused); a name with
/// other bits (built at run time, or a literal in another module) is not found here
/// and the caller compares names. Read-only after it is built, so any thread may read it.
@usableFromInline
struct AttributeSlots {
    @usableFromInline
    struct Slot {
        @usableFromInline var low: UInt64
        @usableFromInline var high: UInt64
        /// The attribute's index, or -1 for an empty slot.
        @usableFromInline var index: Int
    }

    @usableFromInline let slots: [Slot]
    @usableFromInline let mask: Int
    /// Keeps the names' storage alive while their bits are in `slots`.
    private let names: [String]

    init(names: [String]) {
        var capacity = 8
        while capacity < names.count * 2 { capacity *= 2 }
        var slots = [Slot](repeating: Slot(low: 0, high: 0, index: -1), count: capacity)
        for (index, name) in names.enumerated() {
            let (low, high) = Self.bits(of: name)
            var i = Self.hash(low, high) & (capacity - 1)
            while slots[i].index >= 0 { i = (i + 1) & (capacity - 1) }
            slots[i] = Slot(low: low, high: high, index: index)
        }
        self.slots = slots
        self.mask = capacity - 1
        self.names = names
    }

    @inlinable
    static func bits(of name: String) -> (UInt64, UInt64) {
        unsafeBitCast(name, to: (UInt64, UInt64).self)
    }

    @inlinable
    static func hash(_ low: UInt64, _ high: UInt64) -> Int {
        Int(truncatingIfNeeded: ((low ^ (high &* 31)) &* 0x9E37_79B9_7F4A_7C15) >> 40)
    }

    /// The index of the attribute whose name has `name`'s bits, or -1.
    @inlinable
    func index(of name: String) -> Int {
        let (low, high) = Self.bits(of: name)
        var i = Self.hash(low, high) & mask
        return slots.withUnsafeBufferPointer { table in
            while true {
                let slot = table[i]
                if slot.low == low && slot.high == high && slot.index >= 0 { return slot.index }
                if slot.index < 0 { return -1 }
                i = (i + 1) & mask
            }
        }
    }
}

/// A model: the entities, declared as `ManagedObject` subclasses.
///
/// ```swift
/// final class JournalEntry: ManagedObject {
///     @Attribute("date") var date: Date?
///     @Attribute("rating") var rating: Int16? = 0
/// }
/// let model = ManagedObjectModel(entities: [JournalEntry.self])
/// ```
public final class ManagedObjectModel: Sendable, CustomStringConvertible {
    /// Its entities, in the order of their `index`.
    public let entities: [EntityDescription]
    /// Its entities by name.
    public let entitiesByName: [String: EntityDescription]
    /// Whether an entity has a derived attribute: a save of a model without one skips
    /// the derivation in a single branch.
    package let hasDerivedAttributes: Bool
    private let entitiesByClass: [ObjectIdentifier: EntityDescription]

    /// The entity name of a class: its `CustomEntityName.entityName`, or its name.
    static func entityName(of cls: ManagedObject.Type) -> String {
        (cls as? any CustomEntityName.Type)?.entityName ?? String(describing: cls)
    }

    /// Builds the model from the subclasses' declarations. The entity name is the
    /// class's name, or its `CustomEntityName.entityName`. Entities are numbered
    /// (`Z_ENT`) in alphabetical order of name, as Core Data's model compiler does.
    public convenience init(entities classes: [ManagedObject.Type]) {
        var declarations: [EntityDeclaration] = []
        for cls in classes {
            let entity = EntityDescription(name: Self.entityName(of: cls), managedObjectClass: cls)
            let prototype = cls.init(entity: entity, insertInto: nil)
            var declaration = EntityDeclaration(name: Self.entityName(of: cls), managedObjectClass: cls)
            for child in Mirror(reflecting: prototype).children {
                if let a = child.value as? any AttributeDeclaring {
                    declaration.attributes.append(
                        .init(name: a.declaredName, attributeType: a.declaredType, isOptional: a.declaredOptional, defaultValue: a.declaredDefault))
                } else if let r = child.value as? any RelationshipDeclaring {
                    declaration.relationships.append(
                        .init(
                            name: r.declaredName, destinationEntityName: Self.entityName(of: r.declaredDestination), inverseName: r.declaredInverse,
                            isToMany: r.declaredToMany, deleteRule: r.declaredDeleteRule))
                }
            }
            declarations.append(declaration)
        }
        self.init(declarations: declarations, hint: "Add %@.self to ManagedObjectModel(entities:).")
    }

    /// Builds the model from declarations made without Swift properties: what Core Data's
    /// `NSManagedObjectModel` (an Xcode model, or one built in code) compiles into.
    @_spi(CoreData) public convenience init(declarations: [EntityDeclaration]) {
        self.init(declarations: declarations, hint: "Add an entity named %@ to the model.")
    }

    private init(declarations: [EntityDeclaration], hint: String) {
        let declarations = EntityTree.addingOrderKeys(to: declarations)
        var built = declarations.map(Self.entity)
        let byName = Dictionary(built.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in
            preconditionFailure("Two entities are named '\(a.name)'.")
        })
        built = EntityTree.arrange(built, declarations: declarations, byName: byName)
        for entity in built {
            for r in entity.relationships { Self.link(r, of: entity, byName: byName, hint: hint) }
        }
        EntityTree.assignJoinTables(built)
        for entity in built {
            entity.rowLayout = EntityTree.rowLayout(of: entity)
            entity.uniquenessConstraints = entity.resolvedConstraints()
        }
        self.entities = built
        self.entitiesByName = byName
        self.hasDerivedAttributes = built.contains { $0.attributes.contains { $0.derivation != nil } }
        // A class that stands for several entities (Core Data's plain NSManagedObject)
        // names none of them: `init(context:)` needs the entity given.
        var byClass: [ObjectIdentifier: EntityDescription] = [:]
        var shared: Set<ObjectIdentifier> = []
        for e in built {
            let key = ObjectIdentifier(e.managedObjectClass)
            if byClass.updateValue(e, forKey: key) != nil { shared.insert(key) }
        }
        for key in shared { byClass[key] = nil }
        self.entitiesByClass = byClass
    }

    /// One entity with its attributes and relationships, not yet linked to the others.
    private static func entity(_ declaration: EntityDeclaration) -> EntityDescription {
        let entity = EntityDescription(name: declaration.name, managedObjectClass: declaration.managedObjectClass)
        entity.declaration = declaration.declaration
        entity.isAbstract = declaration.isAbstract
        entity.renamingIdentifier = declaration.renamingIdentifier
        entity.declaredConstraints = declaration.uniquenessConstraints
        entity.fetchIndexes = declaration.fetchIndexes
        var attributes: [AttributeDescription] = []
        var relationships: [RelationshipDescription] = []
        var toOneCount = 0
        for a in declaration.attributes {
            precondition(
                !attributes.contains { $0.name == a.name },
                "Entity \(entity.name) declares the attribute '\(a.name)' twice.")
            attributes.append(
                AttributeDescription(
                    name: a.name, attributeType: a.attributeType, isOptional: a.isOptional,
                    defaultValue: a.defaultValue, index: attributes.count, renamingIdentifier: a.renamingIdentifier,
                    assignedColumnName: a.isOrderKey ? a.name : nil, isOrderKey: a.isOrderKey, isIndexed: a.isIndexed,
                    preservesValueInHistoryOnDeletion: a.preservesValueInHistoryOnDeletion, derivation: a.derivation))
        }
        for r in declaration.relationships {
            let toOneIndex = r.isToMany ? -1 : toOneCount
            if !r.isToMany { toOneCount += 1 }
            relationships.append(
                RelationshipDescription(
                    name: r.name, destination: r.destinationEntityName,
                    inverse: r.inverseName, isToMany: r.isToMany, deleteRule: r.deleteRule,
                    index: relationships.count, toOneIndex: toOneIndex, isOrdered: r.isOrdered))
        }
        entity.finishDeclaring(attributes: attributes, relationships: relationships)
        return entity
    }

    /// Points `r` at its destination and inverse (and an ordered one at its order column);
    /// what this runtime cannot store stops with what to write instead.
    private static func link(_ r: RelationshipDescription, of entity: EntityDescription, byName: [String: EntityDescription], hint: String) {
        guard let destination = byName[r.destinationEntityName] else {
            preconditionFailure(
                "Relationship \(entity.name).\(r.name) points to \(r.destinationEntityName), which is not in the model. "
                    + hint.replacingOccurrences(of: "%@", with: r.destinationEntityName))
        }
        r.destinationEntity = destination
        guard let inverseName = r.inverseName else {
            precondition(!r.isToMany, "To-many relationship \(entity.name).\(r.name) needs an inverse to-one (its foreign key lives there).")
            return
        }
        guard let inverse = destination.relationship(named: inverseName) else {
            preconditionFailure("Relationship \(entity.name).\(r.name) names the inverse '\(inverseName)', which \(destination.name) does not declare.")
        }
        precondition(
            !(r.isToMany && inverse.isToMany && inverse === r),
            "\(entity.name).\(r.name) is a many-to-many relationship that is its own inverse, which this runtime does not store yet; give it a separate inverse relationship.")
        precondition(
            !(r.isToMany && inverse.isToMany && (r.isOrdered || inverse.isOrdered)),
            "\(entity.name).\(r.name) and \(destination.name).\(inverseName) are an ordered many-to-many relationship, which this runtime does not store yet; make both sides unordered and sort in the fetch.")
        r.inverseRelationship = inverse
        if r.isOrdered {
            guard let key = destination.attribute(named: EntityTree.orderKeyName(inverse: inverseName)) else {
                preconditionFailure("Ordered relationship \(entity.name).\(r.name) has no order column in \(destination.name).")
            }
            r.orderAttributeIndex = key.index
        }
    }

    /// The entity whose class is `cls`, or nil.
    @_spi(CoreData) public func entityIfDeclared(for cls: ManagedObject.Type) -> EntityDescription? {
        entitiesByClass[ObjectIdentifier(cls)]
    }

    /// The entity called `name`, or nil.
    public func entity(named name: String) -> EntityDescription? { entitiesByName[name] }

    /// The entity of the class `cls`; a class that is not one of the model's entities
    /// stops the program, naming what to add to `ManagedObjectModel(entities:)`.
    public func entity(for cls: ManagedObject.Type) -> EntityDescription {
        guard let e = entitiesByClass[ObjectIdentifier(cls)] else {
            preconditionFailure("\(cls) is not an entity of this model. Add \(cls).self to ManagedObjectModel(entities:).")
        }
        return e
    }

    public var description: String { "ManagedObjectModel(\(entities.map(\.name).joined(separator: ", ")))" }
}

/// Resolved key paths of one entity. Guarded by a lock: any context may build a
/// predicate at any time.
final class KeyPathCache: Sendable {
    private let storage = LockedValue<[PropertyKeyPath: PropertyReference]>([:])
    func lookup(_ keyPath: PropertyKeyPath) -> PropertyReference? { storage.withLock { $0[keyPath] } }
    func store(_ keyPath: PropertyKeyPath, _ ref: PropertyReference) { storage.withLock { $0[keyPath] = ref } }
}

/// A property a key path refers to.
enum PropertyReference: Hashable, Sendable {
    case attribute(Int)
    case toOne(Int)  // relationship index
}

/// The columns a fetch of an entity selects after `Z_PK, Z_OPT`, and where the values of
/// each entity it may return sit among them. For an entity outside any inheritance tree
/// whose to-one relationships all point outside one, the columns are its attributes then
/// its to-one keys, and the row decodes by position (`isPlain`). Otherwise the columns are
/// those of the entity and of every subentity, then `Z_ENT` (which entity a row is), then
/// for each to-one relationship whose destination has subentities, the destination's
/// `Z_ENT` (so the related object's ID names its own entity).
package struct RowLayout: Sendable {
    package struct Positions: Sendable {
        /// By attribute index: the column position.
        var attributes: [Int] = []
        /// By to-one slot: the key's column position.
        var toOne: [Int] = []
        /// By to-one slot: the destination's `Z_ENT` column position, or -1.
        var toOneEntity: [Int] = []
    }
    package var columns: [String] = []
    package var isPlain = true
    /// Position of `Z_ENT` among `columns`, or -1.
    var entityColumn = -1
    /// By entity index (of this entity and its descendants): where its values are.
    var positions: [Int: Positions] = [:]
}

/// An entity declared by value, for models that are not built from `@Attribute`
/// declarations (Core Data's `NSManagedObjectModel`).
@_spi(CoreData) public struct EntityDeclaration {
    public struct Attribute {
        public var name: String
        public var attributeType: AttributeType
        public var isOptional: Bool
        package var defaultValue: StoredValue
        /// Core Data's `renamingIdentifier`: the attribute's name in an earlier model.
        public var renamingIdentifier: String?
        /// The order column of an ordered to-many relationship (`EntityTree.addingOrderKeys`).
        package var isOrderKey = false
        /// Core Data's `isIndexed`.
        public var isIndexed = false
        /// Core Data's `preservesValueInHistoryOnDeletion`.
        public var preservesValueInHistoryOnDeletion = false
        /// Core Data's derived attribute: what the store computes its value from.
        package var derivation: Derivation?
        public init(name: String, attributeType: AttributeType, isOptional: Bool, defaultValue: Any?) {
            self.name = name
            self.attributeType = attributeType
            self.isOptional = isOptional
            self.defaultValue = attributeType.storedValue(fromSwift: defaultValue) ?? .null
        }
        package init(name: String, attributeType: AttributeType, isOptional: Bool, defaultValue: StoredValue) {
            self.name = name
            self.attributeType = attributeType
            self.isOptional = isOptional
            self.defaultValue = defaultValue
        }
    }
    public struct Relationship {
        public var name: String
        public var destinationEntityName: String
        public var inverseName: String?
        public var isToMany: Bool
        public var deleteRule: DeleteRule
        /// Core Data's `isOrdered` (to-many only).
        public var isOrdered: Bool
        public init(
            name: String, destinationEntityName: String, inverseName: String?, isToMany: Bool, deleteRule: DeleteRule, isOrdered: Bool = false
        ) {
            self.name = name
            self.destinationEntityName = destinationEntityName
            self.inverseName = inverseName
            self.isToMany = isToMany
            self.deleteRule = deleteRule
            self.isOrdered = isOrdered
        }
    }
    public var name: String
    public var managedObjectClass: ManagedObject.Type
    public var attributes: [Attribute] = []
    public var relationships: [Relationship] = []
    /// Kept on the built `EntityDescription` as its `declaration`.
    public var declaration: AnyObject?
    /// Core Data's `renamingIdentifier`: the entity's name in an earlier model.
    public var renamingIdentifier: String?
    /// Core Data's `parentEntity`: the entity this one inherits from. Its attributes and
    /// relationships come first in this declaration, in the parent's order.
    public var parentName: String?
    /// Core Data's `isAbstract`.
    public var isAbstract = false
    /// Core Data's `uniquenessConstraints`: each a list of attribute names whose values
    /// together are unique among the entity's rows (and its subentities').
    public var uniquenessConstraints: [[String]] = []
    /// Core Data's `indexes`: the entity's fetch indexes, which the store makes SQLite indexes.
    public var fetchIndexes: [FetchIndex] = []
    public init(name: String, managedObjectClass: ManagedObject.Type, declaration: AnyObject? = nil) {
        self.name = name
        self.managedObjectClass = managedObjectClass
        self.declaration = declaration
    }
}
