import Foundation
@_spi(CoreData) import ManagedContext

/// Evaluates a parsed predicate in memory: `NSPredicate.evaluate(with:)` on managed
/// objects (attributes and relationships by name), dictionaries, collections, and
/// plain Swift values (their stored properties, by name). String operators share
/// the store's code (`StoreStringFunctions`), so `[c]`, `[d]`, LIKE and MATCHES give
/// the answers a fetch gives.
struct PredicateEvaluator {
    var variables: [String: Any]

    func evaluate(_ node: PredicateNode, _ object: Any?) -> Bool {
        switch node {
        case .constant(let b): return b
        case .and(let parts): return parts.allSatisfy { evaluate($0, object) }
        case .or(let parts): return parts.contains { evaluate($0, object) }
        case .not(let inner): return !evaluate(inner, object)
        case .comparison(let c): return evaluate(c, object)
        }
    }

    private func evaluate(_ c: PredicateComparison, _ object: Any?) -> Bool {
        let lhs = value(c.lhs, object)
        let rhs = value(c.rhs, object)
        // A key path through a to-many relationship compares each value, as ANY does
        // (what the store does with it; see docs/coredata-predicates.md).
        let modifier = c.modifier == .direct && c.op != .contains && Self.isKeyPath(c.lhs) && Self.collection(lhs) != nil ? .any : c.modifier
        guard modifier != .direct, let list = Self.collection(lhs) else { return compare(lhs, c, rhs) }
        switch modifier {
        case .any, .direct: return list.contains { compare($0, c, rhs) }
        case .all: return list.allSatisfy { compare($0, c, rhs) }
        case .none: return !list.contains { compare($0, c, rhs) }
        }
    }

    private static func isKeyPath(_ e: PredicateExpression) -> Bool {
        if case .keyPath(_, let parts) = e, !parts.isEmpty { return true }
        return false
    }

    private func options(_ c: PredicateComparison) -> StringComparisonOptions {
        var o: StringComparisonOptions = []
        if c.caseInsensitive { o.insert(.caseInsensitive) }
        if c.diacriticInsensitive { o.insert(.diacriticInsensitive) }
        return o
    }

    private func compare(_ lhs: Any?, _ c: PredicateComparison, _ rhs: Any?) -> Bool {
        let o = options(c)
        switch c.op {
        case .equal: return Self.equal(lhs, rhs, o)
        case .notEqual: return !Self.equal(lhs, rhs, o)
        case .less: return Self.order(lhs, rhs, o).map { $0 < 0 } ?? false
        case .lessOrEqual: return Self.order(lhs, rhs, o).map { $0 <= 0 } ?? false
        case .greater: return Self.order(lhs, rhs, o).map { $0 > 0 } ?? false
        case .greaterOrEqual: return Self.order(lhs, rhs, o).map { $0 >= 0 } ?? false
        case .between:
            guard let bounds = Self.collection(rhs), bounds.count == 2 else { return false }
            guard let low = Self.order(lhs, bounds[0], o), let high = Self.order(lhs, bounds[1], o) else { return false }
            return low >= 0 && high <= 0
        case .in:
            if let list = Self.collection(rhs) { return list.contains { Self.equal(lhs, $0, o) } }
            if let text = rhs as? String, let needle = lhs as? String { return StoreStringFunctions.stringOperator(.contains, o, text, needle) }
            return false
        case .contains:
            if let list = Self.collection(lhs) { return list.contains { Self.equal($0, rhs, o) } }
            return Self.string(lhs, rhs, .contains, o)
        case .beginsWith: return Self.string(lhs, rhs, .beginsWith, o)
        case .endsWith: return Self.string(lhs, rhs, .endsWith, o)
        case .like: return Self.string(lhs, rhs, .like, o)
        case .matches: return Self.string(lhs, rhs, .matches, o)
        }
    }

    private static func string(_ lhs: Any?, _ rhs: Any?, _ op: StoreOperator, _ o: StringComparisonOptions) -> Bool {
        // A URI attribute is its text, as the store keeps it.
        guard let text = (lhs as? String) ?? (lhs as? URL)?.absoluteString, let pattern = rhs as? String else { return false }
        return StoreStringFunctions.stringOperator(op, o, text, pattern)
    }

    // MARK: Values

    func value(_ e: PredicateExpression, _ object: Any?) -> Any? {
        switch e {
        case .constant(let c): return c.value
        case .variable(let name): return PredicateBinding.unwrap(variables[name])
        case .argument, .keyArgument: return nil  // bound before evaluation
        case .keyPath(let base, let parts):
            var current = base.map { value($0, object) } ?? object
            for part in parts { current = Self.value(of: part, in: current) }
            return current
        case .aggregate(let items): return items.map { value($0, object) as Any }
        case .subquery(let collection, let variable, let predicate):
            guard let list = Self.collection(value(collection, object)) else { return [Any]() }
            return list.filter { element in
                var inner = self
                inner.variables[variable] = element
                return inner.evaluate(predicate, object)
            }
        case .arithmetic(let op, let a, let b):
            guard let x = Self.number(value(a, object)), let y = Self.number(value(b, object)) else { return nil }
            switch op {
            case "+": return x + y
            case "-": return x - y
            case "*": return x * y
            default: return y == 0 ? nil : x / y
            }
        case .function: return nil
        }
    }

