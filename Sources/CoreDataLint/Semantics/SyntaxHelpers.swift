import CtxdebugHelpers
import Foundation
import SwiftSyntax

/// Reading type names: `NSManagedObjectContext!`, `[JournalEntry]`, `NSFetchRequest<JournalEntry>`.
enum TypeNames {
    /// The name under optionals: `NSManagedObjectContext` for `NSManagedObjectContext?`.
    static func base(of type: TypeSyntax) -> String? {
        if let optional = type.as(OptionalTypeSyntax.self) { return base(of: optional.wrappedType) }
        if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return base(of: unwrapped.wrappedType) }
        if let identifier = type.as(IdentifierTypeSyntax.self) { return identifier.name.text }
        if let member = type.as(MemberTypeSyntax.self) { return member.name.text }
        return nil
    }

    /// The element name of an array type, under optionals: `JournalEntry` for `[JournalEntry]?`.
    static func element(of type: TypeSyntax) -> String? {
        if let optional = type.as(OptionalTypeSyntax.self) { return element(of: optional.wrappedType) }
        if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return element(of: unwrapped.wrappedType) }
        if let array = type.as(ArrayTypeSyntax.self) { return base(of: array.element) }
        return nil
    }

    /// The first generic argument's name: `JournalEntry` for `NSFetchRequest<JournalEntry>`.
    static func genericArgument(of type: TypeSyntax) -> String? {
        let arguments: GenericArgumentClauseSyntax?
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            arguments = identifier.genericArgumentClause
        } else if let member = type.as(MemberTypeSyntax.self) {
            arguments = member.genericArgumentClause
        } else {
            return nil
        }
        return genericArgument(in: arguments)
    }

    static func genericArgument(in clause: GenericArgumentClauseSyntax?) -> String? {
        guard let argument = clause?.arguments.first?.argument, case .type(let type) = argument else { return nil }
        return base(of: type)
    }
}

/// Reading expressions by shape.
enum Expressions {
    /// The last name of a reference or member chain: `mainContext` for `self.stack.mainContext`.
    static func lastName(_ expression: ExprSyntax) -> String? {
        // The node's kind read once: each `as(_:)` makes a typed node to find out.
        switch expression.kind {
        case .declReferenceExpr: return expression.cast(DeclReferenceExprSyntax.self).baseName.text
        case .memberAccessExpr: return expression.cast(MemberAccessExprSyntax.self).declName.baseName.text
        default: return nil
        }
    }

    /// Whether the expression is `self`.
    static func isSelf(_ expression: ExprSyntax?) -> Bool {
        guard let expression else { return false }
        return unwrapped(expression).as(DeclReferenceExprSyntax.self)?.baseName.tokenKind == .keyword(.self)
    }

    /// `node = …`: the target of a plain assignment (a setter, not a read).
    static func isAssignmentTarget(_ node: some SyntaxProtocol) -> Bool {
        guard let sequence = node.parent?.parent?.as(SequenceExprSyntax.self), sequence.elements.count == 3 else { return false }
        let elements = Array(sequence.elements)
        return elements[0].id == node.id && elements[1].is(AssignmentExprSyntax.self)
    }

    /// The argument with this label.
    static func argument(_ label: String, of call: FunctionCallExprSyntax) -> ExprSyntax? {
        call.arguments.first { $0.label?.text == label }?.expression
    }

    /// The expression without `try`, `await`, `!`, `?` and parentheses around it.
    static func unwrapped(_ expression: ExprSyntax) -> ExprSyntax {
        // The node's kind read once (most expressions are none of these): asked of
        // nearly every expression the rules resolve, where five `as(_:)` made five
        // typed nodes to find out (2% of a run).
        switch expression.kind {
        case .tryExpr: return unwrapped(expression.cast(TryExprSyntax.self).expression)
        case .awaitExpr: return unwrapped(expression.cast(AwaitExprSyntax.self).expression)
        case .forceUnwrapExpr: return unwrapped(expression.cast(ForceUnwrapExprSyntax.self).expression)
        case .optionalChainingExpr: return unwrapped(expression.cast(OptionalChainingExprSyntax.self).expression)
        case .tupleExpr:
            let tuple = expression.cast(TupleExprSyntax.self)
            if tuple.elements.count == 1, let only = tuple.elements.first, only.label == nil { return unwrapped(only.expression) }
            return expression
        default:
            return expression
        }
    }

    /// Source text of an expression, on one line, for messages.
    static func text(_ node: some SyntaxProtocol) -> String {
        let text = trimmedText(node)
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) else { return text }
        return text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }

    /// The node's source text without its leading and trailing trivia: what
    /// `trimmedDescription` gives, read from the tree's bytes instead of a trimmed copy
    /// of the tree (a sixth of the rules pass went to making those copies).
    static func trimmedText(_ node: some SyntaxProtocol) -> String {
        let bytes = node.syntaxTextBytes
        let start = node.leadingTriviaLength.utf8Length, end = bytes.count - node.trailingTriviaLength.utf8Length
        guard start < end else { return "" }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// Whether an identifier in `node` contains one of `parts`: a cheap look before
    /// reading the node's whole text.
    static func mentions(_ node: some SyntaxProtocol, anyOf parts: [StaticString]) -> Bool {
        node.tokens(viewMode: .sourceAccurate).contains { token in
            // The kind's payload is the token's text: one kind formed, not two.
            guard case .identifier(let text) = token.tokenKind else { return false }
            return parts.contains { TextSearch.foundationContains($0, in: text) }
        }
    }
}
