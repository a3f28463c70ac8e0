@testable import CoreDataLint
import Testing

/// `self` in a managed object class's methods is a managed object: confined to its
/// context's queue ("Core Data Programming Guide: Concurrency": managed objects are
/// not thread safe and are used only on the queue of the context they belong to), and
/// a bare name of one of its properties (`qualifiedID`) reads `self` (Swift reads it as
/// `self.qualifiedID`; `Task { }`'s closure captures `self` implicitly, SE-0304).
@Suite("self of a managed object class, in closures that run apart")
struct ManagedSelfTests {
    private static let model = LintSource(path: "Conversation.swift", text: """
        import CoreData
        final class Conversation: NSManagedObject {
            @NSManaged var remoteIdentifier: UUID?
        }
        """)

    private static func findings(_ text: String) -> [String] {
        let sources = [
            model,
            LintSource(path: "Conversation+ID.swift", text: """
                import CoreData
                extension Conversation {
                    var qualifiedID: String? { remoteIdentifier?.uuidString }
                }
                """),
            LintSource(path: "Conversation+Participants.swift", text: text),
        ]
        return Linter(rules: ["object-across-queues"]).lint(sources: sources).findings
            .filter { $0.path == "Conversation+Participants.swift" }.map { "\($0.line) \($0.ruleID)" }
    }

    @Test("A property of self read by its bare name in a Task, and self on a global queue, are reported")
    func reported() {
        let found = Self.findings("""
            import CoreData
            extension Conversation {
                func addParticipants(completion: @escaping (String?) -> Void) {
                    let id = qualifiedID
                    Task {
                        completion(qualifiedID)
                        print(id ?? "")
                    }
                    DispatchQueue.global().async {
                        print(self.remoteIdentifier as Any)
                    }
                }
            }
            """)
        #expect(found == ["6 object-across-queues", "10 object-across-queues"])
    }

    @Test("Silent: the method's own body, objectID, a local of the same name, a closure on an unknown queue, a static method's type")
    func silent() {
        let found = Self.findings("""
            import CoreData
            extension Conversation {
                func refresh(on session: Session) {
                    print(qualifiedID ?? "")
                    DispatchQueue.global().async { print(self.objectID) }
                    Task {
                        let qualifiedID = "local"
                        print(qualifiedID)
                    }
                    session.load { print(self.remoteIdentifier as Any) }
                }
                static func describe() {
                    DispatchQueue.global().async { print(self) }
                }
            }
            """)
        #expect(found == [])
    }
}
