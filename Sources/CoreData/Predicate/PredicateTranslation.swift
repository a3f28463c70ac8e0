import Foundation
@_spi(CoreData) import ManagedContext

/// Turns Foundation predicates and sort descriptors into the runtime's, for one entity.
/// A format predicate (`NSPredicate(format:)`) becomes the runtime's predicate: the
/// simple comparisons the typed API builds become those very nodes (the same SQL as a
/// typed fetch), the rest Core Data's language nodes (`StorePredicate`). What the
/// store cannot run throws, naming it.
enum PredicateTranslation {
    static func fetchPredicate(_ predicate: NSPredicate, entity: EntityDescription) throws(ManagedContextError) -> FetchPredicate<ManagedObject> {
        if let compound = predicate as? NSCompoundPredicate {
            var parts: [FetchPredicate<ManagedObject>] = []
            for p in compound.subpredicates { parts.append(try fetchPredicate(p, entity: entity)) }
            switch compound.compoundPredicateType {
            case .and: return .and(parts)
            case .or: return .or(parts)
            case .not:
                // Core Data's NOT compound takes one subpredicate (more are ANDed).
                return .not(parts.count == 1 ? parts[0] : .and(parts))
            @unknown default: break
            }
        }
        if let parsed = FormatPredicates.shared.parsed(of: predicate) {
            return try Translator(entity: entity, format: parsed.format).predicate(parsed.node)
        }
        if predicate == NSPredicate(value: true) { return .all }
        if predicate == NSPredicate(value: false) { return .none }
        throw ManagedContextError(
            .invalidFetchRequest,
            "The predicate \(predicate) cannot be run by the store: a fetch takes predicates made with NSPredicate(format:), NSPredicate(value:) and NSCompoundPredicate, not block predicates.")
    }

    static func sortDescriptors(_ descriptors: [NSSortDescriptor], entity: EntityDescription) throws(ManagedContextError) -> [FetchSortDescriptor<ManagedObject>] {
        var out: [FetchSortDescriptor<ManagedObject>] = []
        for d in descriptors {
            guard let key = d.key ?? entity.propertyName(reachedBy: d.sortKeyPath) else {
                throw ManagedContextError(
                    .invalidFetchRequest,
                    "A sort descriptor of the fetch of \(entity.name) names no key, and its key path \(d.sortKeyPath) reaches no attribute of \(entity.name). Sort by an attribute: NSSortDescriptor(key: \"name\", ascending: true).")
            }
            // A key path through to-one relationships (`folder.name`) sorts by the related
            // object's attribute.
            var owner = entity
            let names = key.split(separator: ".").map(String.init)
            for name in names.dropLast() {
                guard let r = owner.relationship(named: name), let next = r.destinationEntity else {
                    throw ManagedContextError(.invalidFetchRequest, "The sort key '\(key)' of the fetch of \(entity.name): \(owner.name) has no relationship named '\(name)'.")
                }
                guard !r.isToMany else {
                    throw ManagedContextError(.invalidFetchRequest, "to-many key not allowed here: the sort key '\(key)' of the fetch of \(entity.name) goes through the to-many relationship '\(name)'. Sort through to-one relationships only.")
                }
                owner = next
            }
            let last = names.last ?? key
            guard owner.attribute(named: last) != nil else {
                let kind = owner.relationship(named: last) != nil ? "is a relationship" : "is not an attribute"
                throw ManagedContextError(
                    .invalidFetchRequest, "The sort key '\(key)' of the fetch of \(entity.name): '\(last)' \(kind) of \(owner.name). Sort by one of its attributes: \(owner.attributes.map(\.name).joined(separator: ", ")).")
            }
            let comparator: StringSortComparator?
            switch d.selectorName {
            case nil, "compare:": comparator = nil
            case "caseInsensitiveCompare:", "localizedCaseInsensitiveCompare:": comparator = .caseInsensitive
            case "localizedStandardCompare:": comparator = .localizedStandard
            case let other?:
                throw ManagedContextError(
                    .invalidFetchRequest,
                    "The sort descriptor on '\(key)' uses the selector \(other), which the SQLite store does not sort with. Use compare:, caseInsensitiveCompare: or localizedStandardCompare:.")
            }
            out.append(FetchSortDescriptor(key: key, ascending: d.ascending, comparator: comparator))
        }
        return out
    }
}

/// Translates one parsed predicate against an entity.
private struct Translator {
    let entity: EntityDescription
    let format: String

