import Foundation
@_spi(CoreData) import ManagedContext

/// A dictionary fetch with `NSExpressionDescription`s or `propertiesToGroupBy`: what Core
/// Data runs as one SQLite query, `SELECT department, COUNT(department) FROM … WHERE …
/// GROUP BY department`, with SQL's results. Each group gives one dictionary: its
/// group-by values and each aggregate by its description's name. Without a group-by,
/// every row matching the predicate is one group, so the result is one dictionary even
/// when nothing matches (then `count:` is 0 and the others are nil, which leaves their
/// key out, as SQL's NULL). `fetchOffset` and `fetchLimit` count groups.
struct AggregateFetch {
    enum Function: String, CaseIterable {
        case sum = "sum:", count = "count:", min = "min:", max = "max:", average = "average:"
    }

    enum Column {
        case property(String)
        case aggregate(name: String, function: Function, keyPath: String, resultType: NSAttributeType)
    }

    let columns: [Column]
    let groupBy: [String]
    let offset: Int
    let limit: Int

    /// Whether `request` asks for more than stored values.
    static func applies<T>(to request: NSFetchRequest<T>) -> Bool {
        (request.propertiesToFetch ?? []).contains { $0 is NSExpressionDescription } || !(request.propertiesToGroupBy ?? []).isEmpty
    }

    init<T>(_ request: NSFetchRequest<T>) throws {
        func name(_ property: Any) -> String { (property as? NSPropertyDescription)?.name ?? "\(property)" }
        if request.havingPredicate != nil {
            throw ManagedContextError(.invalidFetchRequest, "havingPredicate is not supported on Linux yet: fetch the groups and filter the dictionaries in Swift.")
        }
        groupBy = (request.propertiesToGroupBy ?? []).map(name)
        guard let properties = request.propertiesToFetch, !properties.isEmpty else {
            throw ManagedContextError(.invalidFetchRequest, "A fetch with propertiesToGroupBy needs propertiesToFetch: name the group-by properties and the expressions to compute.")
        }
        columns = try properties.map { property throws -> Column in
            guard let description = property as? NSExpressionDescription else { return .property(name(property)) }
            let label = description.name.isEmpty ? "(an unnamed expression)" : "'\(description.name)'"
            guard let expression = description.expression, expression.expressionType == .function,
                let function = Function(rawValue: expression.function)
            else {
                throw ManagedContextError(
                    .invalidFetchRequest,
                    "The expression description \(label) computes \(description.expression?.description ?? "nothing"); on Linux a fetch computes \(Function.allCases.map(\.rawValue).joined(separator: ", ")) of a key path: NSExpression(forFunction: \"sum:\", arguments: [NSExpression(forKeyPath: \"amount\")]).")
            }
            guard let arguments = expression.arguments, arguments.count == 1, arguments[0].expressionType == .keyPath,
                !arguments[0].keyPath.contains(".")
            else {
                throw ManagedContextError(
                    .invalidFetchRequest, "The expression description \(label) applies \(function.rawValue) to \(expression.description); give it one attribute of the entity: [NSExpression(forKeyPath: \"amount\")].")
            }
            return .aggregate(name: description.name, function: function, keyPath: arguments[0].keyPath, resultType: description.expressionResultType)
        }
        for case .property(let property) in columns where !groupBy.contains(property) {
            throw ManagedContextError(
                .invalidFetchRequest,
                "propertiesToFetch names '\(property)' beside expressions or a group-by, but propertiesToGroupBy does not (it has \(groupBy.isEmpty ? "none" : groupBy.joined(separator: ", "))). Each plain property of such a fetch must be grouped by, as in SQL: add it to propertiesToGroupBy.")
        }
        offset = request.fetchOffset
        limit = request.fetchLimit
    }

    /// Fetches the values the groups need with `base` (its entity, predicate and sort
    /// descriptors) and computes the dictionaries.
    func run(in context: ManagedObjectContext, base: FetchRequest<ManagedObject>) throws -> [[String: Any]] {
        var keyPaths = groupBy
        for case .aggregate(_, _, let keyPath, _) in columns where !keyPaths.contains(keyPath) { keyPaths.append(keyPath) }
        var request = base
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = keyPaths
        request.fetchLimit = 0
        request.fetchOffset = 0
        request.returnsDistinctResults = false
        let rows = try context.fetchDictionaries(request)
        let groupPositions = groupBy.map { request.propertiesToFetch!.firstIndex(of: $0)! }

        // Groups in the order their first row comes (the rows come sorted).
        var order: [[AnyHashable?]] = []
        var members: [[AnyHashable?]: [FetchedDictionary]] = [:]
        if groupBy.isEmpty { order = [[]]; members[[]] = [] }
        for row in rows {
            let key = groupPositions.map { row.value(at: $0) as? AnyHashable }
            if members[key] == nil { order.append(key) }
            members[key, default: []].append(row)
        }
        var results: [[String: Any]] = []
        for key in order.dropFirst(offset).prefix(limit > 0 ? limit : Int.max) {
            let group = members[key] ?? []
            var dictionary: [String: Any] = [:]
            for column in columns {
                switch column {
                case .property(let property):
                    if let value = key[groupBy.firstIndex(of: property)!] { dictionary[property] = value }
                case .aggregate(let name, let function, let keyPath, let resultType):
                    let values = group.compactMap { $0[keyPath] }
                    if let value = Self.compute(function, values, resultType) { dictionary[name] = value }
                }
            }
            results.append(dictionary)
        }
        return results
    }

    /// SQL's aggregate over the non-nil values: `count:` of none is 0, the others nil.
    static func compute(_ function: Function, _ values: [Any], _ resultType: NSAttributeType) -> Any? {
        if function == .count { return number(Double(values.count), integral: true, resultType) }
        guard !values.isEmpty else { return nil }
        if let dates = values as? [Date] {
            switch function {
            case .min: return dates.min()
            case .max: return dates.max()
            default: break
            }
        }
        if let strings = values as? [String] {
            switch function {
            case .min: return strings.min()
            case .max: return strings.max()
            default: break
            }
        }
        let numbers = values.compactMap(PredicateEvaluator.number)
        guard numbers.count == values.count else { return nil }
        let integral = values.allSatisfy { $0 is any BinaryInteger || $0 is Bool }
        switch function {
        case .sum: return number(numbers.reduce(0, +), integral: integral, resultType)
        case .min: return number(numbers.min()!, integral: integral, resultType)
        case .max: return number(numbers.max()!, integral: integral, resultType)
        case .average: return number(numbers.reduce(0, +) / Double(numbers.count), integral: false, resultType)
        case .count: return nil
        }
    }

    /// A number as `NSNumber`, of the description's result type when it names one.
    private static func number(_ value: Double, integral: Bool, _ resultType: NSAttributeType) -> NSNumber {
        switch resultType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
            return NSNumber(value: Int64(value.rounded(.towardZero)))
        case .doubleAttributeType, .floatAttributeType, .decimalAttributeType:
            return NSNumber(value: value)
        default:
            return integral ? NSNumber(value: Int64(value)) : NSNumber(value: value)
        }
    }
}
