import Foundation

/// A value expression Xcode's mapping editor archived (`valueexpressiondata`): an
/// `NSKeyedArchiver` archive of Foundation's expression classes. Foundation on Linux has
/// no such classes, so the archive is read with stand-ins that take the keys Apple's
/// expressions encode (`NSExpressionType`, `NSOperand`, `NSSelectorName`, `NSArguments`,
/// `NSConstantValue`, `NSVariable`, `NSKeyPath`). An archive of another shape is refused
/// with an error that names the mapping, never guessed at.
enum ArchivedExpression {
    static let classNames = [
        "NSExpression", "NSConstantValueExpression", "NSKeyPathExpression", "NSFunctionExpression", "NSVariableExpression",
        "NSKeyPathSpecifierExpression", "NSSelfExpression",
    ]

    static func decode(_ data: Data, what: String) throws -> NSExpression {
        let root: Any?
        do {
            let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
            unarchiver.requiresSecureCoding = false
            unarchiver.decodingFailurePolicy = .setErrorAndReturn
            for name in classNames { unarchiver.setClass(ArchivedExpressionNode.self, forClassName: name) }
            root = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey)
            unarchiver.finishDecoding()
        } catch {
            throw MigrationFailure(NSMigrationError, "\(what): the archived value expression cannot be read (\(error.localizedDescription)). Write it again in Xcode's mapping editor.")
        }
        guard let node = root as? ArchivedExpressionNode, let expression = node.expression else {
            throw MigrationFailure(NSMigrationError, "\(what): the archived value expression is not one a migration on Linux reads (a key path, a constant, a variable or a FUNCTION). Compute the value in an entity migration policy instead.")
        }
        return expression
    }
}

/// One archived expression, whichever class it was archived as.
final class ArchivedExpressionNode: NSObject, NSCoding {
    let type: Int
    let operand: ArchivedExpressionNode?
    let selector: String?
    let arguments: [ArchivedExpressionNode]
    let constant: Any?
    let variable: String?
    let keyPath: String?
    /// `NSConstantValueClassName`: the class a constant operand names, as Foundation
    /// archives a built-in function's (`now()`, `sum:`) receiver, `_NSPredicateUtilities`.
    let constantClassName: String?

    init?(coder: NSCoder) {
        func object(_ key: String) -> Any? { coder.containsValue(forKey: key) ? coder.decodeObject(forKey: key) : nil }
        type = coder.containsValue(forKey: "NSExpressionType") ? Int(coder.decodeInt32(forKey: "NSExpressionType")) : -1
        operand = object("NSOperand") as? ArchivedExpressionNode
        selector = object("NSSelectorName") as? String
        let list = object("NSArguments")
        arguments = ((list as? NSArray).map { $0.map { $0 } } ?? list as? [Any] ?? []).compactMap { $0 as? ArchivedExpressionNode }
        constant = object("NSConstantValue")
        variable = object("NSVariable") as? String
        keyPath = object("NSKeyPath") as? String
        constantClassName = object("NSConstantValueClassName") as? String
        super.init()
    }

    func encode(with coder: NSCoder) {
        coder.encode(Int32(type), forKey: "NSExpressionType")
        if let operand { coder.encode(operand, forKey: "NSOperand") }
        if let selector { coder.encode(selector, forKey: "NSSelectorName") }
        if !arguments.isEmpty { coder.encode(arguments as NSArray, forKey: "NSArguments") }
        if let constant { coder.encode(constant, forKey: "NSConstantValue") }
        if let variable { coder.encode(variable, forKey: "NSVariable") }
        if let keyPath { coder.encode(keyPath, forKey: "NSKeyPath") }
        if let constantClassName { coder.encode(constantClassName, forKey: "NSConstantValueClassName") }
    }

    /// A node made in code (tests archive these to check the reader).
    init(
        type: Int, operand: ArchivedExpressionNode? = nil, selector: String? = nil, arguments: [ArchivedExpressionNode] = [], constant: Any? = nil,
        variable: String? = nil, keyPath: String? = nil, constantClassName: String? = nil
    ) {
        (self.type, self.operand, self.selector, self.arguments, self.constant, self.variable, self.keyPath) = (type, operand, selector, arguments, constant, variable, keyPath)
        self.constantClassName = constantClassName
        super.init()
    }

    /// The expression, by NSExpressionType (0 constant, 1 self, 2 variable, 3 key path, 4 function, 10 key path specifier).
    var expression: NSExpression? {
        if let variable { return NSExpression(forVariable: variable) }
        if let keyPath, type == 10 || type == 3, selector == nil { return NSExpression(forKeyPath: keyPath) }
        switch type {
        case 0: return NSExpression(forConstantValue: constant)
        case 1: return NSExpression(forConstantValue: nil)
        case 3, 4:
            guard let selector else { return nil }
            let args = arguments.compactMap(\.expression)
            guard args.count == arguments.count else { return nil }
            if selector == "valueForKey:" || selector == "valueForKeyPath:", let path = args.first?.keyPathText {
                if let operand, let base = operand.expression, base.expressionType == .variable { return NSExpression(forKeyPath: "$\(base.variable).\(path)") }
                if operand == nil || operand?.type == 1 { return NSExpression(forKeyPath: path) }
            }
            // A built-in function (`now()`, `sum:`) is archived as a call on the class
            // `_NSPredicateUtilities`, a constant operand that names it.
            if operand?.constantClassName == "_NSPredicateUtilities" { return NSExpression(forFunction: selector, arguments: args) }
            guard let target = operand?.expression else { return NSExpression(forFunction: selector, arguments: args) }
            return NSExpression(forFunction: target, selectorName: selector, arguments: args)
        default: return nil
        }
    }
}

extension NSExpression {
    /// The key path a key-path specifier or a string constant names.
    fileprivate var keyPathText: String? {
        switch expressionType {
        case .keyPath: keyPath
        case .constantValue: constantValue as? String
        default: nil
        }
    }
}
