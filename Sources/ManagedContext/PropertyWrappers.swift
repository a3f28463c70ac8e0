import ConcurrencyDebug

protocol AttributeDeclaring {
    var declaredName: String { get }
    var declaredType: AttributeType { get }
    var declaredOptional: Bool { get }
    var declaredDefault: StoredValue { get }
}

protocol RelationshipDeclaring {
    var declaredName: String { get }
    var declaredInverse: String? { get }
    var declaredToMany: Bool { get }
    var declaredDestination: ManagedObject.Type { get }
    var declaredDeleteRule: DeleteRule { get }
}

/// Declares an attribute of a `ManagedObject` subclass, the way `@NSManaged`
/// does in Core Data:
///
/// ```swift
/// @Attribute("location") var location: String?
/// @Attribute("rating") var rating: Int16? = 0   // default for new objects
/// ```
///
/// Every get and set goes through the object's context: it is checked by the
/// concurrency debugger, fires the fault, and records the change.
@propertyWrapper
public struct Attribute<Value: AttributeValue>: AttributeDeclaring {
    @usableFromInline let name: String
    let defaultValue: StoredValue

    /// The attribute called `name` in the model, whose default is the declaration's
    /// initial value (`@Attribute("height") var height: Double = 0`).
    public init(wrappedValue: Value, _ name: String) {
        self.name = name
        self.defaultValue = wrappedValue.storedValue
    }

    /// An optional attribute called `name` with no default (`@Attribute("note") var note: String?`).
    public init(_ name: String) where Value: ExpressibleByNilLiteral {
        self.name = name
        self.defaultValue = .null
    }

    @available(*, unavailable, message: "@Attribute is only available on ManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError() }
        set { fatalError() }
    }

    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value {
        // One statement each, on purpose: written as one nested expression, the
        // optimizer retains and releases `object` around the call, and a managed
        // object's reference count is the slow (side-table) kind: its context holds it weakly.
        get {
            let name = object[keyPath: storageKeyPath].name
            let stored = object.storedValue(forAttributeNamed: name)
            return Value.fromStored(stored)
        }
        set {
            let name = object[keyPath: storageKeyPath].name
            let stored = newValue.storedValue
            object.setStoredValue(stored, forAttributeNamed: name)
        }
    }

    var declaredName: String { name }
    var declaredType: AttributeType { Value.attributeType }
    var declaredOptional: Bool { Value.isOptional }
    var declaredDefault: StoredValue { defaultValue }
}

/// A type that can be the value of a relationship: an optional object (to-one)
/// or a set of objects (to-many).
public protocol RelationshipValue {
    /// True for a set of objects, false for an optional object.
    static var isToMany: Bool { get }
    /// The class of the destination's objects: the relationship's destination entity.
    static var destinationClass: ManagedObject.Type { get }
    /// The value holding `objects` (the first, for a to-one relationship).
    static func fromObjects(_ objects: [ManagedObject]) -> Self
    /// The objects the value holds.
    var objects: [ManagedObject] { get }
}

extension Optional: RelationshipValue where Wrapped: ManagedObject {
    public static var isToMany: Bool { false }
    public static var destinationClass: ManagedObject.Type { Wrapped.self }
    public static func fromObjects(_ objects: [ManagedObject]) -> Self { objects.first.map { $0 as! Wrapped } }
    public var objects: [ManagedObject] { self.map { [$0] } ?? [] }
}

extension Set: RelationshipValue where Element: ManagedObject {
    public static var isToMany: Bool { true }
    public static var destinationClass: ManagedObject.Type { Element.self }
    public static func fromObjects(_ objects: [ManagedObject]) -> Self { Set(objects.map { $0 as! Element }) }
    public var objects: [ManagedObject] { Array(self) }
}

/// Declares a relationship of a `ManagedObject` subclass:
///
/// ```swift
/// @Relationship("place", inverse: "entries") var place: Place?
/// @Relationship("entries", inverse: "place") var entries: Set<JournalEntry>
/// ```
///
/// Setting one side keeps the inverse in step, as Core Data does.
@propertyWrapper
public struct Relationship<Value: RelationshipValue>: RelationshipDeclaring {
    @usableFromInline let name: String
    let inverse: String?
    let deleteRule: DeleteRule

    /// The relationship called `name` in the model, with the destination's relationship
    /// `inverse` pointing back (nil for none), and what deleting the source does to the
    /// destination (`.nullify` by default, as in Core Data).
    public init(_ name: String, inverse: String?, deleteRule: DeleteRule = .nullify) {
        self.name = name
        self.inverse = inverse
        self.deleteRule = deleteRule
    }

    @available(*, unavailable, message: "@Relationship is only available on ManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError() }
        set { fatalError() }
    }

    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value {
        get { Value.fromObjects(object.relatedObjects(forRelationshipNamed: object[keyPath: storageKeyPath].name)) }
        set { object.setRelatedObjects(newValue.objects, forRelationshipNamed: object[keyPath: storageKeyPath].name) }
    }

    var declaredName: String { name }
    var declaredInverse: String? { inverse }
    var declaredToMany: Bool { Value.isToMany }
    var declaredDestination: ManagedObject.Type { Value.destinationClass }
    var declaredDeleteRule: DeleteRule { deleteRule }
}