    func fail(_ what: String) -> ManagedContextError {
        ManagedContextError(.invalidFetchRequest, "The predicate \"\(format)\" cannot be run by the store on \(entity.name): \(what)")
    }

    func predicate(_ node: PredicateNode) throws(ManagedContextError) -> FetchPredicate<ManagedObject> {
        try .store(store(node, on: entity, variable: nil))
    }

    /// `node` over `on`; inside a SUBQUERY, `variable` names the element (`$x.name`).
    func store(_ node: PredicateNode, on entity: EntityDescription, variable: String?) throws(ManagedContextError) -> StorePredicate {
        switch node {
        case .constant(let b): return .constant(b)
        case .and(let parts):
            var out: [StorePredicate] = []
            for p in parts { out.append(try store(p, on: entity, variable: variable)) }
            return .and(out)
        case .or(let parts):
            var out: [StorePredicate] = []
            for p in parts { out.append(try store(p, on: entity, variable: variable)) }
            return .or(out)
        case .not(let inner): return .not(try store(inner, on: entity, variable: variable))
        case .comparison(let c): return try comparison(c, on: entity, variable: variable)
        }
    }

    // MARK: Key paths

    /// A side of a comparison, once its key path is known.
    private enum Side {
        case path([String])
        /// `path.@count`, or `SUBQUERY(path, $v, p).@count`.
        case count([String], StorePredicate?)
        case constant(Any?)
        case list([Any?])
    }

    private func keyPath(_ e: PredicateExpression, variable: String?) throws(ManagedContextError) -> [String]? {
        guard case .keyPath(let base, let parts) = e else { return nil }
        switch base {
        case nil:
            if variable != nil, !parts.isEmpty {
                throw fail("inside SUBQUERY, key paths must start from its variable ($\(variable!).\(parts.joined(separator: "."))); '\(parts.joined(separator: "."))' refers to the fetched object, which this store does not support there.")
            }
            return parts
        case .variable(let name)?:
            guard name == variable else { throw fail("the variable $\(name) was not given a value. Call withSubstitutionVariables(_:) before fetching.") }
            return parts
        default:
            return nil
        }
    }

    private func side(_ e: PredicateExpression, on entity: EntityDescription, variable: String?) throws(ManagedContextError) -> Side {
        switch e {
        case .constant(let c):
            if let list = PredicateEvaluator.collection(c.value) { return .list(list.map { PredicateBinding.unwrap($0) }) }
            return .constant(c.value)
        case .aggregate(let items):
            var values: [Any?] = []
            for item in items {
                guard case .constant(let c) = item else { throw fail("an aggregate { … } may hold only constants here.") }
                values.append(c.value)
            }
            return .list(values)
        case .variable(let name):
            if name == variable { return .path([]) }
            throw fail("the variable $\(name) was not given a value. Call withSubstitutionVariables(_:) before fetching.")
        case .keyPath(.subquery(let collection, let v, let inner)?, let parts):
            guard parts == ["@count"] else { throw fail("a SUBQUERY can be used here only as SUBQUERY(…).@count.") }
            guard let names = try keyPath(collection, variable: variable) else { throw fail("SUBQUERY's collection must be a key path to a to-many relationship.") }
            guard let destination = toMany(names, from: entity) else {
                throw fail("SUBQUERY's collection '\(names.joined(separator: "."))' is not a to-many relationship of \(entity.name).")
            }
            return .count(names, try store(inner, on: destination, variable: v))
        case .keyPath:
            guard var names = try keyPath(e, variable: variable) else { throw fail("\(describe(e)) is not a key path the store can read.") }
            if names.last == "@count" {
                names.removeLast()
                return .count(names, nil)
            }
            if let at = names.first(where: { $0.hasPrefix("@") }) {
                throw fail("the collection operator \(at) is not supported by this store (only @count is).")
            }
            return .path(names)
        case .subquery: throw fail("a SUBQUERY must be followed by .@count here.")
        case .arithmetic: throw fail("arithmetic (+, -, *, /) is not supported by this store.")
        case .function(let name, _): throw fail("the function \(name) is not supported by this store.")
        case .argument, .keyArgument: throw fail("an argument was not bound.")
        }
    }

    private func describe(_ e: PredicateExpression) -> String {
        switch e {
        case .keyPath(_, let parts): return "'\(parts.joined(separator: "."))'"
        default: return "this expression"
        }
    }

