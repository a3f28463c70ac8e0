import ConcurrencyDebug
import Dispatch
import Foundation
import Testing
import ManagedContext

/// Checking you can leave on (issue 17): small programs written the way Core Data apps
/// are, each correct. At level 1 with the default diagnostics each must record
/// nothing, at run time or at exit. With `CTXDEBUG_DIAGNOSTICS=all` the test lists
/// what the opt-in kinds say about each: deliberate choices (a trump policy, objects
/// with default values only, a big fetch on the main queue), not bugs.
///
/// The time thresholds are set out of reach in the `all` run (main-queue-io's time,
/// main-queue-wait), and missing-merge's grace period to 0, so what is listed never
/// depends on the machine's speed: any stale read at all would be listed.
@Suite struct CleanAppsTests {
    /// Each app, and the opt-in kinds that speak about it with `all`, with a phrase of
    /// their report.
    static let optIn: [CleanApp: [String: String]] = [
        // The list's fetch of 1,200 rows on the main queue is over main-queue-io's row threshold.
        .listImport: ["main-queue-io": "touched 1200 rows"],
        // The view's save under mergeByPropertyObjectTrump overwrites the sync's name on purpose.
        .objectTrump: ["lost-update": "mergeByPropertyObjectTrump"],
        // Visits saved with the model's defaults only.
        .defaultsOnly: ["abandoned-insert": "without any property set"],
        // The export reads the snapshot it loaded, on purpose, after the view context saved an edit.
        .snapshotExport: ["missing-merge": "no merge of that save was applied"],
    ]

    @Test(arguments: CleanApp.allCases)
    func defaultDiagnosticsRecordNothing(app: CleanApp) async throws {
        let report = try await ChildReport.run(.cleanApp(app), environment: [:], expectViolations: false)
        #expect(report.violations.isEmpty, "\(report.stderr.prefix(4000))")
        #expect(!report.stderr.contains("BUG DETECTED"), "\(report.stderr.prefix(4000))")
        #expect(report.stderr.contains("concurrency checking on (level 1"), "checking was on:\n\(report.stderr.prefix(2000))")
    }

    @Test(arguments: CleanApp.allCases)
    func optInDiagnosticsSay(app: CleanApp) async throws {
        let expected = Self.optIn[app] ?? [:]
        let report = try await ChildReport.run(
            .cleanApp(app),
            environment: ConcurrencyDebug.Variable.environment([
                .diagnostics: "all",
                .mainQueueIOTime: "1000000000",
                .mainQueueWait: "1000000000",
                .missingMergeGrace: "0",
            ]),
            expectViolations: !expected.isEmpty)
        #expect(report.kinds == expected.keys.sorted(), "\(report.stderr.prefix(4000))")
        #expect(report.kinds.allSatisfy { Diagnostics.optInKinds.contains(ViolationKind($0)) }, "only opt-in kinds speak about a clean app")
        for (kind, phrase) in expected {
            #expect(
                report.violations.contains { $0.kind.rawValue == kind && $0.message.contains(phrase) },
                "\(kind) says \"\(phrase)\": \(report.violations.map(\.message))")
        }
    }
}

/// The clean apps, each a function below.
enum CleanApp: String, Codable, Sendable, CaseIterable, CustomTestStringConvertible {
    case listImport = "list-import", objectTrump = "object-trump", childEditor = "child-editor"
    case defaultsOnly = "defaults-only", autoMerge = "auto-merge", threeLevel = "three-level"
    case snapshotExport = "snapshot-export", swipeToDelete = "swipe-to-delete"

    var testDescription: String { rawValue }

    func run() {
        let program: () -> Void = switch self {
        case .listImport: listWithBackgroundImport
        case .objectTrump: viewContextWithObjectTrump
        case .childEditor: editorInChildScratchpad
        case .defaultsOnly: objectsWithDefaultsOnly
        case .autoMerge: automaticallyMergingViewContext
        case .threeLevel: threeLevelStackSavingToTheRoot
        case .snapshotExport: exportFromASnapshot
        case .swipeToDelete: swipeToDeleteWithAStaleRow
        }
        program()
    }
}

