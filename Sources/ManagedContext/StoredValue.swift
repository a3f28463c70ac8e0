public import Foundation

/// A value as SQLite stores it. Attribute values convert to and from this. Not public
/// API: this package's modules and tools use it; apps see Swift values
/// (`value(forKey:)`, the attributes' own types).
@usableFromInline package enum StoredValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    package var isNull: Bool { if case .null = self { true } else { false } }

    /// NULL for a NaN, as SQLite binds and stores one: what a predicate's value
    /// compares as, in SQL and in memory alike.
    var nanAsNull: StoredValue {
        if case .real(let d) = self, d.isNaN { return .null }
        return self
    }

    /// The numeric value, for integers and reals alike.
    var numeric: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .real(let d): d
        default: nil
        }
    }

    /// SQLite's order: NULL < numbers < text (BINARY, byte order of UTF-8) < blobs.
    /// In-memory sorting uses this so it agrees with `ORDER BY` in SQL.
    static func compare(_ a: StoredValue, _ b: StoredValue) -> Int {
        func rank(_ v: StoredValue) -> Int {
            switch v {
            case .null: 0
            case .integer, .real: 1
            case .text: 2
            case .blob: 3
            }
        }
        let ra = rank(a), rb = rank(b)
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case (.null, .null): return 0
        case (.integer(let x), .integer(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.text(let x), .text(let y)): return compareBytes(x.utf8, y.utf8)
        case (.blob(let x), .blob(let y)): return compareBytes(x, y)
        default:
            let x = a.numeric!, y = b.numeric!
            return x == y ? 0 : (x < y ? -1 : 1)
        }
    }

    private static func compareBytes<C: Collection>(_ x: C, _ y: C) -> Int where C.Element == UInt8 {
        var i = x.makeIterator(), j = y.makeIterator()
        while true {
            switch (i.next(), j.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let p?, let q?): if p != q { return p < q ? -1 : 1 }
            }
        }
    }

    /// SQL equality as SQLite evaluates `=` (numbers compare by value; NULL equals nothing).
    static func sqlEquals(_ a: StoredValue, _ b: StoredValue) -> Bool {
        if a.isNull || b.isNull { return false }
        return compare(a, b) == 0
    }
}

/// The attribute types of the model, as in Core Data.
public enum AttributeType: String, Sendable, CaseIterable {
    /// `String`, `Int16`, `Int32`, `Int64`, `Double`, `Bool`, `Date` and `Data` values,
    /// Core Data's string, integer, double, boolean, date and binary-data attributes.
    case string, integer16, integer32, integer64, double, boolean, date, binaryData

    /// The declared column type Core Data writes for this attribute type.
    var sqlType: String {
        switch self {
        case .string: "VARCHAR"
        case .integer16, .integer32, .integer64, .boolean: "INTEGER"
        case .double: "FLOAT"
        case .date: "TIMESTAMP"
        case .binaryData: "BLOB"
        }
    }
}

/// How `@Attribute`'s accessors hand a value to and from the store. Not API: its
/// contents are this package's own.
public struct _AttributeStorage {
    @usableFromInline package var value: StoredValue
    @inlinable package init(_ value: consuming StoredValue) { self.value = value }
}

/// A Swift type that can be the value of an attribute: `String`, `Int16`, `Int32`,
/// `Int64`, `Double`, `Bool`, `Date`, `Data`, and optionals of them.
public protocol AttributeValue {
    /// The model's attribute type for values of this type.
    static var attributeType: AttributeType { get }
    /// True for an optional: the attribute may have no value.
    static var isOptional: Bool { get }
    /// Not API. Decodes a stored value (taken, so that a getter neither copies nor
    /// destroys it twice). A NULL or a value of another kind gives the
    /// type's empty value (nil for optionals, 0 for numbers), as Core Data's scalars do.
    static func _fromStorage(_ storage: __owned _AttributeStorage) -> Self
    /// Not API. The value as the store holds it.
    var _storage: _AttributeStorage { get }
}

