import ConcurrencyDebug
import CtxdebugHelpers
import Dispatch
import Foundation
import TestSupport
import Testing
@testable import ManagedContext

/// The diagnostics whose bug shows at a plain read or at process exit, each with its
/// correct twin, in child processes that exit for real in report mode (`ChildReport`):
/// - unsaved-ancestor, reported only at exit for an ancestor still alive, with the
///   stack of the child's save that pushed the changes (issue 18, part 3);
/// - missing-merge's common form, a plain attribute read with no refetch (issue 13,
///   part 5), its grace period on an injected clock, and a refetch with
///   `fetchBatchSize` (issue 18, part 3).
@Suite struct DiagnosticsAtExitTests {
    /// A program, the diagnostics turned on, the kinds expected, and text the report must hold.
    struct Case: Sendable, CustomTestStringConvertible {
        var program: ExitDiagnostic
        var diagnostics: String
        var kinds: [String]
        var says: String
        var testDescription: String

        init(_ name: String, _ program: ExitDiagnostic, _ diagnostics: String, _ kinds: [String], _ says: String = "") {
            (self.testDescription, self.program, self.diagnostics, self.kinds, self.says) = (name, program, diagnostics, kinds, says)
        }
    }

    static let cases: [Case] = [
        Case("unsaved-ancestor-at-exit", .unsavedAncestor(.keptUnsaved), "default", ["unsaved-ancestor"], "the process is ending without saving them"),
        Case("unsaved-ancestor-twin", .unsavedAncestor(.saved), "default", []),
        Case("unsaved-ancestor-rolled-back", .unsavedAncestor(.rolledBack), "default", []),
        Case("unsaved-ancestor-cancelled-editors", .cancelledEditors, "default", []),
        Case("missing-merge-read", .missingMergeRead(.notMerged), "default,missing-merge", ["missing-merge"], "the save's stack"),
        Case("missing-merge-read-twin", .missingMergeRead(.merged), "default,missing-merge", []),
        Case("missing-merge-read-off", .missingMergeRead(.notMerged), "default", []),
        Case("missing-merge-grace", .missingMergeRead(.readInsideTheGracePeriodFirst), "default,missing-merge", ["missing-merge"], "the save's stack"),
        Case("missing-merge-batch", .missingMergeBatch(merged: false), "default,missing-merge", ["missing-merge"], "the save's stack"),
        Case("missing-merge-batch-twin", .missingMergeBatch(merged: true), "default,missing-merge", []),
    ]

