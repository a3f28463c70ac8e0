@_spi(CoreData) public import ManagedContext
public import Foundation

/// NSObject's key-value coding beyond one key, which Foundation on Linux does not have:
/// key paths through relationships, and several keys at once, over Core Data's
/// `value(forKey:)` and `setValue(_:forKey:)`.
extension NSManagedObject {
    /// `value(forKeyPath:)`: each key of `keyPath` read in turn. A to-many relationship
    /// on the way gives the set of the rest of the path's values over its members, as
    /// KVC's `valueForKey:` on an `NSSet` does ("a set containing the results of invoking
    /// valueForKey: using key on each of the set's objects"); a nil on the way gives nil.
    public func value(forKeyPath keyPath: String) -> Any? {
        Self.value(of: self, along: keyPath.split(separator: ".").map(String.init)[...])
    }

    /// `setValue(_:forKeyPath:)`: the path's last key set on the object the rest of it
    /// reaches. Stops the program, naming the path, where that is not a managed object,
    /// as KVC raises for a path it cannot follow.
    public func setValue(_ value: Any?, forKeyPath keyPath: String) {
        var keys = keyPath.split(separator: ".").map(String.init)
        guard let last = keys.popLast() else { return setValue(value, forKey: keyPath) }
        guard let target = keys.isEmpty ? self : Self.value(of: self, along: keys[...]) as? NSManagedObject else {
            preconditionFailure("[<\(type(of: self))> setValue:forKeyPath:]: \(keys.joined(separator: ".")) of \(self) is not one managed object, so \(keyPath) cannot be set. Set \(last) on the object itself.")
        }
        target.setValue(value, forKey: last)
    }

    /// `setValuesForKeys(_:)`: each value set with `setValue(_:forKey:)`; `NSNull` values
    /// set nil, as Apple documents ("NSNull values in keyedValues are converted to nil").
    public func setValuesForKeys(_ keyedValues: [String: Any]) {
        for (key, value) in keyedValues { setValue(value is NSNull ? nil : value, forKey: key) }
    }

    /// `dictionaryWithValues(forKeys:)`: each key's value, `NSNull` for nil, as Apple
    /// documents ("Entries for which valueForKey: returns nil have NSNull as their value").
    public func dictionaryWithValues(forKeys keys: [String]) -> [String: Any] {
        Dictionary(keys.map { ($0, Self.present(value(forKey: $0)) ?? NSNull()) }, uniquingKeysWith: { a, _ in a })
    }

    /// `value`, or nil when it is nil or an empty optional boxed in `Any`.
    private static func present(_ value: Any?) -> Any? {
        guard let value else { return nil }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.flatMap { present($0.value) }
    }

    private static func value(of start: Any?, along keys: ArraySlice<String>) -> Any? {
        guard let key = keys.first else { return start }
        let rest = keys.dropFirst()
        switch start {
        case let object as NSManagedObject:
            return value(of: object.value(forKey: key), along: rest)
        case let set as NSSet:
            return NSSet(array: set.allObjects.compactMap { value(of: $0, along: keys) })
        case let set as NSOrderedSet:
            return NSOrderedSet(array: set.array.compactMap { value(of: $0, along: keys) })
        case let dictionary as [String: Any]:
            return value(of: dictionary[key], along: rest)
        default:
            return nil
        }
    }
}
