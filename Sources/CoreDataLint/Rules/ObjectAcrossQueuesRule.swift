import SwiftSyntax

/// A managed object used inside a closure that runs on another queue than its context's.
final class ObjectAcrossQueuesRule: LintRule {
    static let description = RuleDescription(
        id: "object-across-queues",
        name: "ObjectAcrossQueues",
        summary: "A managed object is used on another queue than its context's.",
        rationale: "A managed object belongs to the context that fetched or inserted it, and may only be touched on that context's queue. DispatchQueue.main.async, DispatchQueue.global().async, Task.detached, a task group's child task, MainActor.run, another context's perform and performBackgroundTask's block all run elsewhere: the access races with the owner's queue, and Core Data's -com.apple.CoreData.ConcurrencyDebug 1 stops there.",
        fix: "Pass the object's objectID into the closure, and get the object there from that queue's context with object(with:) or existingObject(with:).",
        triggeringExamples: [
            """
            func show(_ context: NSManagedObjectContext, _ id: NSManagedObjectID) {
                let entry = context.object(with: id)
                DispatchQueue.global().async {
                    print(↓entry)
                }
            }
            """,
            """
            func load(container: NSPersistentContainer) throws {
                let entries = try container.viewContext.fetch(JournalEntry.fetchRequest())
                container.performBackgroundTask { context in
                    ↓entries.forEach { context.delete($0) }
                }
            }
            """,
        ],
        nonTriggeringExamples: [
            """
            func load(container: NSPersistentContainer) throws {
                let entries = try container.viewContext.fetch(JournalEntry.fetchRequest())
                let ids = entries.map(\\.objectID)
                container.performBackgroundTask { context in
                    ids.forEach { context.delete(context.object(with: $0)) }
                }
            }
            """,
            """
            func show(_ context: NSManagedObjectContext, _ id: NSManagedObjectID) {
                let entry = context.object(with: id)
                let objectID = entry.objectID
                DispatchQueue.global().async { print(objectID) }
            }
            """,
        ])

    /// Each object is reported once per closure.
    private var reported: Set<String> = []

    init() {}

    func reference(_ node: ExprSyntax, name: String, _ binding: Binding, _ walker: SemanticWalker) {
        // Only in a closure that runs apart: in a function body, context-without-perform
        // reports an object used off its context's queue.
        guard case .managedObject(let object) = binding.value, binding.queueDepth < walker.frame.queueDepth, walker.frame.isClosure else { return }
        if let member = node.parent?.as(MemberAccessExprSyntax.self), member.base?.id == node.id,
            CoreDataAPI.queueFreeObjectMembers.contains(member.declName.baseName.text)
        {
            return
        }
        let queue = walker.queue
        guard Self.isForeign(queue, to: object) else { return }
        let key = "\(name)@\(walker.frame.start)"
        guard reported.insert(key).inserted else { return }
        let owner = object.owner.map { "of \($0.described)" } ?? "(confined to its context's queue)"
        let what = object.isCollection ? "'\(name)' holds managed objects" : "'\(name)' is a managed object"
        let idExpression = object.isCollection ? "\(name).map(\\.objectID)" : "\(name).objectID"
        report(
            walker, at: node,
            message: "\(what) \(owner), but it is used on \(queue.described)\(walker.citations(for: nil))",
            fix: Self.fix(queue: queue, idExpression: idExpression, name: name))
    }

    private static func fix(queue: ExecutionQueue, idExpression: String, name: String) -> String {
        switch queue {
        case .context(let context):
            return "Pass \(idExpression) into the closure and get the object there with \(context.name).object(with:)."
        case .main:
            return "Pass \(idExpression) into the closure and get the object there with object(with:) on the main-queue context (viewContext)."
        default:
            return "Read what the closure needs from '\(name)' before it and pass plain values, or pass \(idExpression) and get the object inside a context's perform { }."
        }
    }

    /// Whether code on `queue` is certainly not on the object's context's queue.
    private static func isForeign(_ queue: ExecutionQueue, to object: ManagedObjectInfo) -> Bool {
        switch queue {
        case .background:
            return true
        case .main:
            return object.owner?.queue == .private
        case .context(let context):
            guard let owner = object.owner else { return context.origin == .backgroundTask }
            return queue.runs(on: owner) == false
        case .privateContextQueue:
            return object.owner?.queue == .main
        case .caller, .postingThread, .unknown:
            return false
        }
    }

    func leaveFunction(_ walker: SemanticWalker) {
        reported.removeAll()
    }
}
