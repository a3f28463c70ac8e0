import SwiftSyntax

/// A private-queue context, or an object it owns, used outside its `perform`.
final class ContextWithoutPerformRule: LintRule {
    static let description = RuleDescription(
        id: "context-without-perform",
        name: "ContextWithoutPerform",
        summary: "A private-queue context is used outside its perform.",
        rationale: "A context made by newBackgroundContext() or with .privateQueueConcurrencyType owns a private queue, and only code inside its perform { } or performAndWait { } runs there. A fetch, save, insert, delete or object(with:) called straight from a function runs on the caller's queue instead, racing with whatever the context is doing. The same holds for performBackgroundTask's context once its block has returned, and for the properties of the context's objects.",
        fix: "Wrap the access in context.perform { } (or performAndWait { } when the result is needed right away).",
        triggeringExamples: [
            """
            func importEntries(container: NSPersistentContainer) throws {
                let context = container.newBackgroundContext()
                _ = ↓NSEntityDescription.insertNewObject(forEntityName: "JournalEntry", into: context)
                try context.↓save()
            }
            """,
            """
            func count(container: NSPersistentContainer) throws {
                let context = container.newBackgroundContext()
                var entries: [JournalEntry] = []
                context.performAndWait { entries = try! context.fetch(JournalEntry.fetchRequest()) }
                print(entries.first?.↓note ?? "")
            }
            """,
            """
            func keep(container: NSPersistentContainer) throws {
                var kept: NSManagedObjectContext?
                container.performBackgroundTask { context in kept = context }
                try kept?.↓save()
            }
            """,
        ],
        nonTriggeringExamples: [
            """
            func importEntries(container: NSPersistentContainer) {
                let context = container.newBackgroundContext()
                context.perform {
                    let entry = JournalEntry(context: context)
                    entry.note = "imported"
                    try? context.save()
                }
            }
            """,
        ])

    /// Each object's properties are reported once per function.
    private var reportedObjects: Set<String> = []

    init() {}

    func leaveFunction(_ walker: SemanticWalker) {
        reportedObjects.removeAll()
    }

    func call(_ call: FunctionCallExprSyntax, _ walker: SemanticWalker) {
        if let member = call.calledExpression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "performFetch",
            let base = member.base, case .fetchedResultsController(let context) = walker.resolve(base), context.queue == .private, isOutside(context, walker)
        {
            report(walker, at: member.declName, doing: "performFetch() of \(Expressions.text(base)), a fetched results controller over \(context.described),", on: context)
            return
        }
        if let member = call.calledExpression.as(MemberAccessExprSyntax.self),
            CoreDataAPI.contextMethods.contains(member.declName.baseName.text),
            let context = walker.context(member.base), context.queue == .private, isOutside(context, walker)
        {
            report(walker, at: member.declName, doing: "\(member.declName.baseName.text)() on \(context.described)", on: context)
            return
        }
        if let (use, argument) = walker.index.contextParameterUse(of: call), let context = walker.context(argument),
            context.queue == .private, isOutside(context, walker)
        {
            let callee = "\(Expressions.text(call.calledExpression))(\(use.label == "_" ? "_" : use.label):)"
            let what = "\(callee), which \(use.described) the context it is handed (\(use.place.described)), called with \(context.described),"
            report(walker, at: call, doing: what, on: context)
            return
        }
        if Self.mayInsert(call, walker), case .managedObject(let object) = walker.resolve(ExprSyntax(call)), object.isInsertedHere,
            let context = object.owner, context.queue == .private, isOutside(context, walker)
        {
            report(walker, at: call, doing: "inserting \(Self.inserted(call, walker)) into \(context.described)", on: context)
        }
    }

