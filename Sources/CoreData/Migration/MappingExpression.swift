import Foundation

/// The value expressions of a mapping model, written as Xcode's mapping editor and
/// Core Data's documentation write them ("Mapping Model Objects", Core Data Model
/// Versioning and Data Migration Programming Guide):
/// `$source.name`, `$source.address.city`, `FUNCTION($source, "valueForKey:", "name")`,
/// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "PersonToPerson", $source.friends)`,
/// `FUNCTION($entityPolicy, "fullNameOf:", $source)`, constants ("text", 12, 1.5, nil,
/// YES/NO). Foundation on Linux has no Objective-C runtime: a `FUNCTION` sent to an
/// entity policy reaches its `perform(function:arguments:)`, and the few Foundation
/// selectors on strings and numbers listed in `sendToValue` are understood.
extension NSExpression {
    /// Core Data's `init(format:)`, for the expressions of a mapping model.
    public convenience init(format expressionFormat: String, _ args: Any...) {
        do {
            var parser = MappingExpressionParser(expressionFormat, arguments: args)
            let parsed = try parser.parseWhole()
            self.init(copying: parsed)
        } catch {
            // A derivation (`notes.@count`, `lowercase:(name)`, `now()`) is an expression
            // the mapping grammar does not have.
            if args.isEmpty, let derivation = try? DerivationExpressionParser.parse(expressionFormat) {
                self.init(copying: derivation)
                return
            }
            preconditionFailure("Unable to parse the format string \"\(expressionFormat)\": \(error)")
        }
    }

    /// The same expression as `other` (the parser builds one, `init(format:)` is it).
    convenience init(copying other: NSExpression) {
        switch other.expressionType {
        case .constantValue: self.init(forConstantValue: other.constantValue)
        case .variable: self.init(forVariable: other.variable)
        case .function where other.operand != nil:
            self.init(forFunction: other.operand!, selectorName: other.function, arguments: other.arguments)
        case .function: self.init(forFunction: other.function, arguments: other.arguments ?? [])
        default: self.init(forKeyPath: other.keyPath)
        }
    }
}

struct MappingExpressionError: Error, CustomStringConvertible {
    let description: String
}

/// A small recursive-descent parser of mapping-model expressions.
struct MappingExpressionParser {
    private let text: [Character]
    private var at = 0
    private var arguments: [Any]

    init(_ text: String, arguments: [Any] = []) {
        self.text = Array(text)
        self.arguments = arguments
    }

    mutating func parseWhole() throws -> NSExpression {
        let e = try parse()
        skipSpace()
        guard at == text.count else { throw MappingExpressionError(description: "unexpected '\(String(text[at...]))'") }
        return e
    }

    private mutating func skipSpace() { while at < text.count, text[at].isWhitespace { at += 1 } }

    private mutating func word() -> String {
        let start = at
        while at < text.count, text[at].isLetter || text[at].isNumber || text[at] == "_" || text[at] == "." || text[at] == ":" { at += 1 }
        return String(text[start..<at])
    }

    mutating func parse() throws -> NSExpression {
        skipSpace()
        guard at < text.count else { throw MappingExpressionError(description: "the expression ends too soon") }
        let c = text[at]
        if c == "\"" || c == "'" { return NSExpression(forConstantValue: try quoted(c)) }
        if c == "$" {
            at += 1
            let path = word()
            guard !path.isEmpty else { throw MappingExpressionError(description: "a $ with no variable name") }
            return path.contains(".") ? NSExpression(forKeyPath: "$" + path) : NSExpression(forVariable: path)
        }
        if c == "%" {
            at += 2  // %@
            guard !arguments.isEmpty else { throw MappingExpressionError(description: "a %@ with no argument") }
            return NSExpression(forConstantValue: arguments.removeFirst())
        }
        if c.isNumber || c == "-" {
            let start = at
            at += 1
            while at < text.count, text[at].isNumber || text[at] == "." { at += 1 }
            let literal = String(text[start..<at])
            if let i = Int(literal) { return NSExpression(forConstantValue: NSNumber(value: i)) }
            if let d = Double(literal) { return NSExpression(forConstantValue: NSNumber(value: d)) }
            throw MappingExpressionError(description: "'\(literal)' is not a number")
        }
        let name = word()
        switch name.uppercased() {
        case "": throw MappingExpressionError(description: "unexpected '\(c)'")
        case "NIL", "NULL": return NSExpression(forConstantValue: nil)
        case "YES", "TRUE": return NSExpression(forConstantValue: NSNumber(value: true))
        case "NO", "FALSE": return NSExpression(forConstantValue: NSNumber(value: false))
        case "FUNCTION": return try function()
        default: return NSExpression(forKeyPath: name)
        }
    }

    private mutating func function() throws -> NSExpression {
        try expect("(")
        let target = try parse()
        try expect(",")
        let selector = try parse()
        guard selector.expressionType == .constantValue, let name = selector.constantValue as? String else {
            throw MappingExpressionError(description: "FUNCTION's second argument is the selector's name, in quotes")
        }
        var args: [NSExpression] = []
        skipSpace()
        while at < text.count, text[at] == "," {
            at += 1
            args.append(try parse())
            skipSpace()
        }
        try expect(")")
        return NSExpression(forFunction: target, selectorName: name, arguments: args)
    }

    private mutating func expect(_ c: Character) throws {
        skipSpace()
        guard at < text.count, text[at] == c else { throw MappingExpressionError(description: "expected '\(c)'") }
        at += 1
    }

    private mutating func quoted(_ quote: Character) throws -> String {
        at += 1
        var out = ""
        while at < text.count, text[at] != quote {
            if text[at] == "\\", at + 1 < text.count { at += 1 }
            out.append(text[at])
            at += 1
        }
        guard at < text.count else { throw MappingExpressionError(description: "a string with no closing quote") }
        at += 1
        return out
    }
}