private let byLarge = [FetchSortDescriptor<Sample>(\.large)]

/// A list on the view context; a background import saves, and the view context merges
/// each did-save notification on its own queue (the chapter's fix for stale lists).
private func listWithBackgroundImport() {
    let container = ChildStack.container("ListImport")
    let view = container.viewContext
    let importer = container.newBackgroundContext()
    importer.name = "import"
    keptUntilExit.append(container)
    importer.performAndWait {
        for i in 0..<1200 {
            let s = Sample(context: importer)
            s.name = "entry \(i)"
            s.large = Int64(i)
        }
        try! importer.save()
    }
    let list = onMain { Held(value: Array(try! view.fetch(FetchRequest<Sample>(sortDescriptors: byLarge)))) }
    onMain { precondition(list.value.count == 1200 && list.value[0].name == "entry 0") }

    let merged = DispatchSemaphore(value: 0)
    let observer = NotificationCenter.default.addObserver(
        forName: ManagedObjectContext.didSaveObjectsNotification, object: importer, queue: nil
    ) { note in
        let changes = SaveChanges(note)
        view.perform {
            view.mergeChanges(changes)
            merged.signal()
        }
    }
    importer.performAndWait {
        for i in 1200..<1205 {
            let s = Sample(context: importer)
            s.name = "entry \(i)"
            s.large = Int64(i)
        }
        var request = FetchRequest<Sample>(predicate: \Sample.large < 3, sortDescriptors: byLarge)
        request.fetchLimit = 3
        for s in try! importer.fetch(request) { s.name = "\(s.name!) (updated)" }
        try! importer.save()
    }
    precondition(merged.wait(timeout: .now() + 30) == .success, "the merge never ran")
    NotificationCenter.default.removeObserver(observer)
    onMain {
        // The rows the list holds show the import's values, and a refetch its new rows.
        precondition(list.value[0].name == "entry 0 (updated)" && list.value[3].name == "entry 3")
        precondition(try! view.fetch(FetchRequest<Sample>(sortDescriptors: byLarge)).count == 1205)
    }
}

/// The view context merges automatically with `mergeByPropertyObjectTrump`, the
/// setup Apple's templates suggest. The user edits a note while a sync saves the
/// same note; the view's save then keeps the user's change to the property both
/// changed and the sync's change to the other. Core Data: the policy "merges
/// conflicts between the persistent store's version of the object and the current
/// in-memory version by individual property, with in-memory changes trumping
/// external changes" (NSMergeByPropertyObjectTrumpMergePolicy).
private func viewContextWithObjectTrump() {
    let container = ChildStack.container("Notes")
    let view = container.viewContext
    view.mergePolicy = .mergeByPropertyObjectTrump
    view.automaticallyMergesChangesFromParent = true
    let sync = container.newBackgroundContext()
    sync.name = "sync"
    keptUntilExit.append(container)
    let id: ManagedObjectID = sync.performAndWait {
        let s = Sample(context: sync)
        s.name = "groceries"
        s.small = 1
        try! sync.save()
        return s.objectID
    }
    let note = onMain { Held(value: view.object(with: id) as! Sample) }
    onMain {
        precondition(note.value.name == "groceries")
        note.value.name = "groceries: milk"  // the user types
        // A sync from the server changes the same note before the view has merged it.
        sync.performAndWait {
            let s = sync.object(with: id) as! Sample
            s.name = "groceries (server)"
            s.small = 2
            try! sync.save()
        }
        try! view.save()
    }
    let check = container.newBackgroundContext()
    check.performAndWait {
        let s = check.object(with: id) as! Sample
        precondition(s.name == "groceries: milk" && s.small == 2, "stored \(s.name ?? "nil") \(s.small ?? -1)")
    }
}