    func memberAccess(_ access: MemberAccessExprSyntax, _ walker: SemanticWalker) {
        if let use = walker.index.contextExtensionUse(access), let context = walker.context(access.base), context.queue == .private, !Expressions.isAssignmentTarget(access), isOutside(context, walker) {
            report(walker, at: access.declName, doing: Self.extensionUse(use, on: context), on: context)
            return
        }
        guard let base = access.base else { return }
        let member = access.declName.baseName.text
        switch walker.resolve(base) {
        case .context(let context) where CoreDataAPI.contextStateProperties.contains(member):
            // A setter is thread-safe (Apple's documented exception); a getter is a use.
            guard context.queue == .private, !Expressions.isAssignmentTarget(access), isOutside(context, walker) else { return }
            report(walker, at: access.declName, doing: "\(member) of \(context.described)", on: context)
        case .managedObject(let object) where !object.isCollection && !CoreDataAPI.queueFreeObjectMembers.contains(member)
            && !CoreDataAPI.synchronousClosureMethods.contains(member):
            // `map` or `forEach` on what the linter took for one object is an optional's or
            // a collection's (`(try? context.fetch(r)) as? [T]` then `objects.map { $0… }`),
            // not a property of the object.
            // Only where no closure moved the object: object-across-queues reports those.
            guard let context = object.owner, context.queue == .private, isOutside(context, walker),
                walker.binding(named: base).map({ $0.queueDepth == walker.frame.queueDepth || ($0.queueDepth == 0 && !walker.frame.isClosure) }) ?? true,
                reportedObjects.insert(Expressions.text(base)).inserted
            else { return }
            report(walker, at: access.declName, doing: "using '\(member)' of an object of \(context.described)", on: context)
        default:
            return
        }
    }

    /// `Entity(context:)` or `insertNewObject(forEntityName:into:)`, by shape: only those
    /// are worth resolving.
    private static func mayInsert(_ call: FunctionCallExprSyntax, _ walker: SemanticWalker) -> Bool {
        guard let name = Expressions.lastName(call.calledExpression) else { return false }
        return name == "insertNewObject" || name == "insertNewObjectForEntityForName" || walker.index.isManagedObjectClass(name)
            || (name == "init" && Expressions.isSelf(call.calledExpression.as(MemberAccessExprSyntax.self)?.base))
    }

    /// What a call inserts, for messages: `Note`, or `Note (self.init(context:))` in a
    /// convenience initializer.
    static func inserted(_ call: FunctionCallExprSyntax, _ walker: SemanticWalker) -> String {
        guard let member = call.calledExpression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "init" else {
            return Expressions.text(call.calledExpression)
        }
        return "\(walker.typeName ?? "the object") (self.init(context:))"
    }

    /// Whether code here runs outside the context's queue: straight in the function or
    /// closure that made the context, or on a queue known to be another. A method using
    /// a property stays silent unless its queue is known (its caller may be inside
    /// `perform`), and so does a closure the linter cannot place.
    private func isOutside(_ context: ContextRef, _ walker: SemanticWalker) -> Bool {
        walker.isOutside(context)
    }

    /// "userInterfaceContext, an NSManagedObjectContext extension that reads userInfo (Context+UI.swift:7), on the main-queue context 'managedObjectContext',".
    static func extensionUse(_ use: ContextExtensionUse, on context: ContextRef) -> String {
        let member = use.isProperty ? use.member : "\(use.member)()"
        let verb = CoreDataAPI.contextMethods.contains(use.confined) ? "calls \(use.confined)() on" : "reads \(use.confined) of"
        return "\(member), an NSManagedObjectContext extension that \(verb) its receiver (\(use.place.described)), on \(context.described),"
    }

    private func report(_ walker: SemanticWalker, at node: some SyntaxProtocol, doing what: String, on context: ContextRef, fact: String? = nil) {
        let fix = context.origin == .backgroundTask
            ? "Do it inside the performBackgroundTask block, or hand back objectIDs (or plain values) to use on the caller's queue."
            : "\(context.wrapInPerform) (or performAndWait { } when the result is needed right away)."
        report(
            walker, at: node,
            message: "\(what) runs on \(walker.queue.described), outside \(context.performBlock)\(walker.citations(for: context, adding: fact ?? walker.neverPerformedReason(context)))",
            fix: fix)
    }
}
