public import Foundation
import CtxdebugHelpers

// Foundation's `ValueTransformer`, `NSValueTransformerName` and
// `NSSecureUnarchiveFromDataTransformer`, which Foundation on Linux lacks and Core Data's
// transformable attributes name (`valueTransformerName`). Same names and members as
// Apple's, so an app's transformer subclasses and their registration build unchanged.

/// Foundation's `NSValueTransformerName`: the name a transformer is registered under.
public struct NSValueTransformerName: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let secureUnarchiveFromDataTransformerName = NSValueTransformerName("NSSecureUnarchiveFromData")
    public static let keyedUnarchiveFromDataTransformerName = NSValueTransformerName("NSKeyedUnarchiveFromData")
    public static let unarchiveFromDataTransformerName = NSValueTransformerName("NSUnarchiveFromData")
    public static let negateBooleanTransformerName = NSValueTransformerName("NSNegateBoolean")
    public static let isNilTransformerName = NSValueTransformerName("NSIsNil")
    public static let isNotNilTransformerName = NSValueTransformerName("NSIsNotNil")
}

/// Foundation's `ValueTransformer`: converts a value to another and, when it allows,
/// back; registered by name for Core Data to find.
open class ValueTransformer: NSObject, @unchecked Sendable {
    public override init() {}

    /// The class of what `transformedValue(_:)` returns.
    open class func transformedValueClass() -> AnyClass { NSObject.self }
    /// Whether `reverseTransformedValue(_:)` is available (Foundation's default: true).
    open class func allowsReverseTransformation() -> Bool { true }
    /// The transformation; the default returns the value unchanged.
    open func transformedValue(_ value: Any?) -> Any? { value }
    /// The reverse; Foundation's default applies `transformedValue(_:)`.
    open func reverseTransformedValue(_ value: Any?) -> Any? {
        guard Self.allowsReverseTransformation() else {
            preconditionFailure("\(Self.self) does not allow reverse transformation (allowsReverseTransformation() is false)")
        }
        return transformedValue(value)
    }

    private static let registry = LockedValue<[NSValueTransformerName: ValueTransformer]>(ValueTransformer.standard())

    /// Registers `transformer` under `name`; nil removes the name.
    open class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        registry.withLock { $0[name] = transformer }
    }

    /// The transformer registered under `name`: what Foundation's `ValueTransformer(forName:)`
    /// returns, which a Swift initializer cannot (so that one is not declared here).
    static func registered(forName name: NSValueTransformerName) -> ValueTransformer? {
        registry.withLock { $0[name] }
    }

    open class func valueTransformerNames() -> [NSValueTransformerName] {
        registry.withLock { Array($0.keys) }.sorted { $0.rawValue < $1.rawValue }
    }

    private static func standard() -> [NSValueTransformerName: ValueTransformer] {
        [
            .secureUnarchiveFromDataTransformerName: NSSecureUnarchiveFromDataTransformer(),
            .keyedUnarchiveFromDataTransformerName: KeyedUnarchiveFromDataTransformer(),
            .unarchiveFromDataTransformerName: KeyedUnarchiveFromDataTransformer(),
            .negateBooleanTransformerName: BooleanTransformer { !$0 },
            .isNilTransformerName: PresenceTransformer(isNil: true),
            .isNotNilTransformerName: PresenceTransformer(isNil: false),
        ]
    }
}

/// Foundation's `NSSecureUnarchiveFromDataTransformer`: `transformedValue(_:)` unarchives
/// data (of `allowedTopLevelClasses`), `reverseTransformedValue(_:)` archives. Core Data
/// stores a transformable attribute through the reverse of such a transformer.
open class NSSecureUnarchiveFromDataTransformer: ValueTransformer, @unchecked Sendable {
    /// The classes an archive may hold at its top level (Foundation's default: the
    /// property-list classes).
    open class var allowedTopLevelClasses: [AnyClass] {
        [NSArray.self, NSDictionary.self, NSSet.self, NSString.self, NSNumber.self, NSDate.self, NSData.self, NSURL.self, NSUUID.self, NSNull.self]
    }
    override open class func transformedValueClass() -> AnyClass { NSObject.self }
    override open class func allowsReverseTransformation() -> Bool { true }

    override open func transformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        return try? NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data)
    }

    override open func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let value else { return nil }
        return try? NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: false)
    }
}

/// `NSKeyedUnarchiveFromData` (and the older `NSUnarchiveFromData`): the same, unchecked.
final class KeyedUnarchiveFromDataTransformer: NSSecureUnarchiveFromDataTransformer, @unchecked Sendable {}

/// `NSNegateBoolean`.
final class BooleanTransformer: ValueTransformer, @unchecked Sendable {
    let apply: @Sendable (Bool) -> Bool
    init(_ apply: @escaping @Sendable (Bool) -> Bool) { self.apply = apply }
    override class func transformedValueClass() -> AnyClass { NSNumber.self }
    override func transformedValue(_ value: Any?) -> Any? { NSNumber(value: apply((value as? NSNumber)?.boolValue ?? (value as? Bool) ?? false)) }
}

/// `NSIsNil` and `NSIsNotNil`, which do not reverse.
final class PresenceTransformer: ValueTransformer, @unchecked Sendable {
    let isNil: Bool
    init(isNil: Bool) { self.isNil = isNil }
    override class func transformedValueClass() -> AnyClass { NSNumber.self }
    override class func allowsReverseTransformation() -> Bool { false }
    override func transformedValue(_ value: Any?) -> Any? { NSNumber(value: (value == nil || value is NSNull) == isNil) }
}