    /// The destination of the to-many relationship `names` ends at (through to-ones), or nil.
    private func toMany(_ names: [String], from entity: EntityDescription) -> EntityDescription? {
        var current = entity
        for (i, name) in names.enumerated() {
            guard let r = current.relationship(named: name), let next = r.destinationEntity else { return nil }
            if i == names.count - 1 { return r.isToMany ? next : nil }
            if r.isToMany { return nil }
            current = next
        }
        return nil
    }

    /// Where a key path meets a to-many relationship: the path to it (included) and
    /// the rest, read on each destination object.
    private func splitAtToMany(_ names: [String], from entity: EntityDescription) -> (collection: [String], rest: [String], destination: EntityDescription)? {
        var current = entity
        for (i, name) in names.enumerated() {
            guard let r = current.relationship(named: name), let next = r.destinationEntity else { return nil }
            if r.isToMany { return (Array(names[...i]), Array(names[(i + 1)...]), next) }
            current = next
        }
        return nil
    }

    /// What a key path ends at: an attribute (and its declaration), a to-one
    /// relationship, or an object (SELF, or the end of to-one steps).
    private enum End {
        case attribute(AttributeDescription, NSAttributeDescription?)
        case object
        case missing(String)
    }

    private func end(of names: [String], from entity: EntityDescription) -> End {
        var current = entity
        for (i, name) in names.enumerated() {
            if i == names.count - 1, let a = current.attribute(named: name) {
                return .attribute(a, (current.declaration as? NSEntityDescription)?.attributesByName[name])
            }
            guard let r = current.relationship(named: name), !r.isToMany, let next = r.destinationEntity else {
                return .missing("keypath \(names.joined(separator: ".")) not found in entity \(current.name)")
            }
            current = next
        }
        return .object
    }

    // MARK: Comparisons

    private func comparison(_ c: PredicateComparison, on entity: EntityDescription, variable: String?) throws(ManagedContextError) -> StorePredicate {
        var lhs = try side(c.lhs, on: entity, variable: variable)
        var rhs = try side(c.rhs, on: entity, variable: variable)
        var op = c.op
        var modifier = c.modifier

        // `%@ IN tags` and `tags CONTAINS %@`: ANY tags == %@.
        if op == .in, case .path(let names) = rhs, !isPath(lhs), splitAtToMany(names, from: entity) != nil {
            swap(&lhs, &rhs)
            op = .equal
            modifier = modifier == .direct ? .any : modifier
        } else if op == .contains, case .path(let names) = lhs, splitAtToMany(names, from: entity)?.rest.isEmpty == true {
            op = .equal
            modifier = modifier == .direct ? .any : modifier
        }
        // A constant on the left of an order or equality: flip it to the right.
        if !isPath(lhs), isPath(rhs), [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual].contains(op) {
            swap(&lhs, &rhs)
            op = [.less: .greater, .lessOrEqual: .greaterOrEqual, .greater: .less, .greaterOrEqual: .lessOrEqual][op] ?? op
        }

        if case .path(let names) = lhs, let split = splitAtToMany(names, from: entity) {
            if split.rest.isEmpty && modifier == .direct {
                throw fail("to-many key not allowed here: '\(names.joined(separator: "."))' is a to-many relationship; compare its objects with ANY, ALL or NONE, test membership with %@ IN \(names.joined(separator: ".")), or count it with @count.")
            }
            // ANY/ALL/NONE over the to-many relationship; a bare to-many key path is ANY.
            let quantifier: StoreQuantifier
            switch modifier {
            case .direct, .any: quantifier = .any
            case .all: quantifier = .all
            case .none: quantifier = .none
            }
            return .quantified(quantifier, split.collection, try element(split.rest, op, rhs, c, on: split.destination))
        }
        if modifier != .direct {
            throw fail("\(modifier == .all ? "ALL" : modifier == .none ? "NONE" : "ANY") needs a key path through a to-many relationship on its left.")
        }
        return try leaf(lhs, op, rhs, options: options(c), on: entity, description: c)
    }

    /// The comparison each object of a to-many relationship is tested with; a key
    /// path through another to-many relationship nests an ANY.
    private func element(
        _ rest: [String], _ op: PredicateComparison.Operator, _ rhs: Side, _ c: PredicateComparison, on destination: EntityDescription
    ) throws(ManagedContextError) -> StorePredicate {
        if let split = splitAtToMany(rest, from: destination) {
            return .quantified(.any, split.collection, try element(split.rest, op, rhs, c, on: split.destination))
        }
        return try leaf(.path(rest), op, rhs, options: options(c), on: destination, description: c)
    }