/// Editing in a child scratchpad of the view context (the chapter's
/// JournalEntryViewController): save the child, then the view context; "add" then
/// "cancel" drops the child; a nested editor saves into its parent editor and the
/// user cancels both. Core Data: a child's save pushes into its parent only, and
/// dropping a context with changes discards them.
private func editorInChildScratchpad() {
    let container = ChildStack.container("Editor")
    let view = container.viewContext
    let importer = container.newBackgroundContext()
    keptUntilExit.append(container)
    importer.performAndWait {
        for i in 0..<3 {
            let s = Sample(context: importer)
            s.name = "entry \(i)"
            s.large = Int64(i)
        }
        try! importer.save()
    }
    let list = onMain { Held(value: Array(try! view.fetch(FetchRequest<Sample>(sortDescriptors: byLarge)))) }
    onMain {
        let editor = ManagedObjectContext(concurrencyType: .mainQueue)
        editor.name = "editor"
        editor.parent = view
        let entry = editor.object(with: list.value[0].objectID) as! Sample
        entry.name = "edited"
        try! editor.save()
        try! view.save()
    }
    onMain {
        let adding = ManagedObjectContext(concurrencyType: .mainQueue)
        adding.parent = view
        let entry = Sample(context: adding)
        entry.name = "never saved"
    }
    onMain {
        let outer = ManagedObjectContext(concurrencyType: .mainQueue)
        outer.name = "outer editor"
        outer.parent = view
        let inner = ManagedObjectContext(concurrencyType: .mainQueue)
        inner.name = "inner editor"
        inner.parent = outer
        (inner.object(with: list.value[1].objectID) as! Sample).name = "draft"
        try! inner.save()
        precondition(outer.hasChanges)
    }
    onMain {
        precondition(!view.hasChanges)
        precondition(list.value[0].name == "edited" && list.value[1].name == "entry 1")
        precondition(try! view.count(for: FetchRequest<Sample>()) == 3)
    }
}

/// A check-in button: each tap records a Visit with the model's defaults (rating 0,
/// no note). Core Data gives a new object its attributes' default values from the
/// model; an object saved with only those is a valid object.
private func objectsWithDefaultsOnly() {
    let container = ChildStack.container("CheckIns")
    keptUntilExit.append(container)
    let background = container.newBackgroundContext()
    background.performAndWait {
        for _ in 0..<3 { _ = Visit(context: background) }
        try! background.save()
    }
    let view = container.viewContext
    onMain {
        let visits = try! view.fetch(FetchRequest<Visit>())
        precondition(visits.count == 3 && visits.allSatisfy { $0.rating == 0 && $0.note == nil })
    }
}

/// `automaticallyMergesChangesFromParent` on the view context: the list's objects
/// show a background save's values without any code to merge.
private func automaticallyMergingViewContext() {
    let container = ChildStack.container("AutoMerge")
    let view = container.viewContext
    view.automaticallyMergesChangesFromParent = true
    keptUntilExit.append(container)
    let background = container.newBackgroundContext()
    background.name = "background"
    background.performAndWait {
        for i in 0..<10 {
            let s = Sample(context: background)
            s.name = "entry \(i)"
            s.large = Int64(i)
        }
        try! background.save()
    }
    let list = onMain { Held(value: Array(try! view.fetch(FetchRequest<Sample>(sortDescriptors: byLarge)))) }
    onMain { precondition(list.value.map(\.name) == (0..<10).map { "entry \($0)" }) }
    background.performAndWait {
        var request = FetchRequest<Sample>(sortDescriptors: byLarge)
        request.fetchLimit = 3
        for s in try! background.fetch(request) { s.name = "\(s.name!) (synced)" }
        Sample(context: background).name = "new"
        try! background.save()
    }
    // The save enqueued the view's merge on the main queue before returning; this
    // block runs after it.
    onMain {
        precondition(list.value[0].name == "entry 0 (synced)" && list.value[3].name == "entry 3")
        precondition(try! view.count(for: FetchRequest<Sample>()) == 11)
    }
}

