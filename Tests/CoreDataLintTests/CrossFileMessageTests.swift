import CoreDataLint
import Foundation
import Testing

/// A finding that rests on a fact learnt in another file or function says so, with the
/// place (issue 24: "`savingContext` (CoreDataStack.swift:48) returns a private-queue
/// context; `viewDidAppear` runs on the main queue (a UIKit lifecycle method)").
@Suite("Messages cite facts from other files and functions")
struct CrossFileMessageTests {
    static func findings(in project: String) throws -> [Finding] {
        let files = try SourceCollector.swiftFiles(under: [FixtureTests.fixtures.appendingPathComponent(project).path])
        return Linter().lint(files: files).findings
    }

    static func finding(in project: String, file: String, line: Int) throws -> Finding {
        let all = try findings(in: project)
        return try #require(all.first { $0.path.hasSuffix("/" + file) && $0.line == line }, "\(all.map { "\($0.path):\($0.line)" })")
    }

    @Test("A private context handed through a property set in another file: the property, the stack's getter, the UIKit method")
    func notesApp() throws {
        let finding = try Self.finding(in: "NotesApp", file: "CreateNoteViewController.swift", line: 17)
        #expect(finding.ruleID == "context-without-perform")
        #expect(finding.message.contains("`managedObjectContext` is set to `stack.savingContext` (NotesListViewController.swift:18)"), "\(finding.message)")
        #expect(finding.message.contains("`savingContext` (CoreDataStack.swift:25) returns a private-queue context; `viewDidAppear()` runs on the main queue (a UIKit lifecycle method)"), "\(finding.message)")
        let picker = try Self.finding(in: "NotesApp", file: "CreateNoteViewController.swift", line: 24)
        #expect(picker.message.contains("`imagePickerController()` runs on the main queue (an image picker delegate method)"), "\(picker.message)")
    }

    @Test("A method reached from DispatchQueue.main.async through another: both call sites cited")
    func syncApp() throws {
        let finding = try Self.finding(in: "SyncApp", file: "ContextOwner+Tracking.swift", line: 10)
        #expect(finding.message.contains("`syncContext` is set to `container.newBackgroundContext()` (SyncCoordinator.swift:18)"), "\(finding.message)")
        #expect(finding.message.contains("when called from `applicationDidBecomeActive()` at SyncCoordinator.swift:49"), "\(finding.message)")
        #expect(finding.message.contains("SyncCoordinator.swift:33"), "\(finding.message)")
    }

    @Test("A context no name holds is named by the call that makes it, and the fix keeps it in a let first")
    func unnamedContext() {
        let source = """
            import CoreData
            final class Stack {
                let container = NSPersistentContainer(name: "Notes")
                func newTaskContext() -> NSManagedObjectContext { container.newBackgroundContext() }
            }
            final class Cleaner {
                let stack = Stack()
                func clean() throws {
                    try stack.newTaskContext().save()
                }
            }
            """
        let findings = Linter().lint(sources: [LintSource(path: "Cleaner.swift", text: source)]).findings
        #expect(findings.count == 1, "\(findings)")
        let finding = findings.first
        // Each call makes another context: `stack.newTaskContext().perform { }` would not be
        // the context the save used.
        #expect(finding?.message.contains("the private-queue context that stack.newTaskContext() makes") == true, "\(finding?.message ?? "")")
        #expect(finding?.message.contains("outside its perform { }") == true, "\(finding?.message ?? "")")
        #expect(finding?.fix.hasPrefix("Keep the context in a let (let context = stack.newTaskContext()) and wrap it in context.perform { }") == true, "\(finding?.fix ?? "")")
    }

    @Test("Queues inherited from callers, extensions and closure callees: the message names where the queue comes from")
    func inheritedQueues() throws {
        let helper = try Self.finding(in: "InheritedQueues", file: "Ledger.swift", line: 106)
        #expect(helper.message.contains("`clearShownEntries()` runs on the queue of the private-queue context 'importContext'"), "\(helper.message)")
        #expect(helper.message.contains("called only from code on the queue of the private-queue context 'importContext', as from `rebuildEntries()`"), "\(helper.message)")
        let append = try Self.finding(in: "InheritedQueues", file: "Ledger.swift", line: 57)
        #expect(append.message.contains("called only inside performBackgroundTask { }, as at Ledger.swift:"), "\(append.message)")
        let compact = try Self.finding(in: "InheritedQueues", file: "Ledger.swift", line: 34)
        #expect(compact.message.contains("`compactJournal()` runs on a background queue"), "\(compact.message)")
        let extensionUse = try Self.finding(in: "InheritedQueues", file: "Album.swift", line: 50)
        #expect(extensionUse.message.contains("editedAlbumName, an NSManagedObjectContext extension that reads userInfo of its receiver (Album.swift:30)"), "\(extensionUse.message)")
        let callback = try Self.finding(in: "InheritedQueues", file: "Album.swift", line: 95)
        #expect(callback.message.contains("`send(completion:)` runs the closure on the main queue (Album.swift:79)"), "\(callback.message)")
    }

    @Test("A stack's let property set in its initializer from a factory: the initializer's line cited")
    func stackKit() throws {
        let finding = try Self.finding(in: "StackKit", file: "CoreDataStackTests.swift", line: 22)
        #expect(finding.message.contains("`backgroundContext` is set to `CoreDataStack.makeContext(concurrencyType: .privateQueueConcurrencyType, coordinator: coordinator)` (CoreDataStack.swift:14)"), "\(finding.message)")
        #expect(finding.message.contains("an XCTest test method"), "\(finding.message)")
    }

    @Test("An export whose request sets a batch size and walks every result: the fix does not offer fetchBatchSize")
    func surfJournalStarter() throws {
        let finding = try Self.finding(in: "SurfJournalStarter", file: "JournalListViewController.swift", line: 26)
        #expect(finding.ruleID == "main-queue-fetch-all")
        #expect(finding.message.contains("walks every result"), "\(finding.message)")
        #expect(finding.message.contains("`mainContext` (CoreDataStack.swift:11) holds a main-queue context"), "\(finding.message)")
        #expect(finding.message.contains("as from `exportButtonTapped()` at JournalListViewController.swift:15"), "\(finding.message)")
        #expect(!finding.fix.contains("fetchBatchSize"), "\(finding.fix)")
        #expect(!finding.fix.contains("batch"), "\(finding.fix)")
    }

    @Test("A request with a batch size whose results are only partly read stays silent")
    func partialReadIsSilent() {
        let source = """
            import CoreData
            import UIKit
            final class ListViewController: UIViewController {
                var container: NSPersistentContainer!
                @IBAction func showFirst(_ sender: Any) {
                    let request = NSFetchRequest<NSManagedObject>(entityName: "Entry")
                    request.fetchBatchSize = 20
                    let results = try? container.viewContext.fetch(request)
                    title = results?.first?.value(forKey: "name") as? String
                }
            }
            """
        let findings = Linter().lint(sources: [LintSource(path: "List.swift", text: source)]).findings
        #expect(findings.isEmpty, "\(findings.map(\.message))")
    }
}
