@_spi(CoreData) import ManagedContext

/// Core Data's `NSDerivedAttributeDescription` (iOS 13): an attribute whose value the
/// store computes from `derivationExpression` when a context saves, not the app.
///
/// Apple's documentation lists what a derivation may be: a to-one key path (`name`,
/// `author.name`), one with a function (`canonical:(name)`, `uppercase:`, `lowercase:`),
/// an aggregate of a to-many key path (`friends.@count`, `@sum`), and `now()`. The header
/// (NSDerivedAttributeDescription.h): "Derived attributes will be recomputed during save,
/// recomputed values will not be reflected in a managed object's property until after a
/// save." This runtime computes them in the save's transaction, writes them to their
/// columns, and the saving context's objects show them once the save returns, as Core
/// Data's do from iOS 14. A value the app sets is replaced by the computed one at save.
open class NSDerivedAttributeDescription: NSAttributeDescription, @unchecked Sendable {
    /// Core Data's `derivationExpression`: what the value is derived from.
    open var derivationExpression: NSExpression?
}

/// Checks a derived attribute's expression against its entity and turns it into the
/// runtime's `Derivation`: what a model is refused for when it loads, naming the entity
/// and attribute (Core Data refuses a store whose model derives what it cannot).
enum DerivationCompiler {
    private static let aggregates: [String: Derivation.Aggregate] = [
        "@count": .count, "@sum": .sum, "@min": .min, "@max": .max, "@avg": .avg,
    ]
    private static let functions: [String: Derivation.Function] = [
        "lowercase": .lowercase, "uppercase": .uppercase, "canonical": .canonical,
    ]
    private static let supported =
        "Core Data derives a key path through to-one relationships (name, author.name), lowercase:/uppercase:/canonical: of one, an aggregate of a to-many relationship (notes.@count, notes.@sum.amount), or now()"

    static func derivation(
        of attribute: NSDerivedAttributeDescription, in entity: NSEntityDescription, entities byName: [String: NSEntityDescription]
    ) throws(ModelCompileError) -> Derivation {
        let owner = "\(entity.name ?? "?").\(attribute.name)"
        func fail(_ why: String) -> ModelCompileError {
            ModelCompileError(message: "Derived attribute \(owner) has the derivation expression '\(attribute.derivationExpression?.description ?? "")', which \(why). \(supported).")
        }
        guard let expression = attribute.derivationExpression else {
            throw ModelCompileError(message: "Derived attribute \(owner) has no derivation expression. Set its derivationExpression (Xcode's Derivation field). \(supported).")
        }
        let text = expression.description
        switch expression.expressionType {
        case .keyPath:
            let path = expression.keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            if path.contains(where: { $0.hasPrefix("@") }) {
                return Derivation(source: try aggregate(path, of: entity, byName, fail), text: text)
            }
            _ = try keyPath(path, of: entity, byName, fail)
            return Derivation(source: .keyPath(path), text: text)
        case .function:
            var name = expression.function
            if name.hasSuffix(":") { name.removeLast() }
            if name.hasSuffix("()") { name.removeLast(2) }
            let arguments = expression.arguments ?? []
            if name == "now" {
                guard arguments.isEmpty else { throw fail("gives now() arguments (it takes none)") }
                guard attribute.attributeType == .dateAttributeType else { throw fail("gives a date to an attribute of another type (make it a Date attribute)") }
                return Derivation(source: .now, text: text)
            }
            guard let function = functions[name] else { throw fail("uses the function \(expression.function), which derived attributes do not take") }
            guard arguments.count == 1, arguments[0].expressionType == .keyPath else {
                throw fail("gives \(expression.function) something other than one key path")
            }
            let path = arguments[0].keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            let source = try keyPath(path, of: entity, byName, fail)
            guard source.attributeType == .stringAttributeType else { throw fail("applies \(expression.function) to \(path.joined(separator: ".")), which is not a String attribute") }
            return Derivation(source: .keyPath(path), function: function, text: text)
        default:
            throw fail("is neither a key path nor a function")
        }
    }

    private static func destination(of r: NSRelationshipDescription, _ byName: [String: NSEntityDescription]) -> NSEntityDescription? {
        r.destinationEntity ?? r.destinationEntityName.flatMap { byName[$0] }
    }

    /// The stored attribute a key path of to-one relationships ends at.
    private static func keyPath(
        _ path: [String], of entity: NSEntityDescription, _ byName: [String: NSEntityDescription], _ fail: (String) -> ModelCompileError
    ) throws(ModelCompileError) -> NSAttributeDescription {
        var current = entity
        for (i, name) in path.enumerated() {
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { throw fail("is not a key path") }
            let property = current.propertiesByName[name]
            if i == path.count - 1 {
                guard let a = property as? NSAttributeDescription else {
                    throw fail(property == nil ? "names \(name), which \(current.name ?? "?") does not have" : "ends at \(name), which is not an attribute")
                }
                guard !a.isTransient else { throw fail("copies \(name), a transient attribute the store does not keep") }
                return a
            }
            guard let r = property as? NSRelationshipDescription else {
                throw fail(property == nil ? "names \(name), which \(current.name ?? "?") does not have" : "goes through \(name), which is not a relationship")
            }
            guard !r.isToMany else { throw fail("goes through the to-many relationship \(name) without an aggregate such as @count") }
            guard let next = destination(of: r, byName) else { throw fail("goes through \(name), whose destination is not in the model") }
            current = next
        }
        throw fail("is empty")
    }

