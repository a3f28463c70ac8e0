@_spi(CoreData) public import ManagedContext

/// Core Data's key-value access: attributes in the types the model declares (`Float`,
/// `Decimal`, `UUID`, `URL`, transformed values as well as the runtime's own),
/// to-one relationships as objects, to-many ones as `NSSet`.
extension NSManagedObject {
    /// The Core Data description of attribute `index`, when its values need converting.
    @inline(__always)
    private func convertedAttribute(at index: Int) -> NSAttributeDescription? {
        guard let declaration = entity.declaration as? NSEntityDescription else { return nil }
        return declaration.attributeNeedingConversion(at: index)
    }

    /// Core Data's `primitiveValue(forKey:)`: the value without access notifications.
    /// (The runtime keeps no separate notification layer, so it is `value(forKey:)`.)
    public func primitiveValue(forKey key: String) -> Any? {
        value(forKey: key)
    }

    /// Core Data's `setPrimitiveValue(_:forKey:)`.
    public func setPrimitiveValue(_ value: Any?, forKey key: String) {
        setValue(value, forKey: key)
    }

    /// Core Data's `willAccessValue(forKey:)`: fires the object's fault (a custom
    /// accessor brackets its `primitiveValue(forKey:)` read with it), checked as a read.
    public func willAccessValue(forKey key: String?) { fireFaultAsRead() }
    /// Key-value observing is not available on Linux; these mark the accessors Core
    /// Data's custom-accessor pattern brackets with them, and do nothing else.
    public func didAccessValue(forKey key: String?) {}
    public func willChangeValue(forKey key: String) {}
    public func didChangeValue(forKey key: String) {}

    /// Core Data's `committedValues(forKeys:)`: the last saved or fetched values of the
    /// given attributes (all of them for nil), `NSNull` for nil.
    public func committedValues(forKeys keys: [String]?) -> [String: Any] {
        let all = committedValues()
        guard let keys else { return all }
        return all.filter { keys.contains($0.key) }
    }

    /// A mutable set that changes the to-many relationship `key` (Core Data's
    /// `mutableSetValue(forKey:)`): adding to it relates the object, removing unrelates it.
    public func mutableSetValue(forKey key: String) -> NSMutableSet {
        guard let r = entity.relationship(named: key), r.isToMany else {
            preconditionFailure("[<\(type(of: self)) \(objectID)> mutableSetValueForKey:]: \(entity.name) has no to-many relationship named \"\(key)\".")
        }
        return RelationshipSet(owner: self, key: key)
    }

    /// A mutable ordered set that changes the ordered to-many relationship `key` (Core
    /// Data's `mutableOrderedSetValue(forKey:)`): inserting, removing, replacing and moving
    /// objects in it relates, unrelates and reorders them. It holds the members as they
    /// were when it was made, and writes each change through to the relationship.
    public func mutableOrderedSetValue(forKey key: String) -> NSMutableOrderedSet {
        guard let r = entity.relationship(named: key), r.isToMany, r.isOrdered else {
            preconditionFailure("[<\(type(of: self)) \(objectID)> mutableOrderedSetValueForKey:]: \(entity.name) has no ordered to-many relationship named \"\(key)\".")
        }
        return OrderedRelationshipSet(owner: self, key: key)
    }
}

