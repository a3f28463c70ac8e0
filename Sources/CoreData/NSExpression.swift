import Foundation

/// Core Data's `NSExpression`, the part fetch requests use: a key path, a constant, or a
/// function over them, such as the aggregates (`sum:`, `count:`, `min:`, `max:`,
/// `average:`) of an `NSExpressionDescription` in `propertiesToFetch`. Foundation on
/// Linux declares its `NSExpression` unavailable; this one shadows it wherever
/// `CoreData` is imported.
open class NSExpression: NSObject, @unchecked Sendable {
    /// Core Data's expression types, with their raw values.
    public enum ExpressionType: UInt, Sendable {
        case constantValue = 0
        case evaluatedObject = 1
        case variable = 2
        case keyPath = 3
        case function = 4
    }

    public let expressionType: ExpressionType
    /// The key path of a `.keyPath` expression ("" for the others).
    public let keyPath: String
    /// The function of a `.function` expression, as written (`"sum:"`; "" for the others).
    public let function: String
    /// The arguments of a `.function` expression.
    public let arguments: [NSExpression]?
    /// The value of a `.constantValue` expression.
    public let constantValue: Any?
    /// The name of a `.variable` expression (`source` for `$source`; "" for the others).
    public let variable: String
    /// The target of a `.function` expression made with `init(forFunction:selectorName:arguments:)`
    /// (`$manager` in `FUNCTION($manager, "…", …)`), nil for the others.
    public let operand: NSExpression?

    public init(forKeyPath keyPath: String) {
        (expressionType, self.keyPath, function, arguments, constantValue, variable, operand) = (.keyPath, keyPath, "", nil, nil, "", nil)
    }

    /// `arguments` are expressions; anything else is taken as a constant.
    public init(forFunction name: String, arguments parameters: [Any]) {
        let expressions = parameters.map { $0 as? NSExpression ?? NSExpression(forConstantValue: $0) }
        (expressionType, keyPath, function, arguments, constantValue, variable, operand) = (.function, "", name, expressions, nil, "", nil)
    }

    public init(forConstantValue value: Any?) {
        (expressionType, keyPath, function, arguments, constantValue, variable, operand) = (.constantValue, "", "", nil, value, "", nil)
    }

    /// Core Data's `init(forVariable:)`: `$name`, bound when the expression is evaluated.
    public init(forVariable string: String) {
        (expressionType, keyPath, function, arguments, constantValue, variable, operand) = (.variable, "", "", nil, nil, string, nil)
    }

    /// Core Data's `init(forFunction:selectorName:arguments:)`: `selectorName` sent to
    /// `target` with `parameters` (`FUNCTION($manager, "…", …)` of a mapping model).
    public init(forFunction target: NSExpression, selectorName name: String, arguments parameters: [Any]?) {
        let expressions = (parameters ?? []).map { $0 as? NSExpression ?? NSExpression(forConstantValue: $0) }
        (expressionType, keyPath, function, arguments, constantValue, variable, operand) = (.function, "", name, expressions, nil, "", target)
    }

    open override var description: String {
        switch expressionType {
        case .keyPath: keyPath
        case .function where operand != nil:
            "FUNCTION(" + ([operand!.description, "\"\(function)\""] + (arguments ?? []).map(\.quotedDescription)).joined(separator: ", ") + ")"
        case .function: "\(function)(\((arguments ?? []).map(\.description).joined(separator: ", ")))"
        case .constantValue: constantValue.map { "\($0)" } ?? "nil"
        case .evaluatedObject: "SELF"
        case .variable: "$" + variable
        }
    }

    /// The description, with a string constant in quotes (as an argument is written).
    var quotedDescription: String {
        if expressionType == .constantValue, let s = constantValue as? String { return "\"\(s)\"" }
        return description
    }
}

/// Core Data's `NSExpressionDescription`: a computed column of a dictionary fetch, named
/// `name` in each result dictionary.
open class NSExpressionDescription: NSPropertyDescription, @unchecked Sendable {
    open var expression: NSExpression?
    /// The type its value comes back as (`NSNumber` for numbers, `Date` for dates).
    open var expressionResultType: NSAttributeType = .undefinedAttributeType
}
