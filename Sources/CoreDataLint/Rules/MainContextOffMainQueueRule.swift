import SwiftSyntax

/// A main-queue context (`viewContext`, or a property known to hold one) used from code
/// that certainly runs off the main queue.
final class MainContextOffMainQueueRule: LintRule {
    static let description = RuleDescription(
        id: "main-context-off-main-queue",
        name: "MainContextOffMainQueue",
        summary: "A main-queue context is used off the main queue.",
        rationale: "A main-queue context (viewContext, or one made with .mainQueueConcurrencyType) belongs to the main queue: its fetches, saves, inserts, deletes, object(with:) and state getters must run there. DispatchQueue.global(), Task.detached, a task group's child task, a nonisolated async function, an actor's method, a private context's perform, performBackgroundTask's block, a URLSession's completion handlers and a WCSessionDelegate's methods all run elsewhere: the access races with the UI's own use of the context, and Core Data's -com.apple.CoreData.ConcurrencyDebug 1 stops there.",
        fix: "Wrap the access in viewContext.perform { } (it runs on the main queue), or do the work on a private context of its own and merge or save into the main context from its queue.",
        triggeringExamples: [
            """
            func refresh(container: NSPersistentContainer) {
                DispatchQueue.global().async {
                    let count = try? container.viewContext.↓count(for: JournalEntry.fetchRequest())
                    print(count ?? 0)
                }
            }
            """,
            """
            func importFeed(container: NSPersistentContainer, url: URL) {
                URLSession.shared.dataTask(with: url) { data, _, _ in
                    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
                    context.parent = container.viewContext
                    context.performAndWait { try? context.save() }
                    try? context.parent?.↓save()
                }.resume()
            }
            """,
            """
            actor Counter {
                let container: NSPersistentContainer
                init(container: NSPersistentContainer) { self.container = container }
                func count() throws -> Int {
                    try container.viewContext.↓count(for: JournalEntry.fetchRequest())
                }
            }
            """,
        ],
        nonTriggeringExamples: [
            """
            func refresh(container: NSPersistentContainer) {
                DispatchQueue.global().async {
                    container.viewContext.perform {
                        let count = try? container.viewContext.count(for: JournalEntry.fetchRequest())
                        print(count ?? 0)
                    }
                }
            }
            """,
            """
            func importFeed(container: NSPersistentContainer, url: URL) {
                URLSession.shared.dataTask(with: url) { data, _, _ in
                    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
                    context.parent = container.viewContext
                    context.performAndWait { try? context.save() }
                    context.parent?.perform { try? context.parent?.save() }
                }.resume()
            }
            """,
            """
            func refresh(container: NSPersistentContainer) async {
                await MainActor.run {
                    _ = try? container.viewContext.count(for: JournalEntry.fetchRequest())
                }
            }
            """,
        ])

    /// Contexts already reported in a function or closure ("key@frame"), and objects
    /// whose properties were: one finding leads to the bug.
    private var reported: Set<String> = []

    init() {}

    func leaveFunction(_ walker: SemanticWalker) {
        reported.removeAll()
    }

    func call(_ call: FunctionCallExprSyntax, _ walker: SemanticWalker) {
        guard mayRunOffMain(walker) else { return }
        if let member = call.calledExpression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "performFetch",
            let base = member.base, case .fetchedResultsController(let context) = walker.resolve(base), isOffMain(context, walker)
        {
            report(walker, at: member.declName, doing: "performFetch() of \(Expressions.text(base)), a fetched results controller over \(context.described),", on: context)
            return
        }
        if let member = call.calledExpression.as(MemberAccessExprSyntax.self),
            CoreDataAPI.contextMethods.contains(member.declName.baseName.text),
            let context = walker.context(member.base), isOffMain(context, walker)
        {
            report(walker, at: member.declName, doing: "\(member.declName.baseName.text)() on \(context.described)", on: context)
            return
        }
        if let (use, argument) = walker.index.contextParameterUse(of: call), let context = walker.context(argument), isOffMain(context, walker) {
            let callee = "\(Expressions.text(call.calledExpression))(\(use.label == "_" ? "_" : use.label):)"
            let what = "\(callee), which \(use.described) the context it is handed (\(use.place.described)), called with \(context.described),"
            report(walker, at: call, doing: what, on: context)
            return
        }
        guard let name = Expressions.lastName(call.calledExpression),
            name == "insertNewObject" || walker.index.isManagedObjectClass(name)
                || (name == "init" && Expressions.isSelf(call.calledExpression.as(MemberAccessExprSyntax.self)?.base)),
            case .managedObject(let object) = walker.resolve(ExprSyntax(call)), object.isInsertedHere,
            let context = object.owner, isOffMain(context, walker)
        else { return }
        report(walker, at: call, doing: "inserting \(ContextWithoutPerformRule.inserted(call, walker)) into \(context.described)", on: context)
    }