    @Test(arguments: Self.cases)
    func diagnostic(c: Case) async throws {
        let grace = c.program == .missingMergeRead(.readInsideTheGracePeriodFirst) ? "250" : "0"
        let report = try await ChildReport.run(
            .exitDiagnostic(c.program), environment: ConcurrencyDebug.Variable.environment([.diagnostics: c.diagnostics, .missingMergeGrace: grace]),
            expectViolations: !c.kinds.isEmpty)
        #expect(report.kinds == c.kinds, "\(report.stderr.prefix(4000))")
        guard !c.kinds.isEmpty else {
            #expect(!report.stderr.contains("BUG DETECTED"), "\(report.stderr.prefix(4000))")
            return
        }
        #expect(report.violations.count == 1, "one distinct report: \(report.violations.map(\.message))")
        let violation = try #require(report.violations.first)
        #expect(violation.message.contains("BUG DETECTED"))
        #expect(violation.message.contains(c.says), "\(violation.message)")
        #expect(report.stderr.contains("fix:"), "a fix hint:\n\(report.stderr.prefix(4000))")
        switch c.program {
        case .unsavedAncestor(.keptUnsaved):
            // The report's stack is the child's save that pushed the changes, not the exit hook.
            let line = line(of: "try! child.save()  // PUSHED")
            #expect(
                violation.frames.contains { $0.file?.hasSuffix("DiagnosticsAtExitTests.swift") == true && $0.line == line },
                "the child's save at line \(line) is in the stack: \(violation.frames.prefix(8).map(\.formatted))")
            #expect(violation.message.contains("context 'child'"), "\(violation.message)")
            #expect(violation.access.contextName?.contains("root") == true)
        case .missingMergeRead(.notMerged), .missingMergeRead(.readInsideTheGracePeriodFirst):
            #expect(violation.access.operation == "read")
            #expect(violation.access.attribute == "name")
            #expect(report.stderr.contains("access:    read of Sample.name"), "\(report.stderr.prefix(4000))")
            let line = line(of: "_ = shown.value.name  // STALE READ")
            #expect(
                violation.frames.contains { $0.file?.hasSuffix("DiagnosticsAtExitTests.swift") == true && $0.line == line },
                "the read at line \(line) is in the stack: \(violation.frames.prefix(8).map(\.formatted))")
            #expect(violation.message.contains("saved by context 'background'"))
        case .missingMergeBatch(merged: false):
            #expect(violation.access.operation == "fetch (batch)")
            #expect(report.stderr.contains("access:    fetch (batch) of Sample"), "\(report.stderr.prefix(4000))")
        default:
            break
        }
    }

    /// One configuration (redesign item 3): a bad level and a bad diagnostics list warn
    /// once each, through the checker's one path, together with its banner; and the one
    /// exit hook runs the unsaved-ancestor report, then the checker's exit report, once.
    @Test func badValuesWarnThroughOnePathAndTheExitHookRunsOnce() async throws {
        let report = try await ChildReport.run(
            .exitDiagnostic(.unsavedAncestor(.keptUnsaved)),
            environment: ConcurrencyDebug.Variable.environment([.concurrency: "high", .diagnostics: "default,bogus", .missingMergeGrace: "0"]),
            expectViolations: true)
        let levelWarning = #"ctxdebug: warning: CTXDEBUG_CONCURRENCY="high" is not valid; accepted: 0 (off), 1 (check), 2 (also perform queues), 3 (also journal); using 1."#
        let kindsWarning = "ctxdebug: warning: CTXDEBUG_DIAGNOSTICS: unknown diagnostic 'bogus' ignored; known: "
            + Diagnostics.allKinds.map(\.rawValue).joined(separator: ", ") + ", all, default, none"
        let lines = report.stderr.components(separatedBy: "\n")
        #expect(lines.count { $0 == levelWarning } == 1, "\(report.stderr.prefix(3000))")
        #expect(lines.count { $0 == kindsWarning } == 1, "\(report.stderr.prefix(3000))")
        // One write: the checker's warning, the diagnostics' warning, then the banner.
        let first = try #require(lines.firstIndex(of: levelWarning))
        #expect(Array(lines[first...].prefix(3)) == [levelWarning, kindsWarning, "ctxdebug: concurrency checking on (level 1, on violation: report)"])

        #expect(report.kinds == ["unsaved-ancestor"] && report.violations.count == 1, "\(report.violations.map(\.message))")
        #expect(report.violations.first?.count == 1)
        #expect(occurrences(of: "ctxdebug: SUMMARY: 1 distinct concurrency violation", in: report.stderr) == 1, "\(report.stderr.prefix(3000))")
        #expect(occurrences(of: "the process is ending without saving them", in: report.stderr) == 1)
        #expect(occurrences(of: "ctxdebug: exiting with status 66", in: report.stderr) == 1)
    }
}

/// Keeps contexts alive until the process exits, as an app's stack lives as long as the app.
nonisolated(unsafe) var keptUntilExit: [AnyObject] = []

/// The programs of the diagnostics above, each run in a child process.
enum ExitDiagnostic: Codable, Sendable, Hashable {
    /// How the parent of a saved child ends.
    enum AncestorEnding: Codable, Sendable, Hashable { case keptUnsaved, saved, rolledBack }
    /// What the view context does about a background save before it reads again.
    enum MergeRead: Codable, Sendable, Hashable { case notMerged, merged, readInsideTheGracePeriodFirst }

    case unsavedAncestor(AncestorEnding)
    case cancelledEditors
    case missingMergeRead(MergeRead)
    case missingMergeBatch(merged: Bool)

    func run() {
        let stack = ChildStack()
        keptUntilExit.append(stack)
        switch self {
        case .unsavedAncestor(let ending): childSavesIntoAParent(stack, ending)
        case .cancelledEditors: editorsCancelled(stack)
        case .missingMergeRead(let merge): viewReadsAfterABackgroundSave(stack, merge)
        case .missingMergeBatch(let merged): viewRefetchesInBatches(stack, merged: merged)
        }
    }
}

private func childSavesIntoAParent(_ stack: ChildStack, _ ending: ExitDiagnostic.AncestorEnding) {
        // A child saves into its parent, which stays alive to the end and, in the bug,
        // never saves. Core Data: saving a child context pushes its changes into the
        // parent only; they reach the store when the parent (up to the root) saves.
        let root = stack.privateContext("root")
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.name = "child"
        child.parent = root
        keptUntilExit.append(root)
        child.performAndWait {
            Sample(context: child).name = "synced"
            try! child.save()  // PUSHED
        }
        if ending == .saved { root.performAndWait { try! root.save() } }
        // Rolling back is a deliberate discard (Core Data: rollback() removes everything
        // from the undo stack, discards all insertions and deletions, restores updated objects).
        if ending == .rolledBack { root.performAndWait { root.rollback() } }
}