extension NSManagedObject {
    /// `value(forKey:)` as Core Data hands it out: a number attribute's value as an
    /// `NSNumber` (an `NSDecimalNumber` for a decimal), as the Objective-C accessors box
    /// it. On Linux a Swift `Int16` in an `Any` does not cast to `Int`; an `NSNumber`
    /// casts to every number type it fits, as on Apple platforms. The choice goes by the
    /// attribute's declared type, so a string or date pays no cast.
    func objectValue(forKey key: String) -> Any? {
        // One call reads the attribute, checked, and its type; the value is decoded
        // straight into the box the caller receives (docs/benchmarks.md, item 13). The
        // type comes back apart from the value, and each branch consumes the value: a
        // copied one costs a retain and a release of a string's storage, 8 ns a read.
        var type = AttributeType.string
        guard let stored = keyValueStoredValue(forKey: key, type: &type) else { return convertedOrRelatedValue(forKey: key) }
        switch type {
        case .string: return Optional<String>.fromStored(consume stored)
        case .integer16: return Optional<Int16>.fromStored(consume stored).map { NSNumber(value: $0) }
        case .integer32: return Optional<Int32>.fromStored(consume stored).map { NSNumber(value: $0) }
        case .integer64: return Optional<Int64>.fromStored(consume stored).map { NSNumber(value: $0) }
        case .double: return Optional<Double>.fromStored(consume stored).map { NSNumber(value: $0) }
        case .boolean: return Optional<Bool>.fromStored(consume stored).map { NSNumber(value: $0) }
        case .date: return Optional<Date>.fromStored(consume stored)
        case .binaryData: return Optional<Data>.fromStored(consume stored)
        }
    }

    /// `value(forKey:)` of an attribute whose values convert (a float or a decimal as
    /// `NSNumber`, as Core Data's accessors box them), a relationship, or a ported key.
    @inline(never)
    private func convertedOrRelatedValue(forKey key: String) -> Any? {
        if let attribute = runtimeEntity.keyValueAttribute(key), let converted = convertedAttribute(at: attribute.index) {
            let value = StorageConversion.fromStorage(value(atAttributeIndex: attribute.index), of: converted)
            switch converted.attributeType {
            case .floatAttributeType: return (value as? Float).map { NSNumber(value: $0) } ?? value
            case .decimalAttributeType: return (value as? Decimal).map { NSDecimalNumber(decimal: $0) } ?? value
            default: return value
            }
        }
        return coreDataValue(forKey: key)
    }

    // The key is resolved once, to an attribute's index, and everything after goes by
    // the index (docs/benchmarks.md, item 13). Values stay Swift values: the typed
    // accessors and the predicate evaluator read through this.
    func coreDataValue(forKey key: String) -> Any? {
        if let index = entity.attributeIndex(ifPresent: key) {
            let stored = value(atAttributeIndex: index)
            guard let converted = convertedAttribute(at: index) else { return stored }
            return StorageConversion.fromStorage(stored, of: converted)
        }
        if let r = entity.relationship(named: key) {
            let related = relatedObjects(forRelationshipNamed: key)
            if r.isOrdered { return NSOrderedSet(array: related) }
            return r.isToMany ? NSSet(array: related) : related.first
        }
        // An accessor of the class answers before the model, as an Objective-C method does.
        if let accessor = PortedKeys.accessor(forKey: key, of: type(of: self)) { return accessor.portedValue(of: self) }
        if let fetched = fetchedProperty(named: key) { return fetchedValue(of: fetched) }
        preconditionFailure("[<\(type(of: self)) \(objectID)> valueForUndefinedKey:]: the entity \(entity.name) is not key value coding-compliant for the key \"\(key)\".")
    }

    func coreDataSetValue(_ value: Any?, forKey key: String) {
        if let attribute = runtimeEntity.keyValueAttribute(key) {
            let index = attribute.index
            guard attribute.converts, let converted = convertedAttribute(at: index) else {
                setValue(value, atAttributeIndex: index)
                return
            }
            guard let stored = StorageConversion.toStorage(value, of: converted) else {
                preconditionFailure("Unacceptable type of value for attribute: property = \"\(key)\"; desired type = \(converted.attributeType); given type = \(type(of: value!)); value = \(value!).")
            }
            setValue(stored, atAttributeIndex: index)
            return
        }
        if let r = entity.relationship(named: key) {
            let objects: [ManagedObject]
            if let value, !(value is NSNull) {
                if r.isToMany {
                    objects = RelationshipSet.members(of: value, key: key, entity: entity.name)
                } else {
                    guard let object = value as? ManagedObject else {
                        preconditionFailure("Unacceptable type of value for to-one relationship: property = \"\(key)\"; given type = \(type(of: value)).")
                    }
                    objects = [object]
                }
            } else {
                objects = []
            }
            setRelatedObjects(objects, forRelationshipNamed: key)
            return
        }
        if let accessor = PortedKeys.accessor(forKey: key, of: type(of: self)), accessor.setPortedValue(value, of: self) { return }
        preconditionFailure("[<\(type(of: self)) \(objectID)> setValue:forUndefinedKey:]: the entity \(entity.name) is not key value coding-compliant for the key \"\(key)\".")
    }
}

