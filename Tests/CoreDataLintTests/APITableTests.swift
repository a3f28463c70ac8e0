import CoreDataLint
import Foundation
import Testing

/// Other people's APIs as rows (docs/lint.md, "The API table"): the built-in rows, and
/// the configuration's, which come first.
@Suite("The API table")
struct APITableTests {
    static let screen = LintSource(
        path: "FeedViewController.swift",
        text: """
            import CoreData
            import Resolver
            import UIKit

            final class FeedViewController: UIViewController {
                @Injected(\\.editingContext) var context: NSManagedObjectContext

                func refresh() {
                    FeedClient.shared.fetchItems { items in
                        try? self.context.save()
                    }
                }
            }
            """)

    static let configuration = """
        api:
          - context: '@Injected(\\.editingContext)'
            queue: main
          - callback: fetchItems
            receiver: FeedClient.shared
            queue: background
            why: FeedClient's completion queue
        """

    @Test("A row of the configuration changes a finding: a DI container's context and a library's callback queue")
    func configuredRowChangesAFinding() throws {
        #expect(Linter().lint(sources: [Self.screen]).findings.isEmpty)
        let configuration = try LintConfiguration(yaml: Self.configuration, path: ".ctxdebug-lint.yml")
        let findings = Linter(apiTable: configuration.apiTable).lint(sources: [Self.screen]).findings
        #expect(findings.map { "\($0.line) \($0.ruleID)" } == ["10 main-context-off-main-queue"], "\(findings.map(\.message))")
        let message = try #require(findings.first?.message)
        #expect(message.contains("FeedClient's completion queue"), "\(message)")
        #expect(message.contains("`@Injected(\\.editingContext)` (.ctxdebug-lint.yml) returns a main-queue context"), "the row is cited: \(message)")
    }

    @Test("Without the table, the library bugs of the fixture LibraryAPIs are not found: the rows find them")
    func rowsFindTheLibraryBugs() throws {
        let files = try SourceCollector.swiftFiles(under: [FixtureTests.fixtures.appendingPathComponent("LibraryAPIs").path])
        let marked = try files.flatMap(FixtureTests.expectedMarks)
        try #require(marked.count >= 3)
        #expect(Linter(apiTable: APITable()).lint(files: files).findings.isEmpty)
        #expect(Linter().lint(files: files).findings.count == marked.count)
        // Foundation's: `OperationQueue.main.addOperation { }` is on the main queue by a row.
        let callbacks = FixtureTests.fixtures.appendingPathComponent("Callbacks")
        let badge = ["Download.swift", "DownloadBadge.swift"].map { callbacks.appendingPathComponent($0).path }
        #expect(Linter(apiTable: APITable()).lint(files: badge).findings.filter { $0.path.hasSuffix("DownloadBadge.swift") }.isEmpty)
        #expect(Linter().lint(files: badge).findings.filter { $0.path.hasSuffix("DownloadBadge.swift") }.map(\.ruleID) == ["object-across-queues"])
    }

    @Test("A row the table cannot read is a configuration error that names the row")
    func badRows() {
        for (yaml, reason) in [
            ("api:\n  - callback: fetch\n    queue: sometimes\n", "'api' row 1: a callback's 'queue' is main, background, private-context, here or unknown"),
            ("api:\n  - context: shared\n    queue: main\n    owner: me\n", "'api' row 1: unknown key 'owner'"),
            ("api:\n  - callback: a\n    context: b\n    queue: main\n", "'api' row 1: a row names one 'callback', one 'context', one 'objects' or one 'delivery'"),
            ("api: fetch\n", "'api' must be a list of rows"),
        ] {
            #expect(throws: LintError.self) { try LintConfiguration(yaml: yaml, path: "c.yml") }
            do {
                _ = try LintConfiguration(yaml: yaml, path: "c.yml")
            } catch {
                #expect("\(error)".contains(reason), "\(error)")
            }
        }
    }
}