    /// `rel.@count`, `rel.@sum.attr` (a collection operator as key-value coding writes it)
    /// or `rel.attr.@sum` (as Core Data's model editor writes it).
    private static func aggregate(
        _ path: [String], of entity: NSEntityDescription, _ byName: [String: NSEntityDescription], _ fail: (String) -> ModelCompileError
    ) throws(ModelCompileError) -> Derivation.Source {
        let relationshipName: String, op: String, attributeName: String?
        switch path.count {
        case 2 where path[1].hasPrefix("@"): (relationshipName, op, attributeName) = (path[0], path[1], nil)
        case 3 where path[1].hasPrefix("@") && !path[2].hasPrefix("@"): (relationshipName, op, attributeName) = (path[0], path[1], path[2])
        case 3 where path[2].hasPrefix("@") && !path[1].hasPrefix("@"): (relationshipName, op, attributeName) = (path[0], path[2], path[1])
        default: throw fail("is not an aggregate of one to-many relationship of the entity (such as notes.@count or notes.@sum.amount)")
        }
        guard let aggregate = aggregates[op] else { throw fail("uses the operator \(op) (derived attributes take @count, @sum, @min, @max and @avg)") }
        guard aggregate == .count || attributeName != nil else { throw fail("gives \(op) no attribute to aggregate") }
        guard let r = entity.relationshipsByName[relationshipName], r.isToMany else {
            throw fail("aggregates \(relationshipName), which is not a to-many relationship of \(entity.name ?? "?")")
        }
        guard let destination = destination(of: r, byName) else { throw fail("aggregates \(relationshipName), whose destination is not in the model") }
        let inverse = r.inverseRelationship ?? r.inverseName.flatMap { destination.relationshipsByName[$0] }
        guard let inverse, !inverse.isToMany else {
            throw fail("aggregates a many-to-many relationship (or one without an inverse), which this runtime does not derive yet")
        }
        if let attributeName {
            guard let a = destination.attributesByName[attributeName], !a.isTransient else {
                throw fail("aggregates \(attributeName), which is not a stored attribute of \(destination.name ?? "?")")
            }
            let numeric: Set<NSAttributeType> = [
                .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .doubleAttributeType, .floatAttributeType, .decimalAttributeType,
            ]
            let ordered = numeric.union([.dateAttributeType, .stringAttributeType])
            guard (aggregate == .min || aggregate == .max ? ordered : numeric).contains(a.attributeType) || aggregate == .count else {
                throw fail("takes \(op) of \(attributeName), which is not a number")
            }
        }
        return .aggregate(aggregate, relationship: relationshipName, attribute: attributeName)
    }
}

/// The text of a derivation as Xcode's model editor writes it (`derivationExpression` in
/// the `contents` file) and `NSExpression(format:)` takes it: a key path with collection
/// operators (`notes.@count`), or a function of key paths (`lowercase:(name)`, `now()`).
struct DerivationExpressionParser {
    struct Failure: Error, CustomStringConvertible { let description: String }

    private let text: [Character]
    private var at = 0

    init(_ text: String) { self.text = Array(text) }

    static func parse(_ text: String) throws(Failure) -> NSExpression {
        var parser = DerivationExpressionParser(text)
        let e = try parser.expression()
        parser.skipSpace()
        guard parser.at == parser.text.count else { throw Failure(description: "unexpected '\(String(parser.text[parser.at...]))'") }
        return e
    }

    private mutating func skipSpace() { while at < text.count, text[at].isWhitespace { at += 1 } }

    private mutating func name() -> String {
        let start = at
        if at < text.count, text[at] == "@" { at += 1 }
        while at < text.count, text[at].isLetter || text[at].isNumber || text[at] == "_" { at += 1 }
        return String(text[start..<at])
    }

    private mutating func expression() throws(Failure) -> NSExpression {
        skipSpace()
        var first = name()
        guard !first.isEmpty, first != "@" else {
            throw Failure(description: at < text.count ? "unexpected '\(text[at])'" : "the expression is empty")
        }
        if at < text.count, text[at] == ":" {
            at += 1
            first += ":"
            skipSpace()
        }
        if at < text.count, text[at] == "(" {
            at += 1
            var arguments: [NSExpression] = []
            skipSpace()
            if at < text.count, text[at] == ")" {
                at += 1
            } else {
                while true {
                    arguments.append(try expression())
                    skipSpace()
                    guard at < text.count else { throw Failure(description: "\(first) is not closed with ')'") }
                    if text[at] == "," { at += 1; continue }
                    guard text[at] == ")" else { throw Failure(description: "unexpected '\(text[at])' in the arguments of \(first)") }
                    at += 1
                    break
                }
            }
            return NSExpression(forFunction: first, arguments: arguments)
        }
        guard !first.hasSuffix(":") else { throw Failure(description: "\(first) is not followed by its arguments in parentheses") }
        var path = first
        while at < text.count, text[at] == "." {
            at += 1
            let next = name()
            guard !next.isEmpty, next != "@" else { throw Failure(description: "a '.' is not followed by a key") }
            path += "." + next
        }
        return NSExpression(forKeyPath: path)
    }
}
