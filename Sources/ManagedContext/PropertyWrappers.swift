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

    public init(wrappedValue: Value, _ name: String) {
        self.name = name
        self.defaultValue = wrappedValue.storedValue
    }

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
    static var isToMany: Bool { get }
    static var destinationClass: ManagedObject.Type { get }
    static func fromObjects(_ objects: [ManagedObject]) -> Self
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