    private func isPath(_ s: Side) -> Bool {
        switch s {
        case .path, .count: true
        default: false
        }
    }

    private func options(_ c: PredicateComparison) -> StringComparisonOptions {
        var o: StringComparisonOptions = []
        if c.caseInsensitive { o.insert(.caseInsensitive) }
        if c.diacriticInsensitive { o.insert(.diacriticInsensitive) }
        return o
    }

    private static let storeOperators: [PredicateComparison.Operator: StoreOperator] = [
        .equal: .equal, .notEqual: .notEqual, .less: .less, .lessOrEqual: .lessOrEqual, .greater: .greater,
        .greaterOrEqual: .greaterOrEqual, .between: .between, .in: .in, .beginsWith: .beginsWith, .endsWith: .endsWith,
        .contains: .contains, .like: .like, .matches: .matches,
    ]

    private static let typedOperators: [PredicateComparison.Operator: ComparisonOperator] = [
        .equal: .equal, .notEqual: .notEqual, .less: .less, .lessOrEqual: .lessOrEqual, .greater: .greater, .greaterOrEqual: .greaterOrEqual,
    ]

    /// A comparison with no quantifier left: a key path (or count) against a constant
    /// or another key path.
    private func leaf(
        _ lhs: Side, _ op: PredicateComparison.Operator, _ rhs: Side, options: StringComparisonOptions, on entity: EntityDescription,
        description c: PredicateComparison
    ) throws(ManagedContextError) -> StorePredicate {
        let storeOp = Self.storeOperators[op]!
        switch lhs {
        case .count(let names, let condition):
            let count = StoreOperand.count(names, where: condition)
            switch rhs {
            case .constant(let v):
                guard let n = PredicateEvaluator.number(v), let i = Int64(exactly: n) else { throw fail("@count is compared with \(String(describing: v)); compare it with an integer.") }
                return .compare(count, storeOp, .value(.integer(i)), [])
            case .list(let items) where op == .between || op == .in:
                var values: [StoredValue] = []
                for item in items {
                    guard let n = PredicateEvaluator.number(item), let i = Int64(exactly: n) else { throw fail("@count is compared with \(String(describing: item)); compare it with integers.") }
                    values.append(.integer(i))
                }
                return .compare(count, storeOp, .values(values), [])
            case .path(let other):
                return .compare(count, storeOp, .keyPath(other), [])
            default: throw fail("@count must be compared with a number.")
            }
        case .path(let names):
            switch end(of: names, from: entity) {
            case .missing(let why): throw fail(why + ".")
            case .attribute(let a, let declaration):
                return try attributeComparison(names, a, declaration, op, storeOp, rhs, options, on: entity)
            case .object:
                return try objectComparison(names, op, storeOp, rhs, on: entity)
            }
        case .constant, .list:
            throw fail("a comparison needs a key path on one side (\(c.optionsText.isEmpty ? "" : c.optionsText + " ")two constants compare to a constant; write TRUEPREDICATE or FALSEPREDICATE).")
        }
    }

    private func attributeComparison(
        _ names: [String], _ a: AttributeDescription, _ declaration: NSAttributeDescription?, _ op: PredicateComparison.Operator, _ storeOp: StoreOperator,
        _ rhs: Side, _ options: StringComparisonOptions, on entity: EntityDescription
    ) throws(ManagedContextError) -> StorePredicate {
        let path = names.joined(separator: ".")
        func stored(_ v: Any?) throws(ManagedContextError) -> StoredValue {
            if storeOp.isStringComparison {
                guard let v = v else { return .null }
                guard let s = v as? String else { throw fail("\(op) compares strings, but '\(path)' is compared with \(type(of: v)).") }
                return .text(s)
            }
            var value = PredicateBinding.unwrap(v)
            if let n = value as? NSNumber, !(value is any BinaryInteger), !(value is any BinaryFloatingPoint), !(value is Bool) {
                value = a.attributeType == .double ? n.doubleValue as Any : n.int64Value as Any
            }
            if let declaration, let converted = StorageConversion.toStorage(value, of: declaration) { value = converted }
            guard let s = a.storedValue(fromSwift: value) else {
                throw fail("'\(path)' is \(declaration.map { "\($0.attributeType)" } ?? a.attributeType.rawValue), but it is compared with \(value.map { "\(type(of: $0)) \($0)" } ?? "nil"). Compare it with a value of its own type.")
            }
            return s
        }
        let simple = names.count == 1 && options.isEmpty
        switch rhs {
        case .constant(let v):
            if op == .between || op == .in {
                throw fail("\(op == .in ? "IN" : "BETWEEN") needs a collection on its right, such as {1, 5} or an array argument.")
            }
            let value = try stored(v)
            if simple, let typed = Self.typedOperators[op] {
                return .typed(.attribute(names[0], typed, stored: value))
            }
            if simple, op == .beginsWith, case .text(let s) = value { return .typed(.attribute(names[0], beginsWith: s)) }
            if simple, op == .contains, case .text(let s) = value { return .typed(.attribute(names[0], contains: s)) }
            if storeOp.isStringComparison && value.isNull { return .constant(false) }
            return .compare(.keyPath(names), storeOp, .value(value), options)
        case .list(let items):
            guard op == .in || op == .between else { throw fail("\(op) cannot compare '\(path)' with a collection; use IN or BETWEEN.") }
            if op == .between && items.count != 2 { throw fail("BETWEEN needs two bounds, as in BETWEEN {1, 5}.") }
            var values: [StoredValue] = []
            for item in items { values.append(try stored(item)) }
            if simple && op == .in { return .typed(.attribute(names[0], in: values)) }
            return .compare(.keyPath(names), storeOp, .values(values), options)
        case .path(let other):
            return .compare(.keyPath(names), storeOp, .keyPath(other), options)
        case .count(let other, let condition):
            return .compare(.keyPath(names), storeOp, .count(other, where: condition), options)
        }
    }

