import CtxdebugHelpers
import Foundation

/// Converts between the values Core Data's attribute types hand out (`Float`,
/// `Decimal`, `UUID`, `URL`, transformed objects, `NSNumber`) and the values the
/// runtime stores them as (see `ModelCompiler.storageType(of:)`).
enum StorageConversion {
    /// The runtime value for a Core Data value of `attribute`, or `.some(nil)` for
    /// nil/NSNull; nil when the value does not fit the attribute.
    static func toStorage(_ value: Any?, of attribute: NSAttributeDescription) -> Any?? {
        guard let value, !(value is NSNull) else { return .some(nil) }
        switch attribute.attributeType {
        case .floatAttributeType, .doubleAttributeType:
            if let n = value as? NSNumber { return n.doubleValue }
            if let f = value as? Float { return Double(f) }
            return value
        case .decimalAttributeType:
            if let d = value as? Decimal { return NSDecimalNumber(decimal: d).doubleValue }
            if let n = value as? NSNumber { return n.doubleValue }
            return value
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
            if let n = value as? NSNumber, !(value is any BinaryInteger), !(value is Bool) {
                return attribute.attributeType == .booleanAttributeType ? n.boolValue : n.int64Value
            }
            return value
        case .UUIDAttributeType:
            if let u = value as? UUID { return withUnsafeBytes(of: u.uuid) { Data($0) } }
            if let s = value as? String, let u = UUID(uuidString: s) { return withUnsafeBytes(of: u.uuid) { Data($0) } }
            return nil
        case .URIAttributeType:
            if let u = value as? URL { return u.absoluteString }
            if let s = value as? String { return s }
            return nil
        case .transformableAttributeType:
            return Transformation.data(from: value, name: attribute.valueTransformerName)
        default:
            return value
        }
    }

    /// The Core Data value of `attribute` for the value the runtime stores.
    static func fromStorage(_ stored: Any?, of attribute: NSAttributeDescription) -> Any? {
        guard let stored else { return nil }
        switch attribute.attributeType {
        case .floatAttributeType:
            return (stored as? Double).map { Float($0) } ?? stored
        case .decimalAttributeType:
            return (stored as? Double).map { Decimal($0) } ?? stored
        case .UUIDAttributeType:
            guard let d = stored as? Data, d.count == 16 else { return nil }
            return d.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        case .URIAttributeType:
            return (stored as? String).flatMap { URL(string: $0) }
        case .transformableAttributeType:
            return (stored as? Data).flatMap { Transformation.value(from: $0, name: attribute.valueTransformerName) }
        default:
            return stored
        }
    }
}

/// Transformable attributes. With no transformer name, or Core Data's default
/// (`NSSecureUnarchiveFromData`), a value is kept as a keyed archive; with the name of a
/// registered transformer, through it, in Core Data's direction: an unarchiving
/// transformer (an `NSSecureUnarchiveFromDataTransformer`) stores with its
/// `reverseTransformedValue(_:)` and reads with `transformedValue(_:)`, any other stores
/// with `transformedValue(_:)` (which must make `Data`) and reads with the reverse. A
/// name no transformer is registered under is warned about once, and kept as an archive.
enum Transformation {
    static func data(from value: Any, name: String?) -> Any?? {
        if let transformer = transformer(named: name) {
            let stored = transformer is NSSecureUnarchiveFromDataTransformer ? transformer.reverseTransformedValue(value) : transformer.transformedValue(value)
            guard let data = stored as? Data else { return nil }
            return .some(data)
        }
        if let data = value as? Data { return .some(data) }
        guard let archived = try? NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: false) else { return nil }
        return .some(archived)
    }

    static func value(from data: Data, name: String?) -> Any? {
        if let transformer = transformer(named: name) {
            return transformer is NSSecureUnarchiveFromDataTransformer ? transformer.transformedValue(data) : transformer.reverseTransformedValue(data)
        }
        if let object = try? NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data) { return object }
        return data
    }

    /// The transformer a non-default name stands for, or nil (after a warning, once per
    /// name, when none is registered under it).
    private static func transformer(named name: String?) -> ValueTransformer? {
        guard let name, !name.isEmpty, !defaultNames.contains(name) else { return nil }
        if let transformer = ValueTransformer.registered(forName: NSValueTransformerName(name)) { return transformer }
        let first = warned.withLock { $0.insert(name).inserted }
        if first {
            FileHandle.standardError.write(
                Data("CoreData: warning: no value transformer is registered under the name \(name); its attribute is kept as a keyed archive. Register it with ValueTransformer.setValueTransformer(_:forName:) before the store is used.\n".utf8))
        }
        return nil
    }

    private static let defaultNames: Set<String> = ["NSSecureUnarchiveFromData", "NSKeyedUnarchiveFromData", "NSUnarchiveFromData"]
    private static let warned = LockedValue<Set<String>>([])
}