extension AttributeValue {
    /// False: a value of a non-optional type is always there.
    public static var isOptional: Bool { false }

    /// Decodes a stored value (see `_fromStorage`).
    @inlinable package static func fromStored(_ value: consuming StoredValue) -> Self { _fromStorage(_AttributeStorage(value)) }
    /// The value as the store holds it.
    @inlinable package var storedValue: StoredValue { _storage.value }
}

extension Optional: AttributeValue where Wrapped: AttributeValue {
    public static var attributeType: AttributeType { Wrapped.attributeType }
    public static var isOptional: Bool { true }
    @inlinable public static func _fromStorage(_ storage: __owned _AttributeStorage) -> Self {
        if case .null = storage.value { return nil }
        return Wrapped._fromStorage(storage)
    }
    @inlinable public var _storage: _AttributeStorage { self?._storage ?? _AttributeStorage(.null) }
}

extension String: AttributeValue {
    public static var attributeType: AttributeType { .string }
    @inlinable public static func _fromStorage(_ storage: __owned _AttributeStorage) -> String {
        switch storage.value {
        case .text(let s): s
        case .integer(let i): String(i)
        case .real(let d): String(d)
        case .blob(let b): String(decoding: b, as: UTF8.self)
        case .null: ""
        }
    }
    @inlinable public var _storage: _AttributeStorage { _AttributeStorage(.text(self)) }
}

extension Int64: AttributeValue {
    public static var attributeType: AttributeType { .integer64 }
    @inlinable public static func _fromStorage(_ storage: __owned _AttributeStorage) -> Int64 {
        switch storage.value {
        case .integer(let i): i
        case .real(let d): Int64(exactly: d.rounded(.towardZero)) ?? 0
        case .text(let s): Int64(s) ?? 0
        default: 0
        }
    }
    @inlinable public var _storage: _AttributeStorage { _AttributeStorage(.integer(self)) }
}

extension Int32: AttributeValue {
    public static var attributeType: AttributeType { .integer32 }
    @inlinable public static func _fromStorage(_ storage: __owned _AttributeStorage) -> Int32 {
        Int32(truncatingIfNeeded: Int64._fromStorage(storage))
    }
    @inlinable public var _storage: _AttributeStorage { _AttributeStorage(.integer(Int64(self))) }
}

extension Int16: AttributeValue {
    public static var attributeType: AttributeType { .integer16 }
    @inlinable public static func _fromStorage(_ storage: __owned _AttributeStorage) -> Int16 {
        Int16(truncatingIfNeeded: Int64._fromStorage(storage))
    }
    @inlinable public var _storage: _AttributeStorage { _AttributeStorage(.integer(Int64(self))) }
}

extension Double: AttributeValue {
    public static var attributeType: AttributeType { .double }
    @inlinable public static func _fromStorage(_ storage: __owned _AttributeStorage) -> Double {
        switch storage.value {
        case .real(let d): d
        case .integer(let i): Double(i)
        case .text(let s): Double(s) ?? 0
        default: 0
        }
    }
    @inlinable public var _storage: _AttributeStorage { _AttributeStorage(.real(self)) }
}

extension Bool: AttributeValue {
    public static var attributeType: AttributeType { .boolean }
    @inlinable public static func _fromStorage(_ storage: __owned _AttributeStorage) -> Bool {
        Int64._fromStorage(storage) != 0
    }
    @inlinable public var _storage: _AttributeStorage { _AttributeStorage(.integer(self ? 1 : 0)) }
}

extension Date: AttributeValue {
    public static var attributeType: AttributeType { .date }
    /// Core Data stores dates as seconds since 2001-01-01 00:00:00 UTC.
    @inlinable public static func _fromStorage(_ storage: __owned _AttributeStorage) -> Date {
        Date(timeIntervalSinceReferenceDate: Double._fromStorage(storage))
    }
    @inlinable public var _storage: _AttributeStorage { _AttributeStorage(.real(timeIntervalSinceReferenceDate)) }
}

