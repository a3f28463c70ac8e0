import SwiftSyntax

/// `mergeChanges(fromContextDidSave:)` in a did-save observer, off the merging context's queue.
final class MergeOffQueueRule: LintRule {
    static let description = RuleDescription(
        id: "merge-off-queue",
        name: "MergeOffQueue",
        summary: "A did-save merge runs off the merging context's queue.",
        rationale: "A did-save observer registered with queue: nil (or by selector) runs on the thread of the context that saved, usually a private queue. Merging into another context there changes that context's objects from the wrong queue, while its own queue may be reading them. An observer on a queue that is not the context's has the same problem.",
        fix: "Merge inside the context's own queue: context.perform { context.mergeChanges(fromContextDidSave: note) }, or register the observer with queue: .main for a main-queue context.",
        triggeringExamples: [
            """
            final class Sync {
                let mainContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
                func observe() {
                    NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: nil, queue: nil) { note in
                        self.mainContext.↓mergeChanges(fromContextDidSave: note)
                    }
                }
            }
            """,
        ],
        nonTriggeringExamples: [
            """
            final class Sync {
                let mainContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
                func observe() {
                    NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: nil, queue: nil) { note in
                        self.mainContext.perform { self.mainContext.mergeChanges(fromContextDidSave: note) }
                    }
                    NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: nil, queue: .main) { note in
                        self.mainContext.mergeChanges(fromContextDidSave: note)
                    }
                }
            }
            """,
        ])

    init() {}

    func call(_ call: FunctionCallExprSyntax, _ walker: SemanticWalker) {
        guard walker.frame.isDidSaveObserver,
            let member = call.calledExpression.as(MemberAccessExprSyntax.self),
            CoreDataAPI.modernName(member.declName.baseName.text) == "mergeChanges",
            let context = walker.context(member.base), context.queue != .unknown,
            walker.queue.runs(on: context) == false
        else { return }
        let fix = context.queue == .main
            ? "Wrap the merge in \(context.name).perform { }, or register the observer with queue: .main."
            : "Wrap the merge in \(context.name).perform { }."
        report(
            walker, at: member.declName,
            message: "mergeChanges(fromContextDidSave:) on \(context.described) runs on \(walker.queue.described), not on \(context.name)'s queue",
            fix: fix)
    }
}
