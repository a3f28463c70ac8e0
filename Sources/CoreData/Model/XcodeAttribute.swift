import Foundation
import XcodeModel

/// An attribute of an Xcode model in Core Data's values: its `NSAttributeType` and its
/// default value, each checked against Xcode's names and the type.
extension XcodeAttribute {
    private static let posix = Locale(identifier: "en_US_POSIX")

    /// Xcode's names of the attribute types (`attributeType="Integer 16"`).
    static let types: [String: NSAttributeType] = [
        "Integer 16": .integer16AttributeType, "Integer 32": .integer32AttributeType, "Integer 64": .integer64AttributeType,
        "Decimal": .decimalAttributeType, "Double": .doubleAttributeType, "Float": .floatAttributeType,
        "String": .stringAttributeType, "Boolean": .booleanAttributeType, "Date": .dateAttributeType,
        "Binary": .binaryDataAttributeType, "UUID": .UUIDAttributeType, "URI": .URIAttributeType,
        "Transformable": .transformableAttributeType, "ObjectID": .objectIDAttributeType, "Undefined": .undefinedAttributeType,
    ]

    /// The attribute's type, or why its `attributeType` is not one Core Data has.
    func attributeType(entity: String, file: String) throws(XcodeModelError) -> NSAttributeType {
        guard let type = Self.types[typeName] else {
            let known = Self.types.keys.sorted().joined(separator: ", ")
            throw XcodeModelError(
                .unknownAttributeType, "Attribute \(entity).\(name) has the type '\(typeName)', which Core Data does not have. Use one of: \(known).", file: file, line: line)
        }
        return type
    }

    /// The default value (`defaultDateTimeInterval` for a date, else `defaultValueString`)
    /// as a value of `type`, nil when there is none, or why it is not one.
    func defaultValue(of type: NSAttributeType, entity: String, file: String) throws(XcodeModelError) -> Any? {
        if let interval = defaultDateTimeInterval, type == .dateAttributeType {
            guard let seconds = Double(interval) else {
                throw XcodeModelError(.invalidValue, "Attribute \(entity).\(name) has the default date '\(interval)', which is not a number of seconds since 2001-01-01.", file: file, line: line)
            }
            return Date(timeIntervalSinceReferenceDate: seconds)
        }
        guard let text = defaultValueString else { return nil }
        guard let value = Self.value(of: text, type: type) else {
            throw XcodeModelError(
                .invalidValue, "Attribute \(entity).\(name) has the default value '\(text)', which is not a valid \(typeName). Fix it in Xcode's Data Model inspector.",
                file: file, line: line)
        }
        return value
    }

    /// A `defaultValueString` as a value of the attribute's type, as Core Data's model
    /// compiler converts it: integers as `Int16`/`Int32`/`Int64`, `Double`, `Float`,
    /// `Decimal`, `Bool` (`YES`/`NO`), a `Date` from seconds since 2001-01-01, `UUID`,
    /// `URL`. Nil when the text does not parse.
    /// An integer written as a decimal (`0.0`): Xcode's models keep the text the inspector
    /// had when the attribute's type changed from a decimal type, and Core Data's model
    /// compiler reads it as the number (Core Data by Tutorials' EmployeeDirectory:
    /// `Sale.amount`, Integer 16, default `0.0`). A fraction (`1.5`) is not an integer.
    private static func integral(_ text: String) -> Double? {
        guard let value = Double(text), value.isFinite, value.rounded(.towardZero) == value else { return nil }
        return value
    }

    static func value(of text: String, type: NSAttributeType) -> Any? {
        // Spaces and tabs around a number, as Foundation's whitespace trim would drop
        // (without its cost: a model has hundreds of defaults).
        var slice = Substring(text)
        while let c = slice.first, c == " " || c == "\t" { slice.removeFirst() }
        while let c = slice.last, c == " " || c == "\t" { slice.removeLast() }
        let trimmed = String(slice)
        switch type {
        case .integer16AttributeType: return Int16(trimmed) ?? integral(trimmed).flatMap { Int16(exactly: $0) }
        case .integer32AttributeType: return Int32(trimmed) ?? integral(trimmed).flatMap { Int32(exactly: $0) }
        case .integer64AttributeType: return Int64(trimmed) ?? integral(trimmed).flatMap { Int64(exactly: $0) }
        case .doubleAttributeType: return Double(trimmed)
        case .floatAttributeType: return Float(trimmed)
        case .decimalAttributeType: return Decimal(string: trimmed, locale: posix)
        case .stringAttributeType: return text
        case .booleanAttributeType:
            switch trimmed.lowercased() {
            case "yes", "true", "1": return true
            case "no", "false", "0": return false
            default: return nil
            }
        case .dateAttributeType: return Double(trimmed).map { Date(timeIntervalSinceReferenceDate: $0) }
        case .UUIDAttributeType: return UUID(uuidString: trimmed)
        case .URIAttributeType: return URL(string: trimmed)
        case .binaryDataAttributeType, .transformableAttributeType, .objectIDAttributeType, .undefinedAttributeType, .compositeAttributeType:
            return nil
        }
    }
}