/// Root (private, on the coordinator) ← main (the UI) ← background: each save goes
/// up one level, and the app saves every level to the root and the store (the
/// three-context stack, done right).
private func threeLevelStackSavingToTheRoot() {
    let stack = ChildStack("Nested")
    let root = stack.privateContext("root")
    let main = ManagedObjectContext(concurrencyType: .mainQueue)
    main.name = "main"
    main.parent = root
    let background = ManagedObjectContext(concurrencyType: .privateQueue)
    background.name = "background"
    background.parent = main
    keptUntilExit.append(contentsOf: [stack, root, main, background] as [AnyObject])
    background.performAndWait {
        for i in 0..<5 {
            let s = Sample(context: background)
            s.name = "entry \(i)"
            s.large = Int64(i)
        }
        try! background.save()
    }
    onMain {
        precondition(try! main.count(for: FetchRequest<Sample>()) == 5)
        try! main.save()
    }
    root.performAndWait { try! root.save() }
    let check = stack.privateContext("check")
    check.performAndWait { precondition(try! check.count(for: FetchRequest<Sample>()) == 5) }
}

/// A long export on a background context of its own: it loads the entries once, and
/// while it formats them the user edits one in the view context and saves. The export
/// keeps to what it loaded, on purpose: one consistent snapshot, the isolation Core
/// Data gives every context that does not merge (query generations make the same
/// choice explicit: "whenever you read from a context, you see the same generation,
/// or snapshot, of data until you choose to advance it").
private func exportFromASnapshot() {
    let container = ChildStack.container("Export")
    let view = container.viewContext
    keptUntilExit.append(container)
    let seeder = container.newBackgroundContext()
    seeder.performAndWait {
        for i in 0..<5 {
            let s = Sample(context: seeder)
            s.name = "entry \(i)"
            s.large = Int64(i)
        }
        try! seeder.save()
    }
    let export = container.newBackgroundContext()
    export.name = "export"
    let loaded = export.performAndWait { Held(value: Array(try! export.fetch(FetchRequest<Sample>(sortDescriptors: byLarge)))) }
    onMain {
        let first = try! view.fetch(FetchRequest<Sample>(sortDescriptors: byLarge)).first!
        first.name = "entry 0 (edited)"
        try! view.save()
    }
    let csv = export.performAndWait { loaded.value.map { $0.name ?? "" }.joined(separator: "\n") }
    precondition(csv.hasPrefix("entry 0\nentry 1"), "the export shows its snapshot: \(csv)")
}

/// Swipe to delete in a list on the view context, as SwiftUI's `onDelete` does: the
/// row's object is deleted and the context saved, and the row, drawn once more before
/// the list refetches, still reads its object. Core Data: after the save the object's
/// `managedObjectContext` is nil ("may be nil if the receiver has been deleted from
/// its context"), its attributes read as nil, and apps test
/// `isDeleted || managedObjectContext == nil` to skip such rows. An object inserted and
/// deleted again before a save keeps its context until the save.
private func swipeToDeleteWithAStaleRow() {
    let container = ChildStack.container("SwipeToDelete")
    keptUntilExit.append(container)
    let view = container.viewContext
    let rows = onMain { () -> Held<[Sample]> in
        for i in 0..<3 {
            let s = Sample(context: view)
            s.name = "row \(i)"
            s.large = Int64(i)
        }
        try! view.save()
        return Held(value: Array(try! view.fetch(FetchRequest<Sample>(sortDescriptors: byLarge))))
    }
    onMain {
        let deleted = rows.value[1]
        view.delete(deleted)
        precondition(deleted.isDeleted && deleted.managedObjectContext === view)
        let draft = Sample(context: view)
        view.delete(draft)
        precondition(draft.managedObjectContext === view, "an inserted-then-deleted object keeps its context until the save")
        try! view.save()
        precondition(deleted.managedObjectContext == nil && !deleted.isDeleted, "deleted and saved: no context")
        precondition(draft.managedObjectContext == nil, "the save ends the draft's membership")
        // The stale row draws once more.
        let isZombie = deleted.isDeleted || deleted.managedObjectContext == nil
        precondition(isZombie && (deleted.name ?? "(deleted)") == "(deleted)" && deleted.large == nil)
        view.delete(deleted)  // a second swipe on the stale row: nothing left to delete
        precondition(!view.hasChanges)
        precondition(try! view.fetch(FetchRequest<Sample>(sortDescriptors: byLarge)).map(\.name) == ["row 0", "row 2"])
    }
}
