public import Foundation
import CtxdebugHelpers

/// Key-value coding of an `@objc` property that is not in the model (a computed
/// `firstInitial` an `NSFetchedResultsController` sections by, a stored `@objc var`), as
/// the Objective-C runtime gives it on Apple platforms. Linux has no such runtime, so
/// `ctxdebug port` writes, beside each such property of a class or extension, an enum
/// `__PortedKey_<name>` conforming to this protocol, nested in the type; `value(forKey:)`
/// and `setValue(_:forKey:)` of a key the entity does not have find it by the class's
/// mangled name, along the superclass chain. Written by the port; not for hand use.
public protocol PortedKeyValueAccessor {
    /// The property's value on `object` (an instance of the enclosing class).
    static func portedValue(of object: Any) -> Any?
    /// Sets it; false when the property cannot be set (computed without `set`, a `let`).
    static func setPortedValue(_ value: Any?, of object: Any) -> Bool
}

extension PortedKeyValueAccessor {
    public static func setPortedValue(_ value: Any?, of object: Any) -> Bool { false }
}

enum PortedKeys {
    private struct Key: Hashable {
        var type: ObjectIdentifier
        var key: String
    }

    /// A metatype, which never changes, held across threads.
    private struct Found: @unchecked Sendable { var accessor: (any PortedKeyValueAccessor.Type)? }

    private static let found = LockedValue<[Key: Found]>([:])

    /// The accessor the port wrote for `key` on `type` or a superclass of it, or nil.
    static func accessor(forKey key: String, of type: AnyClass) -> (any PortedKeyValueAccessor.Type)? {
        let cacheKey = Key(type: ObjectIdentifier(type), key: key)
        if let known = found.withLock({ $0[cacheKey] }) { return known.accessor }
        var accessor: (any PortedKeyValueAccessor.Type)?
        let name = "__PortedKey_" + key
        // A key that is not an identifier the mangler spells as it is (unicode) is looked up in vain.
        if key.utf8.allSatisfy({ $0 < 0x80 }) {
            var current: AnyClass? = type
            while let c = current, c != NSManagedObject.self, accessor == nil {
                if let mangled = _mangledTypeName(c) {
                    accessor = _typeByName("\(mangled)\(name.utf8.count)\(name)O") as? any PortedKeyValueAccessor.Type
                }
                current = _getSuperclass(c)
            }
        }
        found.withLock { $0[cacheKey] = Found(accessor: accessor) }
        return accessor
    }
}
