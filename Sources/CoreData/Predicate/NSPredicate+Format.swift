import CtxdebugHelpers
import Foundation
import ManagedContext
import Synchronization

extension NSPredicate {
    /// Core Data's `NSPredicate(format:)`: parses `predicateFormat` in Core Data's
    /// predicate language with `args` substituted for `%@`, `%K`, `%d`, `%f`… (Apple's
    /// "Predicate Format String Syntax"). A malformed format stops here, as on Apple
    /// platforms, with a message that names the position.
    public convenience init(format predicateFormat: String, _ args: Any...) {
        self.init(format: predicateFormat, argumentArray: args)
    }

    /// `NSPredicate(format:argumentArray:)`.
    public convenience init(format predicateFormat: String, argumentArray arguments: [Any]?) {
        let template = FormatPredicates.template(for: predicateFormat)
        let node = PredicateBinding.bind(template, arguments ?? [], format: predicateFormat)
        self.init(parsed: ParsedPredicate(node: node, format: predicateFormat))
    }

    /// A predicate that evaluates `parsed` in memory and that the store compiles.
    convenience init(parsed: ParsedPredicate) {
        self.init(block: { object, bindings in PredicateEvaluator(variables: bindings ?? [:]).evaluate(parsed.node, object) })
        FormatPredicates.shared.register(self, parsed)
    }

    /// The predicate with `$VARIABLE`s replaced by `variables`' values (Core Data's
    /// predicate templates). Variables it does not name stay as they are.
    public func withSubstitutionVariables(_ variables: [String: Any]) -> Self {
        // Only a format predicate (a plain NSPredicate) has variables to replace.
        guard let parsed = FormatPredicates.shared.parsed(of: self), type(of: self) == NSPredicate.self else { return self }
        let node = PredicateBinding.substitute(variables, in: parsed.node)
        return NSPredicate(parsed: ParsedPredicate(node: node, format: parsed.format)) as! Self
    }

    /// The format string a predicate was made from (`NSPredicate(format:)`), or nil.
    /// (Foundation's `predicateFormat` on Linux describes a block predicate.)
    public var formatString: String? { FormatPredicates.shared.parsed(of: self)?.format }
}

/// A predicate parsed from a format, its arguments bound. Immutable once made;
/// `@unchecked Sendable`: its constants are values the predicate only reads
/// (see `PredicateConstant`).
final class ParsedPredicate: @unchecked Sendable {
    let node: PredicateNode
    let format: String
    init(node: PredicateNode, format: String) {
        self.node = node
        self.format = format
    }
}

/// The parsed form of each format predicate, kept beside the object (Foundation's
/// `NSPredicate` has no room for it): a table keyed by the object's identity, with a
/// weak reference that tells a live entry from one whose object has gone (and whose
/// identity may be reused). Also the parse cache: each format string parses once.
final class FormatPredicates: Sendable {
    static let shared = FormatPredicates()

    /// `@unchecked Sendable`: read and written only under `entries`' lock.
    private struct Entry: @unchecked Sendable {
        weak var predicate: NSPredicate?
        let parsed: ParsedPredicate
    }

    private struct Table {
        var entries: [ObjectIdentifier: Entry] = [:]
        var insertsSincePrune = 0
    }

    private let table = LockedValue(Table())
    private static let templates = LockedValue<[String: Result<PredicateParser.Template, PredicateSyntaxError>]>([:])

    func register(_ predicate: NSPredicate, _ parsed: ParsedPredicate) {
        table.withLock { t in
            t.entries[ObjectIdentifier(predicate)] = Entry(predicate: predicate, parsed: parsed)
            t.insertsSincePrune += 1
            if t.insertsSincePrune >= max(1_024, t.entries.count) {
                t.entries = t.entries.filter { $0.value.predicate != nil }
                t.insertsSincePrune = 0
            }
        }
    }

    func parsed(of predicate: NSPredicate) -> ParsedPredicate? {
        table.withLock { t in
            guard let entry = t.entries[ObjectIdentifier(predicate)], entry.predicate === predicate else { return nil }
            return entry.parsed
        }
    }

    /// The template of `format`, parsed once; a malformed format stops the program,
    /// as `NSPredicate(format:)` raises on Apple platforms.
    static func template(for format: String) -> PredicateParser.Template {
        let cached = templates.withLock { $0[format] }
        let result: Result<PredicateParser.Template, PredicateSyntaxError>
        if let cached {
            result = cached
        } else {
            do throws(PredicateSyntaxError) {
                result = .success(try PredicateParser.parse(format))
            } catch {
                result = .failure(error)
            }
            templates.withLock { cache in
                if cache.count >= 4_096 { cache.removeAll(keepingCapacity: true) }
                cache[format] = result
            }
        }
        switch result {
        case .success(let t): return t
        case .failure(let e): preconditionFailure(e.description)
        }
    }
}