private func editorsCancelled(_ stack: ChildStack) {
        // A nested editor saves into its parent editor, then the user cancels both and
        // the app drops them: cancelling is not saving (the chapter's own words). The
        // view context they hang from lives to the end, with nothing pushed into it.
        let view = stack.privateContext("view")
        keptUntilExit.append(view)
        do {
            let editor = ManagedObjectContext(concurrencyType: .privateQueue)
            editor.name = "editor"
            editor.parent = view
            let nested = ManagedObjectContext(concurrencyType: .privateQueue)
            nested.name = "nested editor"
            nested.parent = editor
            nested.performAndWait {
                Sample(context: nested).name = "draft"
                try! nested.save()
            }
            precondition(editor.performAndWait { editor.hasChanges })
        }
}

private func viewReadsAfterABackgroundSave(_ stack: ChildStack, _ merge: ExitDiagnostic.MergeRead) {
        // The view context shows an object; a background context saves a newer version
        // of its row; the UI reads the attribute again with no refetch. Core Data never
        // updates a context's objects by itself: they keep their values until the
        // context merges the save (mergeChanges(fromContextDidSave:), or
        // automaticallyMergesChangesFromParent) or refreshes the object.
        // The grace period on the diagnostics' manual clock: it moves only when told.
        if merge == .readInsideTheGracePeriodFirst { MonotonicClock.useManualClock() }
        let view = ManagedObjectContext(concurrencyType: .mainQueue)
        view.name = "view"
        view.persistentStoreCoordinator = stack.coordinator
        let background = stack.privateContext("background")
        let id: ManagedObjectID = background.performAndWait {
            let s = Sample(context: background)
            s.name = "v1"
            try! background.save()
            return s.objectID
        }
        let shown = onMain { Held(value: try! view.fetch(FetchRequest<Sample>()).first!) }
        onMain { precondition(shown.value.name == "v1") }
        let merged = DispatchSemaphore(value: 0)
        var observer: (any NSObjectProtocol)?
        if merge == .merged {
            // The correct twin: merge the save on the view context's queue.
            observer = NotificationCenter.default.addObserver(
                forName: ManagedObjectContext.didSaveObjectsNotification, object: background, queue: nil
            ) { note in
                let changes = SaveChanges(note)
                view.perform {
                    view.mergeChanges(changes)
                    merged.signal()
                }
            }
        }
        background.performAndWait {
            (background.object(with: id) as! Sample).name = "v2"
            try! background.save()
        }
        if observer != nil {
            precondition(merged.wait(timeout: .now() + 30) == .success, "the merge never ran")
            NotificationCenter.default.removeObserver(observer!)
        }
        if merge == .readInsideTheGracePeriodFirst {
            // Inside the grace period a merge may be on its way: nothing yet.
            MonotonicClock.advance(by: 100_000_000)
            onMain { _ = shown.value.name }
            precondition(ConcurrencyDebug.recordedViolations.isEmpty, "reported inside the grace period: \(ConcurrencyDebug.recordedViolations.map(\.message))")
            MonotonicClock.advance(by: 200_000_000)
        }
        let value = onMain {
            _ = shown.value.name  // STALE READ
            return shown.value.name
        }
        precondition(value == (merge == .merged ? "v2" : "v1"), "read \(value ?? "nil")")
}

private func viewRefetchesInBatches(_ stack: ChildStack, merged: Bool) {
        // A table view's refetch: fetchBatchSize loads rows batch by batch, and the
        // objects the context already holds keep their values (Core Data: a fetch
        // does not refresh registered objects unless shouldRefreshRefetchedObjects).
        let view = ManagedObjectContext(concurrencyType: .mainQueue)
        view.name = "view"
        view.persistentStoreCoordinator = stack.coordinator
        let background = stack.privateContext("background")
        let id: ManagedObjectID = background.performAndWait {
            for i in 0..<30 { Sample(context: background).large = Int64(i) }
            let s = Sample(context: background)
            s.name = "v1"
            try! background.save()
            return s.objectID
        }
        let shown = onMain { Held(value: view.object(with: id) as! Sample) }
        onMain { precondition(shown.value.name == "v1") }
        background.performAndWait {
            (background.object(with: id) as! Sample).name = "v2"
            try! background.save()
        }
        if merged {
            let changes = SaveChanges(updated: [id])
            onMain { view.mergeChanges(changes) }
        }
        onMain {
            var request = FetchRequest<Sample>()
            request.fetchBatchSize = 10
            let results = try! view.fetch(request)
            // The list lays out its rows: objectIDs only, no attribute read.
            let ids = results.map(\.objectID)
            precondition(ids.count == 31 && ids.contains(id))
        }
}