extension NSEntityDescription {
    /// Attributes whose values need converting between Core Data's type and the
    /// runtime's storage, by runtime attribute index (nil where none is needed).
    func attributeNeedingConversion(at index: Int) -> NSAttributeDescription? {
        let table = conversionTable
        return index < table.count ? table[index] : nil
    }
}

/// A live to-many relationship as a mutable set (Core Data's `mutableSetValue(forKey:)`).
final class RelationshipSet: NSMutableSet {
    private let owner: NSManagedObject
    private let key: String

    init(owner: NSManagedObject, key: String) {
        self.owner = owner
        self.key = key
        super.init(capacity: 0)
    }

    required init(capacity numItems: Int) { preconditionFailure("A relationship set is made by mutableSetValue(forKey:).") }
    required convenience init?(coder: NSCoder) { preconditionFailure("A relationship set cannot be decoded.") }
    required convenience init(arrayLiteral elements: Any...) { preconditionFailure("A relationship set is made by mutableSetValue(forKey:).") }

    private var members: [ManagedObject] { owner.relatedObjects(forRelationshipNamed: key) }

    override var count: Int { members.count }
    override func member(_ object: Any) -> Any? {
        guard let o = object as? ManagedObject else { return nil }
        return members.first { $0 === o }
    }
    override func objectEnumerator() -> NSEnumerator { NSArray(array: members).objectEnumerator() }
    override func add(_ object: Any) {
        guard let o = object as? ManagedObject else { preconditionFailure("Only managed objects can join the relationship \(key).") }
        var current = members
        if !current.contains(where: { $0 === o }) {
            current.append(o)
            owner.setRelatedObjects(current, forRelationshipNamed: key)
        }
    }
    override func remove(_ object: Any) {
        guard let o = object as? ManagedObject else { return }
        owner.setRelatedObjects(members.filter { $0 !== o }, forRelationshipNamed: key)
    }

    /// The managed objects of a to-many value: a set, an array, or their NS forms.
    static func members(of value: Any, key: String, entity: String) -> [ManagedObject] {
        let items: [Any]
        switch value {
        case let set as NSSet: items = set.allObjects
        case let ordered as NSOrderedSet: items = ordered.array
        case let array as NSArray: items = array.map { $0 }
        case let array as [Any]: items = array
        case let set as any Collection: items = set.map { $0 }
        default: preconditionFailure("Unacceptable type of value for to-many relationship: property = \"\(key)\" of \(entity); given type = \(type(of: value)).")
        }
        return items.map { item in
            guard let o = item as? ManagedObject else {
                preconditionFailure("Unacceptable member of to-many relationship \(entity).\(key): \(type(of: item)).")
            }
            return o
        }
    }
}

/// A live ordered to-many relationship as a mutable ordered set (Core Data's
/// `mutableOrderedSetValue(forKey:)`). Foundation's ordered set on Linux reads its own
/// storage rather than overridable primitives, so this one keeps the members in that
/// storage and writes the whole order through after each change.
final class OrderedRelationshipSet: NSMutableOrderedSet {
    private let owner: NSManagedObject
    private let key: String
    private var writing = 0

    init(owner: NSManagedObject, key: String) {
        self.owner = owner
        self.key = key
        super.init(capacity: 0)
        for (i, o) in owner.relatedObjects(forRelationshipNamed: key).enumerated() { super.insert(o, at: i) }
    }

