import Foundation

extension NSMigrationManager {
    /// NSExpression's built-in functions a mapping's expression may use
    /// (`uppercase:`, `lowercase:`, `now`, arithmetic), as NSExpression names them.
    static func builtin(_ name: String, _ args: [Any?]) throws -> Any? {
        func number(_ i: Int) -> Double? { (args.count > i ? args[i] as? NSNumber : nil)?.doubleValue }
        switch name {
        case "uppercase:": return (args.first as? String)?.uppercased()
        case "lowercase:": return (args.first as? String)?.lowercased()
        case "now", "now()": return Date()
        case "add:to:": return number(0).flatMap { a in number(1).map { NSNumber(value: a + $0) } }
        case "from:subtract:": return number(0).flatMap { a in number(1).map { NSNumber(value: a - $0) } }
        case "multiply:by:": return number(0).flatMap { a in number(1).map { NSNumber(value: a * $0) } }
        case "divide:by:": return number(0).flatMap { a in number(1).map { NSNumber(value: a / $0) } }
        default:
            throw MigrationFailure(NSMigrationError, "A value expression calls the function \(name), which a migration on Linux does not have (it has uppercase:, lowercase:, now, add:to:, from:subtract:, multiply:by:, divide:by:); compute the value in an entity migration policy.")
        }
    }

    /// The Foundation selectors a `FUNCTION` may send to a string or a number, as
    /// mapping models use them to convert a value.
    static func sendToValue(_ selector: String, _ target: Any?, _ args: [Any?]) throws -> Any? {
        if target == nil || target is NSNull { return nil }
        if let s = target as? String {
            switch selector {
            case "uppercaseString": return s.uppercased()
            case "lowercaseString": return s.lowercased()
            case "capitalizedString": return s.capitalized
            case "length": return NSNumber(value: s.utf16.count)
            case "intValue", "integerValue", "longLongValue": return NSNumber(value: Int64(s.trimmingCharacters(in: .whitespaces)) ?? 0)
            case "doubleValue", "floatValue": return NSNumber(value: Double(s.trimmingCharacters(in: .whitespaces)) ?? 0)
            case "boolValue": return NSNumber(value: ["y", "Y", "t", "T", "1"].contains(s.first.map(String.init) ?? ""))
            case "stringByAppendingString:": return s + (args.first as? String ?? "")
            case "componentsSeparatedByString:": return s.components(separatedBy: args.first as? String ?? " ")
            case "stringByTrimmingCharactersInSet:", "trimmed": return s.trimmingCharacters(in: .whitespacesAndNewlines)
            case "description", "stringValue": return s
            default: break
            }
        }
        if let n = target as? NSNumber {
            switch selector {
            case "stringValue", "description": return n.stringValue
            case "intValue", "integerValue", "longLongValue": return NSNumber(value: n.int64Value)
            case "doubleValue", "floatValue": return NSNumber(value: n.doubleValue)
            case "boolValue": return NSNumber(value: n.boolValue)
            default: break
            }
        }
        if let a = target as? [Any], selector == "objectAtIndex:" || selector == "firstObject" || selector == "lastObject" {
            let i = selector == "lastObject" ? a.count - 1 : (selector == "firstObject" ? 0 : (args.first as? NSNumber)?.intValue ?? 0)
            return a.indices.contains(i) ? a[i] : nil
        }
        throw MigrationFailure(
            NSMigrationError,
            "A value expression sends \"\(selector)\" to a \(type(of: target!)), which Linux cannot send without the Objective-C runtime; compute the value in an entity migration policy (FUNCTION($entityPolicy, \"\(selector)\", …) and perform(function:arguments:)).")
    }
}
