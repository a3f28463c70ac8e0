import ConcurrencyDebug
import CtxdebugHelpers
import Dispatch
import Foundation
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
    /// (program, the diagnostics turned on, the kinds expected, text the report must hold)
    static let cases: [(name: String, diagnostics: String, kinds: [String], says: String)] = [
        ("unsaved-ancestor-at-exit", "default", ["unsaved-ancestor"], "the process is ending without saving them"),
        ("unsaved-ancestor-twin", "default", [], ""),
        ("unsaved-ancestor-rolled-back", "default", [], ""),
        ("unsaved-ancestor-cancelled-editors", "default", [], ""),
        ("missing-merge-read", "default,missing-merge", ["missing-merge"], "the save's stack"),
        ("missing-merge-read-twin", "default,missing-merge", [], ""),
        ("missing-merge-read-off", "default", [], ""),
        ("missing-merge-grace", "default,missing-merge", ["missing-merge"], "the save's stack"),
        ("missing-merge-batch", "default,missing-merge", ["missing-merge"], "the save's stack"),
        ("missing-merge-batch-twin", "default,missing-merge", [], ""),
    ]

    @Test(arguments: Self.cases.map(\.name))
    func diagnostic(name: String) async throws {
        let c = Self.cases.first { $0.name == name }!
        let grace = name == "missing-merge-grace" ? "250" : "0"
        let report = try await ChildReport.run(
            "diagnostic:\(name)", environment: ConcurrencyDebug.Variable.environment([.diagnostics: c.diagnostics, .missingMergeGrace: grace]),
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
        switch name {
        case "unsaved-ancestor-at-exit":
            // The report's stack is the child's save that pushed the changes, not the exit hook.
            let line = Self.line(containing: "try! child.save()  // PUSHED")
            #expect(
                violation.frames.contains { $0.file?.hasSuffix("DiagnosticsAtExitTests.swift") == true && $0.line == line },
                "the child's save at line \(line) is in the stack: \(violation.frames.prefix(8).map(\.formatted))")
            #expect(violation.message.contains("context 'child'"), "\(violation.message)")
            #expect(violation.access.contextName?.contains("root") == true)
        case "missing-merge-read", "missing-merge-grace":
            #expect(violation.access.operation == "read")
            #expect(violation.access.attribute == "name")
            #expect(report.stderr.contains("access:    read of Sample.name"), "\(report.stderr.prefix(4000))")
            let line = Self.line(containing: "_ = shown.value.name  // STALE READ")
            #expect(
                violation.frames.contains { $0.file?.hasSuffix("DiagnosticsAtExitTests.swift") == true && $0.line == line },
                "the read at line \(line) is in the stack: \(violation.frames.prefix(8).map(\.formatted))")
            #expect(violation.message.contains("saved by context 'background'"))
        case "missing-merge-batch":
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
            "diagnostic:unsaved-ancestor-at-exit",
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
        #expect(occurrences("ctxdebug: SUMMARY: 1 distinct concurrency violation", in: report.stderr) == 1, "\(report.stderr.prefix(3000))")
        #expect(occurrences("the process is ending without saving them", in: report.stderr) == 1)
        #expect(occurrences("ctxdebug: exiting with status 66", in: report.stderr) == 1)
    }

    static func line(containing marker: String) -> Int {
        let source = (try? String(contentsOfFile: #filePath, encoding: .utf8)) ?? ""
        let lines = source.components(separatedBy: "\n")
        // The marker's own line, not this call's.
        return (lines.indices.first { lines[$0].contains(marker) && !lines[$0].contains("line(containing:") } ?? -2) + 1
    }
}

/// Keeps contexts alive until the process exits, as an app's stack lives as long as the app.
nonisolated(unsafe) var keptUntilExit: [AnyObject] = []

func runExitDiagnostic(_ name: String) {
    let stack = ChildStack()
    keptUntilExit.append(stack)
    switch name {
    case "unsaved-ancestor-at-exit", "unsaved-ancestor-twin", "unsaved-ancestor-rolled-back":
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
        if name == "unsaved-ancestor-twin" { root.performAndWait { try! root.save() } }
        // Rolling back is a deliberate discard (Core Data: rollback() removes everything
        // from the undo stack, discards all insertions and deletions, restores updated objects).
        if name == "unsaved-ancestor-rolled-back" { root.performAndWait { root.rollback() } }
    case "unsaved-ancestor-cancelled-editors":
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
    case "missing-merge-read", "missing-merge-read-twin", "missing-merge-read-off", "missing-merge-grace":
        // The view context shows an object; a background context saves a newer version
        // of its row; the UI reads the attribute again with no refetch. Core Data never
        // updates a context's objects by itself: they keep their values until the
        // context merges the save (mergeChanges(fromContextDidSave:), or
        // automaticallyMergesChangesFromParent) or refreshes the object.
        // The grace period on the diagnostics' manual clock: it moves only when told.
        if name == "missing-merge-grace" { MonotonicClock.useManualClock() }
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
        if name == "missing-merge-read-twin" {
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
        if name == "missing-merge-grace" {
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
        precondition(value == (name == "missing-merge-read-twin" ? "v2" : "v1"), "read \(value ?? "nil")")
    case "missing-merge-batch", "missing-merge-batch-twin":
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
        if name == "missing-merge-batch-twin" {
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
    default:
        preconditionFailure("unknown program \(name)")
    }
}

private func occurrences(_ needle: String, in text: String) -> Int {
    text.components(separatedBy: needle).count - 1
}
