import Foundation

extension NSPredicate {
    /// Core Data's `predicateFormat`: the predicate written in the predicate language as
    /// Apple's Foundation writes it (`name == "Tinna" AND color == "lightgray"`). On
    /// Linux, Foundation's own `predicateFormat` writes a format predicate as
    /// `BLOCKPREDICATE(…)` and a compound one as `FALSEPREDICATE`; `ctxdebug port`
    /// rewrites `predicateFormat` to this.
    public var portedPredicateFormat: String {
        if let compound = self as? NSCompoundPredicate {
            return PredicateFormatWriter.compound(compound.compoundPredicateType, compound.subpredicates.map { $0 as? NSPredicate })
        }
        if let parsed = FormatPredicates.shared.parsed(of: self) { return PredicateFormatWriter.format(parsed.node) }
        if self == NSPredicate(value: true) { return "TRUEPREDICATE" }
        if self == NSPredicate(value: false) { return "FALSEPREDICATE" }
        return description
    }
}

/// Writes a parsed predicate back in Core Data's predicate language, as Apple's
/// `predicateFormat` does: `==` for `=`, strings in double quotes, a compound
/// subpredicate in parentheses, options after the operator (`CONTAINS[cd]`), a date as
/// `CAST(<seconds since 2001>, "NSDate")`.
enum PredicateFormatWriter {
    static func compound(_ type: NSCompoundPredicate.LogicalType, _ subpredicates: [NSPredicate?]) -> String {
        let parts = subpredicates.map { p -> String in
            guard let p else { return "nil" }
            let text = p.portedPredicateFormat
            return p is NSCompoundPredicate || isCompound(p) ? "(\(text))" : text
        }
        switch type {
        case .not: return "NOT " + (parts.count == 1 ? parts[0] : "(" + parts.joined(separator: " AND ") + ")")
        case .or: return parts.joined(separator: " OR ")
        default: return parts.joined(separator: " AND ")
        }
    }

    /// Whether a format predicate is itself a compound (`a AND b` parsed).
    private static func isCompound(_ predicate: NSPredicate) -> Bool {
        switch FormatPredicates.shared.parsed(of: predicate)?.node {
        case .and?, .or?, .not?: true
        default: false
        }
    }

    static func format(_ node: PredicateNode) -> String {
        switch node {
        case .constant(let value): return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .and(let parts): return parts.map(nested).joined(separator: " AND ")
        case .or(let parts): return parts.map(nested).joined(separator: " OR ")
        case .not(let part): return "NOT " + nested(part)
        case .comparison(let c): return comparison(c)
        }
    }

    private static func nested(_ node: PredicateNode) -> String {
        switch node {
        case .and, .or, .not: "(" + format(node) + ")"
        default: format(node)
        }
    }

    private static func comparison(_ c: PredicateComparison) -> String {
        let modifier: String = switch c.modifier {
        case .direct: ""
        case .any: "ANY "
        case .all: "ALL "
        case .none: "NONE "
        }
        return modifier + expression(c.lhs) + " " + operatorText(c.op) + c.optionsText + " " + expression(c.rhs)
    }

    private static func operatorText(_ op: PredicateComparison.Operator) -> String {
        switch op {
        case .equal: "=="
        case .notEqual: "!="
        case .less: "<"
        case .lessOrEqual: "<="
        case .greater: ">"
        case .greaterOrEqual: ">="
        case .between: "BETWEEN"
        case .in: "IN"
        case .contains: "CONTAINS"
        case .beginsWith: "BEGINSWITH"
        case .endsWith: "ENDSWITH"
        case .like: "LIKE"
        case .matches: "MATCHES"
        }
    }

    static func expression(_ e: PredicateExpression) -> String {
        switch e {
        case .constant(let c): return constant(c.value)
        case .keyPath(let base, let keys):
            let path = keys.joined(separator: ".")
            guard let base else { return keys.isEmpty ? "SELF" : path }
            return keys.isEmpty ? expression(base) : expression(base) + "." + path
        case .variable(let name): return "$" + name
        case .argument: return "%@"
        case .keyArgument: return "%K"
        case .aggregate(let items): return "{" + items.map(expression).joined(separator: ", ") + "}"
        case .subquery(let collection, let variable, let predicate):
            return "SUBQUERY(\(expression(collection)), $\(variable), \(format(predicate)))"
        case .arithmetic(let op, let a, let b): return "\(expression(a)) \(op) \(expression(b))"
        case .function(let name, let arguments): return "\(name)(" + arguments.map(expression).joined(separator: ", ") + ")"
        }
    }

    static func constant(_ value: Any?) -> String {
        switch value {
        case nil: return "nil"
        case let s as String: return quoted(s)
        case let b as Bool: return b ? "1" : "0"
        case let n as NSNumber: return n.stringValue
        case let i as any BinaryInteger: return "\(i)"
        case let d as Double: return NSNumber(value: d).stringValue
        case let d as Date: return "CAST(\(NSNumber(value: d.timeIntervalSinceReferenceDate).stringValue), \"NSDate\")"
        case let items as [Any]: return "{" + items.map(constant).joined(separator: ", ") + "}"
        case let set as Set<AnyHashable>: return "{" + set.map { constant($0.base) }.joined(separator: ", ") + "}"
        case let set as NSSet: return "{" + set.allObjects.map(constant).joined(separator: ", ") + "}"
        case let value?: return String(describing: value)
        }
    }

    private static func quoted(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
