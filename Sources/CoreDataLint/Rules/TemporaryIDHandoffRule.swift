import SwiftSyntax

/// The objectID of a just-inserted object handed to another context before it is permanent.
final class TemporaryIDHandoffRule: LintRule {
    static let description = RuleDescription(
        id: "temporary-id-handoff",
        name: "TemporaryIDHandoff",
        summary: "A temporary objectID is handed to another context.",
        rationale: "An inserted object has a temporary objectID until its context saves it or obtains a permanent ID. The temporary ID means nothing to any other context: object(with:) there returns a fault that fails when fired, and existingObject(with:) throws.",
        fix: "Call try context.obtainPermanentIDs(for: [object]) (or save the context) before handing object.objectID to another context.",
        triggeringExamples: [
            """
            func add(container: NSPersistentContainer) {
                let context = container.newBackgroundContext()
                context.perform {
                    let entry = NSEntityDescription.insertNewObject(forEntityName: "JournalEntry", into: context)
                    let id = entry.objectID
                    DispatchQueue.main.async {
                        _ = container.viewContext.↓object(with: id)
                    }
                }
            }
            """,
        ],
        nonTriggeringExamples: [
            """
            func add(container: NSPersistentContainer) {
                let context = container.newBackgroundContext()
                context.perform {
                    let entry = NSEntityDescription.insertNewObject(forEntityName: "JournalEntry", into: context)
                    try? context.obtainPermanentIDs(for: [entry])
                    let id = entry.objectID
                    DispatchQueue.main.async {
                        _ = container.viewContext.object(with: id)
                    }
                }
            }
            """,
        ])

    /// Contexts saved, or given permanent IDs, so far in the function.
    private var permanentContexts: Set<String> = []

    init() {}

    func enterFunction(_ walker: SemanticWalker) {
        permanentContexts.removeAll()
    }

    func call(_ call: FunctionCallExprSyntax, _ walker: SemanticWalker) {
        guard let member = call.calledExpression.as(MemberAccessExprSyntax.self) else { return }
        switch member.declName.baseName.text {
        case "save", "obtainPermanentIDs":
            if let context = walker.context(member.base) { permanentContexts.insert(context.key) }
        case "object", "existingObject":
            guard let context = walker.context(member.base), let argument = call.arguments.first?.expression,
                case .objectID(let object) = walker.resolve(argument), object.isInsertedHere,
                let owner = object.owner, !owner.isSame(as: context), owner.queue != .unknown, context.queue != .unknown,
                !permanentContexts.contains(owner.key)
            else { return }
            report(
                walker, at: member.declName,
                message: "'\(Expressions.text(argument))' is the temporary ID of an object just inserted into \(owner.described), handed to \(context.described) before \(owner.name) saves it",
                fix: "Call try \(owner.name).obtainPermanentIDs(for:) with the object (or save \(owner.name)) before handing its objectID to another context.")
        default:
            return
        }
    }
}