    override init(capacity numItems: Int) { preconditionFailure("A relationship set is made by mutableOrderedSetValue(forKey:).") }
    required convenience init?(coder: NSCoder) { preconditionFailure("A relationship set cannot be decoded.") }
    required convenience init(arrayLiteral elements: Any...) { preconditionFailure("A relationship set is made by mutableOrderedSetValue(forKey:).") }
    override init(objects: UnsafePointer<AnyObject>?, count cnt: Int) {
        preconditionFailure("A relationship set is made by mutableOrderedSetValue(forKey:).")
    }

    /// Runs one change on the members, then relates them in their new order (once, for a
    /// change that Foundation makes of several smaller ones).
    private func change(_ body: () -> Void) {
        writing += 1
        body()
        writing -= 1
        guard writing == 0 else { return }
        owner.setRelatedObjects(array.map { Self.managed($0, key: key) }, forRelationshipNamed: key)
    }

    private static func managed(_ object: Any, key: String) -> ManagedObject {
        guard let o = object as? ManagedObject else { preconditionFailure("Only managed objects can join the relationship \(key).") }
        return o
    }

    override func insert(_ object: Any, at idx: Int) { change { super.insert(Self.managed(object, key: key), at: idx) } }
    override func removeObject(at idx: Int) { change { super.removeObject(at: idx) } }
    override func replaceObject(at idx: Int, with obj: Any) { change { super.replaceObject(at: idx, with: Self.managed(obj, key: key)) } }
    override func add(_ object: Any) { change { super.add(Self.managed(object, key: key)) } }
    override func remove(_ object: Any) { change { super.remove(object) } }
    override func removeAllObjects() { change { super.removeAllObjects() } }
    override func moveObjects(at indexes: IndexSet, to idx: Int) { change { super.moveObjects(at: indexes, to: idx) } }
    override func exchangeObject(at idx1: Int, withObjectAt idx2: Int) { change { super.exchangeObject(at: idx1, withObjectAt: idx2) } }
    // Foundation's own compound changes write its storage directly: each is wrapped too.
    override func add(_ objects: UnsafePointer<AnyObject>?, count: Int) { change { super.add(objects, count: count) } }
    override func addObjects(from array: [Any]) { change { super.addObjects(from: array.map { Self.managed($0, key: key) }) } }
    override func insert(_ objects: [Any], at indexes: IndexSet) { change { super.insert(objects, at: indexes) } }
    override func setObject(_ obj: Any, at idx: Int) { change { super.setObject(obj, at: idx) } }
    override func replaceObjects(in range: NSRange, with objects: UnsafePointer<AnyObject>!, count: Int) {
        change { super.replaceObjects(in: range, with: objects, count: count) }
    }
    override func replaceObjects(at indexes: IndexSet, with objects: [Any]) { change { super.replaceObjects(at: indexes, with: objects) } }
    override func removeObjects(in range: NSRange) { change { super.removeObjects(in: range) } }
    override func removeObjects(at indexes: IndexSet) { change { super.removeObjects(at: indexes) } }
    override func removeObjects(in array: [Any]) { change { super.removeObjects(in: array) } }
    override func intersect(_ other: NSOrderedSet) { change { super.intersect(other) } }
    override func minus(_ other: NSOrderedSet) { change { super.minus(other) } }
    override func union(_ other: NSOrderedSet) { change { super.union(other) } }
    override func intersectSet(_ other: Set<AnyHashable>) { change { super.intersectSet(other) } }
    override func minusSet(_ other: Set<AnyHashable>) { change { super.minusSet(other) } }
    override func unionSet(_ other: Set<AnyHashable>) { change { super.unionSet(other) } }
    override func sortRange(_ range: NSRange, options opts: NSSortOptions = [], usingComparator cmptr: (Any, Any) -> ComparisonResult) {
        change { super.sortRange(range, options: opts, usingComparator: cmptr) }
    }
    override func sort(using sortDescriptors: [NSSortDescriptor]) { change { super.sort(using: sortDescriptors) } }
}