extension Data: AttributeValue {
    public static var attributeType: AttributeType { .binaryData }
    @inlinable public static func _fromStorage(_ storage: __owned _AttributeStorage) -> Data {
        switch storage.value {
        case .blob(let b): b
        case .text(let s): Data(s.utf8)
        default: Data()
        }
    }
    @inlinable public var _storage: _AttributeStorage { _AttributeStorage(.blob(self)) }
}

extension AttributeType {
    /// A stored value as the Swift value key-value access returns for this type, as
    /// Core Data returns objects: `String`, `Int16`/`Int32`/`Int64`, `Double`, `Bool`,
    /// `Date`, `Data`; nil for NULL.
    /// A value of this type that every reading of it accepts (as a string, a URL; as
    /// data, a UUID's 16 bytes): what a recording prototype holds while a key path is
    /// read on it to find its attribute.
    var recordingStandIn: StoredValue {
        switch self {
        case .string: .text("ctxdebug:key-path")
        case .integer16, .integer32, .integer64, .boolean: .integer(0)
        case .double, .date: .real(0)
        case .binaryData: .blob(Data(count: 16))
        }
    }

    func swiftValue(_ stored: StoredValue) -> Any? {
        if stored.isNull { return nil }
        switch self {
        case .string: return String.fromStored(stored)
        case .integer16: return Int16.fromStored(stored)
        case .integer32: return Int32.fromStored(stored)
        case .integer64: return Int64.fromStored(stored)
        case .double: return Double.fromStored(stored)
        case .boolean: return Bool.fromStored(stored)
        case .date: return Date.fromStored(stored)
        case .binaryData: return Data.fromStored(stored)
        }
    }

    /// The stored value of a Swift value given to `setValue(_:forKey:)`, or nil when
    /// the value cannot be an attribute of this type (Core Data raises "Unacceptable
    /// type of value for attribute"). nil and `NSNull` are NULL; any integer or
    /// floating-point number is accepted for a numeric type.
    func storedValue(fromSwift value: Any?) -> StoredValue? {
        guard let value else { return .null }
        // NSNull is asked last: a cast of a Swift value to a class bridges it (an Int64
        // becomes an NSNumber, allocated) before it can answer no.
        guard let stored = storedValue(fromNonNull: value) else { return value is NSNull ? .null : nil }
        return stored
    }

    private func storedValue(fromNonNull value: Any) -> StoredValue? {
        switch self {
        case .string:
            return (value as? String).map { .text($0) }
        case .integer16, .integer32, .integer64, .boolean:
            // Swift's own integers first: a cast to NSNumber would bridge them (and allocate).
            if let i = value as? Int64 { return .integer(i) }
            if let i = value as? Int { return .integer(Int64(i)) }
            if let b = value as? Bool { return .integer(b ? 1 : 0) }
            if let i = value as? any BinaryInteger { return Int64(exactly: i).map { .integer($0) } }
            if let d = value as? any BinaryFloatingPoint { return Int64(exactly: Double(d)).map { .integer($0) } }
            // Core Data code hands numbers as NSNumber (`entry.rating = 4` with an
            // `NSNumber?` property).
            if let n = value as? NSNumber {
                let d = n.doubleValue
                return d == d.rounded(.towardZero) ? .integer(n.int64Value) : nil
            }
            return nil
        case .double:
            if let d = value as? Double { return .real(d) }
            if let d = value as? any BinaryFloatingPoint { return .real(Double(d)) }
            if let i = value as? any BinaryInteger { return .real(Double(i)) }
            if let n = value as? NSNumber { return .real(n.doubleValue) }
            return nil
        case .date:
            return (value as? Date).map { .real($0.timeIntervalSinceReferenceDate) }
        case .binaryData:
            return (value as? Data).map { .blob($0) }
        }
    }
}
