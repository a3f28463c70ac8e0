import SwiftParser
import SwiftSyntax

/// `perform(S, with: a)` as a direct call (PortRewriter+Selectors.swift says which
/// selectors `S` name a method).
extension PortRewriter {
    /// The call `node` makes through `perform`, or nil when its first argument is not a
    /// selector; a perform the port cannot make a call of is reported and kept.
    func portPerform(_ node: FunctionCallExprSyntax) -> ExprSyntax? {
        let arguments = Array(node.arguments)
        guard let first = arguments.first, node.trailingClosure == nil else { return nil }
        let method: SelectorName
        switch selectorArgument(first.expression) {
        case .notSelector: return nil
        case .refused(let message):
            report(at: node, message)
            return ExprSyntax(node)
        case .name(let name): method = name
        }
        let labels = arguments.map { $0.label?.text ?? "_" }
        let passed = arguments.count - 1
        if Self.calleeName(node) != "perform" || !labels.dropFirst().allSatisfy({ $0 == "with" }) {
            let form = "\(Self.calleeName(node) ?? "perform")(\(labels.map { $0 + ":" }.joined()))"
            report(
                at: node,
                "\(form) runs \(method.swiftName) later or on another thread through the Objective-C runtime, which Linux does not have; call it in a block on the queue you mean (DispatchQueue.main.asyncAfter(deadline:execute:), DispatchQueue.main.async)"
            )
            return ExprSyntax(node)
        }
        guard method.labels.count == passed else {
            report(at: node, "perform passes \(passed) argument\(passed == 1 ? "" : "s") to \(method.swiftName), which takes \(method.labels.count); call the method itself with its arguments")
            return ExprSyntax(node)
        }
        guard Self.isStatement(node) else {
            report(at: node, "the result of perform (an Unmanaged<AnyObject>) is used here, and a direct call of \(method.swiftName) returns the method's own type; call the method itself")
            return ExprSyntax(node)
        }
        let receiver = node.calledExpression.as(MemberAccessExprSyntax.self)?.base?.trimmedDescription
        var text = method.call(on: receiver, arguments.dropFirst().map { $0.expression.trimmedDescription })
        // The lines the call spanned stay lines: the missing breaks go before its `)`.
        let missing = node.trimmedDescription.filter(\.isNewline).count - text.filter(\.isNewline).count
        if missing > 0 { text.insert(contentsOf: String(repeating: "\n", count: missing), at: text.index(before: text.endIndex)) }
        changed = true
        let call = Parser.parse(source: text).statements.first!.item.as(ExprSyntax.self)!
        return call.with(\.leadingTrivia, node.leadingTrivia).with(\.trailingTrivia, node.trailingTrivia)
    }

    /// `_ = perform(S)` of a method of this file that returns nothing, as the call alone
    /// (`_ =` before it would draw the compiler's "redundant" warning); nil otherwise.
    func discardedPerform(_ node: SequenceExprSyntax) -> ExprSyntax? {
        let elements = Array(node.elements)
        guard elements.count == 3, elements[0].is(DiscardAssignmentExprSyntax.self), elements[1].is(AssignmentExprSyntax.self),
            let call = elements[2].as(FunctionCallExprSyntax.self), Self.calleeName(call) == "perform", let first = call.arguments.first,
            case .name(let name) = selectorArgument(first.expression),
            let declared = functions[name.base]?.filter({ $0.labels == name.labels }), !declared.isEmpty, !declared.contains(where: \.returnsValue),
            let ported = portPerform(call), ported.trimmedDescription != call.trimmedDescription
        else { return nil }
        return ported.with(\.leadingTrivia, node.leadingTrivia).with(\.trailingTrivia, node.trailingTrivia)
    }

    /// `node` is a statement of its own, or `_ = node`: its result is not read.
    static func isStatement(_ node: FunctionCallExprSyntax) -> Bool {
        if node.parent?.is(CodeBlockItemSyntax.self) == true { return true }
        guard let list = node.parent?.as(ExprListSyntax.self), list.count == 3, list.last?.id == node.id,
            list.first?.is(DiscardAssignmentExprSyntax.self) == true, list.dropFirst().first?.is(AssignmentExprSyntax.self) == true
        else { return false }
        return true
    }
}
