@_spi(CoreData) import ManagedContext

/// What `ctxdebug port` writes for an `@NSManaged` property: one generic accessor pair,
/// so the ported line stays as short as the original.
///
///     @NSManaged public var date: Date?
///     // becomes
///     public var date: Date? { get { managedValue(forKey: "date") } set { setManagedValue(newValue, forKey: "date") } }
///
/// The declared type is bridged as Core Data's dynamic accessors bridge it: an optional
/// or a scalar attribute (`Int16`, `Int`, `Double`, `Float`, `Bool`; nil reads as 0),
/// `NSNumber` and `NSDecimalNumber`, a to-one relationship's class, a to-many one as
/// `NSSet`, `Set<T>` or `NSOrderedSet`, a transformable value's own type.
extension NSManagedObject {
    /// The value of the attribute or relationship `key`, as the declared type `T`.
    public func managedValue<T>(forKey key: String) -> T {
        let raw = coreDataValue(forKey: key)
        if let value = raw as? T { return value }
        if let value = PortedBridge.convert(raw, to: T.self) { return value }
        if raw == nil || raw is NSNull {
            preconditionFailure(
                "\(type(of: self)).\(key) is nil but is declared as the non-optional \(T.self). Declare it optional (\(T.self)?), or give the attribute a default value in the model.")
        }
        preconditionFailure("\(type(of: self)).\(key) holds a \(type(of: raw!)), which cannot be read as the declared \(T.self). Declare the property with the type the model gives it.")
    }

    /// Sets the attribute or relationship `key` from a value of its declared type.
    public func setManagedValue<T>(_ value: T, forKey key: String) {
        setValue(PortedBridge.storable(value, forKey: key, of: self), forKey: key)
    }
}

/// The conversions between declared property types and the values `value(forKey:)`
/// hands out and `setValue(_:forKey:)` takes.
enum PortedBridge {
    /// `raw` as `T` when `T` is an optional, a number type, `NSNumber`, a set or an
    /// ordered set that `raw` converts to; nil when it does not.
    static func convert<T>(_ raw: Any?, to: T.Type) -> T? {
        if let optional = T.self as? any PortedOptional.Type {
            return optional.converting(raw) as? T
        }
        guard let raw, !(raw is NSNull) else {
            // A scalar attribute that is nil reads as zero, as Core Data's scalar accessors do.
            if let number = T.self as? any PortedNumber.Type { return number.zero as? T }
            return nil
        }
        if let number = T.self as? any PortedNumber.Type { return number.from(raw) as? T }
        if T.self == NSNumber.self { return number(from: raw) as? T }
        if T.self == NSDecimalNumber.self {
            if let d = raw as? Decimal { return NSDecimalNumber(decimal: d) as? T }
            return number(from: raw).map { NSDecimalNumber(value: $0.doubleValue) } as? T
        }
        if T.self == Decimal.self, let n = number(from: raw) { return n.decimalValue as? T }
        if let set = T.self as? any PortedSet.Type, let members = members(of: raw) { return set.make(members) as? T }
        if T.self == NSOrderedSet.self, let members = members(of: raw) { return NSOrderedSet(array: members) as? T }
        if T.self == NSSet.self, let members = members(of: raw) { return NSSet(array: members) as? T }
        return nil
    }

    /// The value to hand `setValue(_:forKey:)` for a declared value: nil for an empty
    /// optional, a set's members as an `NSSet`, an `NSNumber`'s value in the attribute's type.
    static func storable<T>(_ value: T, forKey key: String, of object: NSManagedObject) -> Any? {
        let unwrapped: Any? = if let optional = value as? any PortedOptional { optional.wrapped } else { value }
        guard let any = unwrapped else { return nil }
        if let set = any as? any PortedSet { return NSSet(array: set.members) }
        if let number = any as? NSNumber, let attribute = object.entity.attribute(named: key) {
            if any is NSDecimalNumber, let d = any as? NSDecimalNumber { return d.decimalValue }
            switch attribute.attributeType {
            case .integer16, .integer32, .integer64: return number.int64Value
            case .boolean: return number.boolValue
            case .double: return number.doubleValue
            default: return number
            }
        }
        return any
    }

    static func number(from raw: Any) -> NSNumber? {
        switch raw {
        case let n as NSNumber: n
        case let v as Int16: NSNumber(value: v)
        case let v as Int32: NSNumber(value: v)
        case let v as Int64: NSNumber(value: v)
        case let v as Int: NSNumber(value: v)
        case let v as Double: NSNumber(value: v)
        case let v as Float: NSNumber(value: v)
        case let v as Bool: NSNumber(value: v)
        case let v as Decimal: NSDecimalNumber(decimal: v)
        default: nil
        }
    }

    static func members(of raw: Any) -> [Any]? {
        switch raw {
        case let s as NSSet: s.allObjects
        case let s as NSOrderedSet: s.array
        case let a as [Any]: a
        default: nil
        }
    }
}

/// `Optional<Wrapped>`, seen from generic code.
protocol PortedOptional {
    static func converting(_ raw: Any?) -> Any?
    var wrapped: Any? { get }
}

extension Optional: PortedOptional {
    static func converting(_ raw: Any?) -> Any? {
        guard let raw, !(raw is NSNull) else { return Wrapped?.none as Any }
        if let value = raw as? Wrapped { return Wrapped?.some(value) as Any }
        return PortedBridge.convert(raw, to: Wrapped.self).map { Wrapped?.some($0) as Any }
    }
    var wrapped: Any? { self.map { $0 } }
}

/// The number types a scalar attribute may be declared as.
protocol PortedNumber {
    static var zero: Self { get }
    static func from(_ raw: Any) -> Self?
}

extension PortedNumber {
    static func from(_ raw: Any) -> Self? {
        guard let n = PortedBridge.number(from: raw) else { return nil }
        return make(n)
    }
    private static func make(_ n: NSNumber) -> Self? {
        switch Self.self {
        case is Int16.Type: n.int16Value as? Self
        case is Int32.Type: n.int32Value as? Self
        case is Int64.Type: n.int64Value as? Self
        case is Int.Type: n.intValue as? Self
        case is Double.Type: n.doubleValue as? Self
        case is Float.Type: n.floatValue as? Self
        case is Bool.Type: n.boolValue as? Self
        default: nil
        }
    }
}

extension Int16: PortedNumber {}
extension Int32: PortedNumber {}
extension Int64: PortedNumber {}
extension Int: PortedNumber {}
extension Double: PortedNumber {}
extension Float: PortedNumber {}
extension Bool: PortedNumber { static var zero: Bool { false } }

/// `Set<Element>` declared for a to-many relationship (Xcode's `Set<Note>` style).
protocol PortedSet {
    static func make(_ members: [Any]) -> Self?
    var members: [Any] { get }
}

extension Set: PortedSet {
    static func make(_ members: [Any]) -> Set<Element>? {
        var set = Set<Element>()
        for m in members {
            guard let e = m as? Element else { return nil }
            set.insert(e)
        }
        return set
    }
    var members: [Any] { map { $0 } }
}