    func memberAccess(_ access: MemberAccessExprSyntax, _ walker: SemanticWalker) {
        guard mayRunOffMain(walker) else { return }
        if let use = walker.index.contextExtensionUse(access), let context = walker.context(access.base), !Expressions.isAssignmentTarget(access), isOffMain(context, walker) {
            report(walker, at: access.declName, doing: Self.extensionUse(use, on: context), on: context)
            return
        }
        // The receiver resolved once, for both questions.
        guard let base = access.base else { return }
        let value = walker.resolve(base)
        if case .managedObject(let object) = value {
            objectUse(access, base, object, walker)
            return
        }
        guard CoreDataAPI.contextStateProperties.contains(access.declName.baseName.text),
            !Expressions.isAssignmentTarget(access), case .context(let context) = value, isOffMain(context, walker)
        else { return }
        report(walker, at: access.declName, doing: "\(access.declName.baseName.text) of \(context.described)", on: context)
    }

    /// A property of an object of a main-queue context, used straight in code that runs
    /// off the main queue (an object a project function returned, read in a nonisolated
    /// async function). In a closure that moved it there, object-across-queues reports it;
    /// where the context itself is reported in the same code, that finding leads there.
    private func objectUse(_ access: MemberAccessExprSyntax, _ base: ExprSyntax, _ object: ManagedObjectInfo, _ walker: SemanticWalker) {
        let member = access.declName.baseName.text
        guard !object.isCollection, !CoreDataAPI.queueFreeObjectMembers.contains(member), !CoreDataAPI.synchronousClosureMethods.contains(member),
            let context = object.owner, isOffMain(context, walker),
            walker.binding(named: base).map({ $0.queueDepth == walker.frame.queueDepth || ($0.queueDepth == 0 && !walker.frame.isClosure) }) ?? true,
            !reported.contains("\(context.key)@\(walker.frame.start)"), reported.insert("object:\(Expressions.text(base))@\(walker.frame.start)").inserted
        else { return }
        report(walker, at: access.declName, doing: "using '\(member)' of an object of \(context.described)", on: context)
    }

    /// Only where the queue is certainly another: a background queue, or another
    /// context's `perform`. A did-save observer's posting thread may be the main one,
    /// and a `performAndWait` block runs on its caller's thread, which may be the main
    /// thread with the main queue still held.
    /// Whether the code being walked may be off the main queue at all: where it is not,
    /// nothing below can report, so the receivers are not resolved (most code is there).
    private func mayRunOffMain(_ walker: SemanticWalker) -> Bool {
        switch walker.queue {
        case .background, .privateContextQueue, .context: return true
        case .main, .caller, .postingThread, .unknown: return false
        }
    }

    private func isOffMain(_ context: ContextRef, _ walker: SemanticWalker) -> Bool {
        guard context.queue == .main else { return false }
        switch walker.queue {
        case .background, .privateContextQueue: return true
        case .context: return !walker.frame.isPerformAndWait && walker.queue.runs(on: context) == false
        case .main, .caller, .postingThread, .unknown: return false
        }
    }

    /// "userInterfaceContext, an NSManagedObjectContext extension that reads userInfo (Context+UI.swift:7), on the main-queue context 'managedObjectContext',".
    static func extensionUse(_ use: ContextExtensionUse, on context: ContextRef) -> String {
        let member = use.isProperty ? use.member : "\(use.member)()"
        let verb = CoreDataAPI.contextMethods.contains(use.confined) ? "calls \(use.confined)() on" : "reads \(use.confined) of"
        return "\(member), an NSManagedObjectContext extension that \(verb) its receiver (\(use.place.described)), on \(context.described),"
    }

    private func report(_ walker: SemanticWalker, at node: some SyntaxProtocol, doing what: String, on context: ContextRef, fact: String? = nil) {
        reported.insert("\(context.key)@\(walker.frame.start)")
        report(
            walker, at: node,
            message: "\(what) runs on \(walker.queue.described), off the main queue the context belongs to\(walker.citations(for: context, adding: fact))",
            fix: "\(context.wrapInPerform) (which runs it on the main queue), or do the work on a private context and save or merge into \(context.isUnnamed ? "the main-queue context" : context.name) from its own queue.")
    }
}