    private func objectComparison(
        _ names: [String], _ op: PredicateComparison.Operator, _ storeOp: StoreOperator, _ rhs: Side, on entity: EntityDescription
    ) throws(ManagedContextError) -> StorePredicate {
        let path = names.isEmpty ? "SELF" : names.joined(separator: ".")
        // The entity the path reaches: an object of an entity that is not it (or one of
        // its subentities, which share its table and keys) never equals it (the store
        // compares primary keys, which other tables reuse).
        var target = entity
        for name in names { if let next = target.relationship(named: name)?.destinationEntity { target = next } }
        func fits(_ id: ManagedObjectID?) -> Bool { id.map { $0.entity.isKind(of: target) } ?? true }
        func id(_ v: Any?) throws(ManagedContextError) -> ManagedObjectID? {
            guard let v = PredicateBinding.unwrap(v) else { return nil }
            if let o = v as? ManagedObject { return o.objectID }
            if let i = v as? ManagedObjectID { return i }
            throw fail("'\(path)' is an object, but it is compared with \(type(of: v)) \(v). Compare it with a managed object or its objectID.")
        }
        // An object of a child context keeps the temporary ID it was inserted with after
        // its parent saved it (as in Core Data), while the store's row has its permanent
        // one: such an object is matched by both names.
        func objectIDs(of v: Any?) throws(ManagedContextError) -> [ManagedObjectID] {
            guard let first = try id(v) else { return [] }
            let object = PredicateBinding.unwrap(v) as? ManagedObject
            guard first.isTemporaryID, let other = object?.managedObjectContext?.persistentStoreCoordinator?.alias(of: first) else { return [first] }
            return [first, other]
        }
        switch (op, rhs) {
        case (.equal, .constant(let v)), (.notEqual, .constant(let v)):
            let all = try objectIDs(of: v)
            // (Not for `relationship != object`: NOT IN leaves out a nil relationship, which != keeps.)
            if all.count > 1 && (op == .equal || names.isEmpty) {
                let matched = StorePredicate.compare(.keyPath(names), .in, .objects(all.filter(fits)), [])
                return op == .equal ? matched : .not(matched)
            }
            let object = all.first
            guard fits(object) else { return .constant(op != .equal) }
            if names.count == 1 { return .typed(.relationship(names[0], is: object, equal: op == .equal)) }
            return .compare(.keyPath(names), storeOp, .object(object), [])
        case (.in, .list(let items)):
            var ids: [ManagedObjectID] = []
            for item in items { for i in try objectIDs(of: item) where fits(i) { ids.append(i) } }
            return .compare(.keyPath(names), .in, .objects(ids), [])
        case (.equal, .path(let other)), (.notEqual, .path(let other)):
            return .compare(.keyPath(names), storeOp, .keyPath(other), [])
        default:
            throw fail("'\(path)' is an object; objects compare only with ==, != and IN.")
        }
    }
}

extension StoreOperator {
    fileprivate var isStringComparison: Bool {
        switch self {
        case .beginsWith, .endsWith, .contains, .like, .matches: true
        default: false
        }
    }
}
