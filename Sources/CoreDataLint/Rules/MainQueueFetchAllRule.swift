import SwiftSyntax

/// A fetch of every row on the main-queue context in an action handler: the chapter's blocking export.
final class MainQueueFetchAllRule: LintRule {
    static let description = RuleDescription(
        id: "main-queue-fetch-all",
        name: "MainQueueFetchAll",
        summary: "An action handler fetches every row on the main queue.",
        rationale: "An @IBAction, a SwiftUI Button action or an export method runs on the main queue. A fetch there with no limit loads every object before it returns, and the UI stops for as long as that takes: the blocking export of the SurfJournal sample. A fetchBatchSize spares the handler only when it reads a few of the results; a handler that walks every result (a for loop, map, forEach) loads every batch, on the main queue, all the same. A fetch with a predicate is of the rows it matches, which the linter cannot count, so it stays silent (Core Data by Tutorials' BowTies fetches one bow tie by its search key in an @IBAction).",
        fix: "Do the work on a background context (persistentContainer.performBackgroundTask { context in … }, handing results back as objectIDs or plain values), or fetch only what the screen shows (fetchLimit, or count(for:) for a number).",
        triggeringExamples: [
            """
            final class EntriesViewController {
                var container: NSPersistentContainer!
                @IBAction func exportTapped(_ sender: Any) {
                    let request = JournalEntry.fetchRequest()
                    let entries = try? container.viewContext.↓fetch(request)
                    print(entries?.count ?? 0)
                }
            }
            """,
            """
            final class EntriesViewController {
                var container: NSPersistentContainer!
                @IBAction func exportTapped(_ sender: Any) {
                    let request = JournalEntry.fetchRequest()
                    request.fetchBatchSize = 20
                    let entries = try! container.viewContext.↓fetch(request)
                    for entry in entries { print(entry) }
                }
            }
            """,
        ],
        nonTriggeringExamples: [
            """
            final class EntriesViewController {
                var container: NSPersistentContainer!
                @IBAction func exportTapped(_ sender: Any) {
                    let request = JournalEntry.fetchRequest()
                    request.fetchBatchSize = 50
                    let entries = try? container.viewContext.fetch(request)
                    print(entries?.count ?? 0)
                }
            }
            """,
            """
            final class BowTieViewController {
                var container: NSPersistentContainer!
                @IBAction func segmentedControl(_ sender: Any) {
                    let request: NSFetchRequest<BowTie> = BowTie.fetchRequest()
                    request.predicate = NSPredicate(format: "%K = %@", argumentArray: ["searchKey", "R"])
                    let results = try? container.viewContext.fetch(request)
                    print(results?.first as Any)
                }
            }
            """,
            """
            final class EntriesViewController {
                var container: NSPersistentContainer!
                @IBAction func exportTapped(_ sender: Any) {
                    container.performBackgroundTask { context in
                        let entries = try? context.fetch(JournalEntry.fetchRequest())
                        print(entries?.count ?? 0)
                    }
                }
            }
            """,
        ])

    /// Fetches with a batch size, waiting to learn whether the handler walks every
    /// result: by the name their result is bound to.
    private var batched: [String: (node: Syntax, message: String)] = [:]

    init() {}

    static let fix = "Run it on a background context (performBackgroundTask { context in … }, handing back objectIDs or plain values), or fetch only what the screen shows (fetchLimit, or count(for:) for a number)."

    func leaveFunction(_ walker: SemanticWalker) {
        batched.removeAll()
    }

    func call(_ call: FunctionCallExprSyntax, _ walker: SemanticWalker) {
        guard walker.frame.isActionHandler,
            let member = call.calledExpression.as(MemberAccessExprSyntax.self),
            member.declName.baseName.text == "fetch",
            let context = walker.context(member.base), context.queue == .main,
            walker.queue == .caller || walker.queue.runs(on: context) == true,
            let request = call.arguments.first?.expression,
            case .fetchRequest(let info) = walker.resolve(request), info.yieldsObjects, !info.hasLimit, !info.hasPredicate
        else { return }
        let rows = info.entity.map { "every \($0)" } ?? "every row"
        let action = "\(walker.frame.functionName) fetches \(rows) on \(context.described)"
        guard info.hasBatchSize else {
            report(
                walker, at: member.declName,
                message: "\(action) with no fetchLimit: the main queue is blocked until all of them are loaded\(walker.citations(for: context))",
                fix: Self.fix)
            return
        }
        let message = "\(action) and walks every result: its fetchBatchSize only splits the loading into batches, all of them on the main queue, which is blocked until the last one\(walker.citations(for: context))"
        switch Self.use(of: Syntax(call)) {
        case .iterated:
            report(walker, at: member.declName, message: message, fix: Self.fix)
        case .bound(let name):
            batched[name] = (Syntax(member.declName), message)
        case .other:
            return
        }
    }

    func reference(_ node: ExprSyntax, name: String, _ binding: Binding, _ walker: SemanticWalker) {
        guard let pending = batched[name], Self.isIterated(Syntax(node)) else { return }
        batched[name] = nil
        report(walker, at: pending.node, message: pending.message, fix: Self.fix)
    }

    private enum Use {
        case iterated
        case bound(String)
        case other
    }

    /// What becomes of a fetch's result: walked right away, bound to a name, or else.
    private static func use(of fetch: Syntax) -> Use {
        var node = fetch
        while let parent = node.parent {
            if isIterated(node) { return .iterated }
            if let initializer = parent.as(InitializerClauseSyntax.self),
                let name = initializer.parent?.as(PatternBindingSyntax.self)?.pattern.as(IdentifierPatternSyntax.self)
            {
                return .bound(name.identifier.text)
            }
            if let list = parent.as(ExprListSyntax.self), list.parent?.is(SequenceExprSyntax.self) == true {
                let elements = Array(list)
                if elements.count == 3, elements[1].is(AssignmentExprSyntax.self), elements[2].id == node.id,
                    let name = Expressions.lastName(elements[0])
                {
                    return .bound(name)
                }
            }
            let passesThrough = parent.is(TryExprSyntax.self) || parent.is(AwaitExprSyntax.self) || parent.is(ForceUnwrapExprSyntax.self)
                || parent.is(OptionalChainingExprSyntax.self) || parent.is(TupleExprSyntax.self) || parent.is(LabeledExprListSyntax.self)
                || (parent.is(LabeledExprSyntax.self) && parent.parent?.parent?.is(TupleExprSyntax.self) == true)
                || parent.is(ExprListSyntax.self) || parent.is(SequenceExprSyntax.self)
            guard passesThrough else { return .other }
            node = parent
        }
        return .other
    }

    /// `for x in node`, `node.map { }`, `node.forEach { }`...: every element is read.
    private static func isIterated(_ node: Syntax) -> Bool {
        if let loop = node.parent?.as(ForStmtSyntax.self), loop.sequence.id == node.id { return true }
        guard let member = node.parent?.as(MemberAccessExprSyntax.self), member.base?.id == node.id else { return false }
        return iterating.contains(member.declName.baseName.text)
    }

    private static let iterating: Set<String> = [
        "map", "compactMap", "flatMap", "forEach", "reduce", "filter", "sorted", "enumerated", "lazy", "joined", "allSatisfy",
    ]
}
