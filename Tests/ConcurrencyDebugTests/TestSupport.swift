@_spi(Runtime) import ConcurrencyDebug
import Foundation
import Synchronization

/// A stand-in for a managed object: confined to a queue, described like one.
final class FakeItem: AccessDescribing, @unchecked Sendable {
    // @unchecked Sendable: tests send it across queues on purpose, to make
    // violations; `title` is only touched through the checked accessor.
    let owner: QueueIdentity
    let contextName: String
    private var storage = "untitled"

    init(owner: QueueIdentity, contextName: String = "viewContext") {
        self.owner = owner
        self.contextName = contextName
    }

    var title: String {
        get {
            ConcurrencyDebug.check(
                self, owner: owner,
                AccessEvent(operation: .get, owner: owner, context: 3, subject: 1, member: 0, instance: 7))
            return storage
        }
        set {
            ConcurrencyDebug.check(
                self, owner: owner,
                AccessEvent(operation: .set, owner: owner, context: 3, subject: 1, member: 0, instance: 7))
            storage = newValue
        }
    }

    func describe(_ event: AccessEvent) -> AccessDescription {
        AccessDescription(
            operation: event.operation.description, entity: "Item", attribute: "title",
            objectID: "x-coredata://TEST/Item/p7", contextName: contextName, ownerQueueLabel: owner.label,
            fixHint: "wrap the access in `context.perform { }`, or pass the objectID and use `object(with:)` in the other context")
    }
}

func utf8(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

/// A handler that keeps what it is given.
final class CollectingHandler: ViolationHandler {
    let seen = Mutex<[Violation]>([])
    /// Which violations to keep: a suite that turns checking on for the whole process
    /// keeps its own, not those of the suites running beside it.
    let keeps: @Sendable (Violation) -> Bool
    init(keeping keeps: @escaping @Sendable (Violation) -> Bool = { _ in true }) { self.keeps = keeps }
    func handle(_ violation: Violation) {
        guard keeps(violation) else { return }
        seen.withLock { $0.append(violation) }
    }
    var violations: [Violation] { seen.withLock { $0 } }
}

/// Runs `body` as a perform block of `owner` runs it: through the runtime's one door
/// into a queue, so the thread's current owner is `owner` and its chain holds it.
func runAs<T, E: Error>(_ owner: QueueIdentity, _ body: () throws(E) -> T) throws(E) -> T {
    try ConcurrencyDebug.entering(owner, dispatched: false, describedBy: {
        AccessDescription(operation: "perform", ownerQueueLabel: owner.label, fixHint: "")
    }, body)
}