/// Puts a predicate's arguments into its template.
enum PredicateBinding {
    static func bind(_ template: PredicateParser.Template, _ arguments: [Any], format: String) -> PredicateNode {
        precondition(
            arguments.count >= template.specifiers.count,
            "The format string \"\(format)\" has \(template.specifiers.count) format specifiers but \(arguments.count) arguments were given: pass one argument for each %@, %K, %d or %f.")
        if template.specifiers.isEmpty { return template.node }
        var values: [Any?] = []
        for (i, spec) in template.specifiers.enumerated() {
            let value = unwrap(arguments[i])
            switch spec {
            case .key:
                guard value is String || value is NSString else {
                    preconditionFailure("The format string \"\(format)\": argument \(i + 1) is for %K, a key path, so it must be a String; it is \(value.map { "\(type(of: $0))" } ?? "nil").")
                }
            case .integer(let s):
                guard value == nil || value is any BinaryInteger || value is Bool || value is NSNumber else {
                    preconditionFailure("The format string \"\(format)\": argument \(i + 1) is for \(s), an integer, but it is a \(type(of: value!)). Use %@ for objects and strings.")
                }
            case .real(let s):
                guard value == nil || value is any BinaryFloatingPoint || value is any BinaryInteger || value is NSNumber else {
                    preconditionFailure("The format string \"\(format)\": argument \(i + 1) is for \(s), a floating-point number, but it is a \(type(of: value!)). Use %@ for objects and strings.")
                }
            case .object: break
            }
            values.append(value)
        }
        return map(template.node) { e in
            switch e {
            case .argument(let i): return .constant(PredicateConstant(values[i]))
            case .keyArgument(let i):
                let key = (values[i] as? String) ?? (values[i] as? NSString).map { String(describing: $0) } ?? ""
                return .keyPath(base: nil, key.split(separator: ".").map(String.init))
            default: return nil
            }
        }
    }

    /// `$NAME` replaced by `variables[NAME]` where it is given (not SUBQUERY's own variable).
    static func substitute(_ variables: [String: Any], in node: PredicateNode) -> PredicateNode {
        map(node, bound: []) { e, bound in
            guard case .variable(let name) = e, !bound.contains(name), let value = variables[name] else { return nil }
            return .constant(PredicateConstant(unwrap(value)))
        }
    }

    /// `value` without the `Optional` an `Any` may box it in.
    static func unwrap(_ value: Any?) -> Any? {
        guard let value else { return nil }
        if let optional = value as? any OptionalUnwrapping { return optional.unwrapped }
        return value
    }

    private static func map(_ node: PredicateNode, _ f: (PredicateExpression) -> PredicateExpression?) -> PredicateNode {
        map(node, bound: []) { e, _ in f(e) }
    }

    /// `node` with each expression `f` replaces replaced (`f` returns nil to recurse).
    private static func map(_ node: PredicateNode, bound: Set<String>, _ f: (PredicateExpression, Set<String>) -> PredicateExpression?) -> PredicateNode {
        switch node {
        case .constant: return node
        case .and(let parts): return .and(parts.map { map($0, bound: bound, f) })
        case .or(let parts): return .or(parts.map { map($0, bound: bound, f) })
        case .not(let inner): return .not(map(inner, bound: bound, f))
        case .comparison(var c):
            c.lhs = map(c.lhs, bound: bound, f)
            c.rhs = map(c.rhs, bound: bound, f)
            return .comparison(c)
        }
    }

    private static func map(_ e: PredicateExpression, bound: Set<String>, _ f: (PredicateExpression, Set<String>) -> PredicateExpression?) -> PredicateExpression {
        if let replaced = f(e, bound) {
            // A %K followed by more keys (`%K.name`) joins into one key path.
            return replaced
        }
        switch e {
        case .constant, .variable, .argument, .keyArgument: return e
        case .keyPath(let base, let parts):
            guard let base else { return e }
            let mapped = map(base, bound: bound, f)
            if case .keyPath(nil, let first) = mapped { return .keyPath(base: nil, first + parts) }
            // A key path from a value put in (`$FETCH_SOURCE.name`, `%@.name`) is read now:
            // the store can compare with a value, not walk a key path from an object.
            if case .constant(let value) = mapped {
                return .constant(PredicateConstant(parts.reduce(value.value) { PredicateEvaluator.value(of: $1, in: $0) }))
            }
            return .keyPath(base: mapped, parts)
        case .aggregate(let items): return .aggregate(items.map { map($0, bound: bound, f) })
        case .subquery(let collection, let variable, let predicate):
            return .subquery(map(collection, bound: bound, f), variable: variable, map(predicate, bound: bound.union([variable]), f))
        case .arithmetic(let op, let a, let b): return .arithmetic(op, map(a, bound: bound, f), map(b, bound: bound, f))
        case .function(let name, let args): return .function(name, args.map { map($0, bound: bound, f) })
        }
    }
}

/// Lets `unwrap` see through an `Optional` boxed in `Any`.
protocol OptionalUnwrapping {
    var unwrapped: Any? { get }
}

extension Optional: OptionalUnwrapping {
    var unwrapped: Any? {
        switch self {
        case .some(let v): PredicateBinding.unwrap(v)
        case .none: nil
        }
    }
}
