@testable import CoreDataLint
import Foundation
import Testing

/// The first pass runs the rules over each file against an index of that file alone,
/// and keeps every question they ask it; the second keeps those findings only when the
/// project's index answers each question the same way, and parses the file again
/// otherwise. The findings must be the same as a second pass over every file.
@Suite("Findings kept from the first pass")
struct FirstPassReuseTests {
    @Test("Every fixture project: the same findings as linting every file again against the project's index", arguments: FixtureTests.projects)
    func sameFindings(project: String) throws {
        let files = try SourceCollector.swiftFiles(under: [FixtureTests.fixtures.appendingPathComponent(project).path])
        var again = Linter()
        again.reusesFirstPass = false
        let everyFile = again.lint(files: files)
        let kept = Linter().lint(files: files)
        #expect(everyFile.reparsedFileCount == files.count)
        #expect(kept.findings == everyFile.findings)
        #expect(kept.findings.map(\.message) == everyFile.findings.map(\.message))
    }

    static let stack = LintSource(
        path: "Stack.swift",
        text: """
            import CoreData

            final class Stack {
                let container = NSPersistentContainer(name: "Model")
                lazy var mainContext: NSManagedObjectContext = container.viewContext
            }

            """)

    static let badge = LintSource(
        path: "BadgeUpdater.swift",
        text: """
            import CoreData

            final class BadgeUpdater {
                let stack = Stack()

                func refresh() {
                    DispatchQueue.global().async {
                        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                        _ = try? self.stack.mainContext.count(for: request)
                    }
                }
            }

            """)

    @Test("A file whose questions the project answers alike is not parsed again; one whose finding rests on another file is, and the finding is there")
    func reparsesOnlyWhatDiffers() {
        let result = Linter().lint(sources: [Self.stack, Self.badge])
        #expect(result.reparsedFileCount == 1)
        #expect(result.findings.map(\.path) == ["BadgeUpdater.swift"])
        #expect(result.findings.map(\.ruleID) == ["main-context-off-main-queue"])
        #expect(result.findings.first?.message.contains("`mainContext` (Stack.swift:5) holds a main-queue context") == true, "\(result.findings)")
    }

    @Test("Alone, the same file has nothing to report: the finding came from the project's index")
    func aloneIsSilent() {
        let result = Linter().lint(sources: [Self.badge])
        #expect(result.findings.isEmpty)
        #expect(result.reparsedFileCount == 0)
    }
}
