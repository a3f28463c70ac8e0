import SwiftSyntax

/// A child context saved in a function that never saves its parent chain.
final class ChildSaveNotPropagatedRule: LintRule {
    static let description = RuleDescription(
        id: "child-save-not-propagated",
        name: "ChildSaveNotPropagated",
        summary: "A child context is saved, and its parent is not.",
        rationale: "Saving a child context only pushes its changes into its parent, in memory. Nothing reaches the store until the parent saves too, and in a three-level stack (a private root, the main context, a background child) every level must save in turn. A child save alone looks like it worked, and is lost when the app quits.",
        fix: "After the child's save(), save the parent inside parent.perform { }, and so on up to the context on the store; or call the stack's own save method that does.",
        triggeringExamples: [
            """
            final class Stack {
                let container = NSPersistentContainer(name: "Journal")
                lazy var editContext: NSManagedObjectContext = {
                    let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
                    context.parent = container.viewContext
                    return context
                }()
                func finishEditing() throws {
                    try editContext.↓save()
                }
            }
            """,
        ],
        nonTriggeringExamples: [
            """
            final class Stack {
                let container = NSPersistentContainer(name: "Journal")
                lazy var editContext: NSManagedObjectContext = {
                    let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
                    context.parent = container.viewContext
                    return context
                }()
                func finishEditing() throws {
                    try editContext.save()
                    try container.viewContext.save()
                }
            }
            """,
        ])

    /// The saves of one function.
    private struct FunctionSaves {
        var name: String
        var saves: [(context: ContextRef, node: Syntax)] = []
        /// Calls such as `saveContext()`: they may save the parents, the linter cannot tell.
        var callsOtherSave = false
    }

    /// Parent by child key, from `child.parent = parent` anywhere in the file.
    private var parents: [String: ContextRef] = [:]
    private var functions: [FunctionSaves] = []
    private var current: [FunctionSaves] = []

    init() {}

    func enterFunction(_ walker: SemanticWalker) {
        current.append(FunctionSaves(name: walker.frame.functionName))
    }

    func leaveFunction(_ walker: SemanticWalker) {
        functions.append(current.removeLast())
    }

    func assignment(_ target: ExprSyntax, _ value: ExprSyntax, _ walker: SemanticWalker) {
        guard let member = target.as(MemberAccessExprSyntax.self), CoreDataAPI.modernName(member.declName.baseName.text) == "parent",
            let child = walker.context(member.base), let parent = walker.context(value)
        else { return }
        parents[child.key] = parent
    }

    func call(_ call: FunctionCallExprSyntax, _ walker: SemanticWalker) {
        guard !current.isEmpty else { return }
        let callee = call.calledExpression
        guard let name = Expressions.lastName(callee), name.hasPrefix("save") else { return }
        if name == "save", let member = callee.as(MemberAccessExprSyntax.self), let context = walker.context(member.base) {
            current[current.count - 1].saves.append((context, Syntax(member.declName)))
        } else {
            current[current.count - 1].callsOtherSave = true
        }
    }

    func finish(_ walker: SemanticWalker) {
        for function in functions where !function.callsOtherSave {
            let saved = Set(function.saves.map(\.context.key))
            for (child, node) in function.saves {
                guard let parent = parents[child.key], !saved.contains(parent.key) else { continue }
                walker.report(
                    Self.description, at: node,
                    message: "\(function.name) saves the child context '\(child.name)' but never saves its parent, \(parent.described): the changes stop in memory and never reach the store",
                    fix: "After \(child.name).save(), save \(parent.name) in \(parent.name).perform { } (and each context above it), or call the stack's save method.")
            }
        }
    }

}