    /// `object`'s value for one key, as key-value coding reads it.
    static func value(of key: String, in object: Any?) -> Any? {
        // A missing object has no related objects: its count is 0, as in the store's subselect.
        guard let object = PredicateBinding.unwrap(object) else { return key == "@count" ? 0 : nil }
        if key == "self" || key == "SELF" { return object }
        if let dictionary = object as? [String: Any] { return PredicateBinding.unwrap(dictionary[key]) }
        if let dictionary = object as? NSDictionary { return dictionary.object(forKey: key) }
        if key.hasPrefix("@") {
            guard let list = collection(object) else { return key == "@count" ? (object as? String)?.count : nil }
            switch key {
            case "@count": return list.count
            case "@sum": return list.compactMap { number($0) }.reduce(0, +)
            case "@avg":
                let numbers = list.compactMap { number($0) }
                return numbers.isEmpty ? nil : numbers.reduce(0, +) / Double(numbers.count)
            case "@min": return list.compactMap { number($0) }.min()
            case "@max": return list.compactMap { number($0) }.max()
            default: return nil
            }
        }
        if let list = collection(object) {
            // Through nested to-many relationships the values flatten into one list.
            return list.flatMap { element -> [Any] in
                let v = value(of: key, in: element)
                return collection(v) ?? [v as Any]
            }
        }
        if let managed = object as? ManagedObject {
            if managed.entity.attribute(named: key) != nil {
                // The Swift value, not the NSNumber `value(forKey:)` boxes a number in.
                if let object = managed as? NSManagedObject { return object.coreDataValue(forKey: key) }
                return managed.value(forKey: key)
            }
            if let r = managed.entity.relationship(named: key) {
                let related = managed.relatedObjects(forRelationshipNamed: key)
                return r.isToMany ? related : related.first
            }
            // An `@objc` property outside the model, which `ctxdebug port` made readable by key.
            if let accessor = PortedKeys.accessor(forKey: key, of: type(of: managed)) { return PredicateBinding.unwrap(accessor.portedValue(of: managed)) }
            return nil
        }
        for child in Mirror(reflecting: object).children where child.label == key || child.label == "_" + key {
            return PredicateBinding.unwrap(child.value)
        }
        return nil
    }

    /// The elements of an array, a set or an aggregate; nil for anything else
    /// (strings and data are values here, not collections).
    static func collection(_ v: Any?) -> [Any]? {
        guard let v = PredicateBinding.unwrap(v) else { return nil }
        if v is String || v is Data || v is NSString || v is [String: Any] || v is NSDictionary { return nil }
        if let a = v as? [Any] { return a }
        if let a = v as? NSArray { return a.map { $0 } }
        if let s = v as? NSSet { return s.map { $0 } }
        if let c = v as? any Collection { return Array(c) as [Any] }
        return nil
    }

    static func number(_ v: Any?) -> Double? {
        guard let v = PredicateBinding.unwrap(v) else { return nil }
        if let b = v as? Bool { return b ? 1 : 0 }
        if let i = v as? any BinaryInteger { return Double(i) }
        if let d = v as? any BinaryFloatingPoint { return Double(d) }
        if let d = v as? Decimal { return NSDecimalNumber(decimal: d).doubleValue }
        if let n = v as? NSNumber { return n.doubleValue }
        return nil
    }

    /// Equality as Core Data compares values: numbers by value, strings with the
    /// comparison's options, objects by identity (a managed object equals its ID).
    static func equal(_ a: Any?, _ b: Any?, _ o: StringComparisonOptions) -> Bool {
        let a = PredicateBinding.unwrap(a), b = PredicateBinding.unwrap(b)
        guard let a, let b else { return a == nil && b == nil }
        if let x = number(a), let y = number(b) { return x == y }
        if let x = a as? String, let y = b as? String { return StoreStringFunctions.fold(x, o) == StoreStringFunctions.fold(y, o) }
        if let x = objectID(a), let y = objectID(b) { return x == y }
        if let x = a as? Date, let y = b as? Date { return x == y }
        if let x = a as? AnyHashable, let y = b as? AnyHashable { return x == y }
        return false
    }

    private static func objectID(_ v: Any) -> ManagedObjectID? {
        if let o = v as? ManagedObject { return o.objectID }
        return v as? ManagedObjectID
    }

    /// The order of two values (-1, 0, 1), or nil when they do not compare.
    static func order(_ a: Any?, _ b: Any?, _ o: StringComparisonOptions) -> Int? {
        guard let a = PredicateBinding.unwrap(a), let b = PredicateBinding.unwrap(b) else { return nil }
        if let x = number(a), let y = number(b) { return x < y ? -1 : (x == y ? 0 : 1) }
        if let x = a as? Date, let y = b as? Date { return x < y ? -1 : (x == y ? 0 : 1) }
        if let x = a as? String, let y = b as? String {
            let fx = Array(StoreStringFunctions.fold(x, o).utf8), fy = Array(StoreStringFunctions.fold(y, o).utf8)
            return fx.lexicographicallyPrecedes(fy) ? -1 : (fx == fy ? 0 : 1)
        }
        return nil
    }
}
