import Foundation

/// A parsed predicate of Core Data's predicate language ("Predicate Format String
/// Syntax", Apple's Predicate Programming Guide). A format string parses once into a
/// template (`%@` and `%K` left as numbered arguments); each `NSPredicate(format:)`
/// binds its arguments into the template.
indirect enum PredicateNode: Sendable {
    case constant(Bool)
    case and([PredicateNode])
    case or([PredicateNode])
    case not(PredicateNode)
    case comparison(PredicateComparison)
}

struct PredicateComparison: Sendable {
    enum Modifier: Sendable, Equatable { case direct, any, all, none }
    enum Operator: Sendable, Equatable {
        case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
        case between, `in`, contains, beginsWith, endsWith, like, matches
    }
    var modifier: Modifier
    var lhs: PredicateExpression
    var op: Operator
    var rhs: PredicateExpression
    var caseInsensitive = false
    var diacriticInsensitive = false

    var optionsText: String {
        let o = (caseInsensitive ? "c" : "") + (diacriticInsensitive ? "d" : "")
        return o.isEmpty ? "" : "[\(o)]"
    }
}

/// An expression: one side of a comparison.
indirect enum PredicateExpression: Sendable {
    /// A constant: a literal, or an argument bound in (`nil` for nil/NULL).
    case constant(PredicateConstant)
    /// A key path from `base` (nil: the evaluated object); `[]` alone is SELF.
    case keyPath(base: PredicateExpression?, [String])
    /// `$NAME`.
    case variable(String)
    /// `%@` (and `%d`, `%f`, …) in a template: the argument at this index.
    case argument(Int)
    /// `%K` in a template: the key path given as the argument at this index.
    case keyArgument(Int)
    /// `{a, b}`.
    case aggregate([PredicateExpression])
    /// `SUBQUERY(collection, $variable, predicate)`.
    case subquery(PredicateExpression, variable: String, PredicateNode)
    /// `+ - * /`, and unary minus as `0 - x`.
    case arithmetic(Character, PredicateExpression, PredicateExpression)
    /// `FUNCTION(...)` and the functions of the grammar (`now()`, `sum:(...)`): parsed,
    /// evaluated by neither the store nor memory here.
    case function(String, [PredicateExpression])
}

/// A constant value. `@unchecked Sendable`: the boxed values are the immutable
/// values a predicate is made with (strings, numbers, dates, IDs, and managed objects
/// that the predicate only reads the ID of); a bound predicate is never changed after
/// it is made.
struct PredicateConstant: @unchecked Sendable {
    let value: Any?
    init(_ value: Any?) {
        if let value, value is NSNull { self.value = nil } else { self.value = value }
    }
    var isNil: Bool { value == nil }
}

/// A parse failure: where, and what was expected there.
struct PredicateSyntaxError: Error, CustomStringConvertible {
    let format: String
    let position: Int
    let reason: String
    var description: String { "Unable to parse the format string \"\(format)\" at position \(position): \(reason)" }
}
