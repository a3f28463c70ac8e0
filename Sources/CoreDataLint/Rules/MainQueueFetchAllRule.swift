import SwiftSyntax

/// A fetch of every row on the main-queue context in an action handler: the chapter's blocking export.
final class MainQueueFetchAllRule: LintRule {
    static let description = RuleDescription(
        id: "main-queue-fetch-all",
        name: "MainQueueFetchAll",
        summary: "An action handler fetches every row on the main queue.",
        rationale: "An @IBAction, a SwiftUI Button action or an export method runs on the main queue. A fetch there with no limit and no batch size loads every object before it returns, and the UI stops for as long as that takes: the blocking export of the SurfJournal sample.",
        fix: "Do the work on a background context (persistentContainer.performBackgroundTask { context in … }, handing results back as objectIDs), or set fetchBatchSize (or fetchLimit) on the request.",
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

    init() {}

    func call(_ call: FunctionCallExprSyntax, _ walker: SemanticWalker) {
        guard walker.frame.isActionHandler,
            let member = call.calledExpression.as(MemberAccessExprSyntax.self),
            member.declName.baseName.text == "fetch",
            let context = walker.context(member.base), context.queue == .main,
            walker.queue == .caller || walker.queue.runs(on: context) == true,
            let request = call.arguments.first?.expression,
            case .fetchRequest(let info) = walker.resolve(request), info.yieldsObjects, !info.isBounded
        else { return }
        let rows = info.entity.map { "every \($0)" } ?? "every row"
        report(
            walker, at: member.declName,
            message: "\(walker.frame.functionName) fetches \(rows) on \(context.described) with no fetchLimit and no fetchBatchSize: the main queue is blocked until all of them are loaded",
            fix: "Run it on a background context (performBackgroundTask { context in … }, handing back objectIDs), or set fetchBatchSize on the request.")
    }
}
