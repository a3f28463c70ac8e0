import SwiftSyntax

/// `.confinementConcurrencyType`, or `NSManagedObjectContext()` with no concurrency type.
final class ConfinementTypeRule: LintRule {
    static let description = RuleDescription(
        id: "confinement-type",
        name: "ConfinementType",
        summary: "A context has the deprecated confinement type.",
        rationale: "A confinement context (.confinementConcurrencyType, which NSManagedObjectContext() also makes) has no queue of its own: it belongs to whichever thread made it, perform { } cannot be used with it, and Core Data's concurrency checks cannot tell a right access from a wrong one. Apple deprecated it in iOS 9 and macOS 10.11.",
        fix: "Make the context with NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType) or .mainQueueConcurrencyType, and reach it through perform { }.",
        triggeringExamples: [
            "let scratch = ↓NSManagedObjectContext()",
            "let legacy = NSManagedObjectContext(concurrencyType: .↓confinementConcurrencyType)",
        ],
        nonTriggeringExamples: [
            "let scratch = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)",
            """
            func check(_ context: NSManagedObjectContext) {
                switch context.concurrencyType {
                case .confinementConcurrencyType: fatalError("confinement contexts are not supported")
                default: break
                }
                precondition(context.concurrencyType != .confinementConcurrencyType)
            }
            """,
        ])

    init() {}

    func call(_ call: FunctionCallExprSyntax, _ walker: SemanticWalker) {
        guard call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text == CoreDataAPI.contextType,
            call.arguments.isEmpty, call.trailingClosure == nil
        else { return }
        report(
            walker, at: call,
            message: "NSManagedObjectContext() makes a confinement context (deprecated): it belongs to the thread that made it, not to a queue of its own",
            fix: Self.description.fix)
    }

    /// Only as the concurrency type a context is made with: never in a `case` label or
    /// a comparison that refuses such a context.
    func memberAccess(_ access: MemberAccessExprSyntax, _ walker: SemanticWalker) {
        guard access.declName.baseName.text == "confinementConcurrencyType",
            let argument = access.parent?.as(LabeledExprSyntax.self), argument.label?.text == "concurrencyType",
            let call = argument.parent?.parent?.as(FunctionCallExprSyntax.self),
            Self.makesContext(call.calledExpression)
        else { return }
        report(
            walker, at: access.declName,
            message: ".confinementConcurrencyType (deprecated) makes a context that belongs to the thread that made it, not to a queue of its own",
            fix: Self.description.fix)
    }

    /// `NSManagedObjectContext(…)`, `NSManagedObjectContext.init(…)`, `.init(…)`.
    private static func makesContext(_ callee: ExprSyntax) -> Bool {
        if Expressions.lastName(callee) == CoreDataAPI.contextType { return true }
        guard let member = callee.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "init" else { return false }
        return member.base.map { Expressions.lastName($0) == CoreDataAPI.contextType } ?? true
    }
}
