import ConcurrencyDebug
import Dispatch
import Foundation
import TestSupport
import Testing
import ManagedContext

/// The checker on real contexts and objects, in child processes: the wrong
/// patterns of the seed material are caught, the right ones run clean.
@Suite struct ConcurrencyCheckTests {
    @Test func aBackgroundObjectReadOnAnotherQueueTrapsWithAFullReport() async throws {
        let result = await #expect(processExitsWith: .signal(SIGTRAP), observing: [\.standardErrorContent]) {
            backgroundObjectReadOnAnotherQueue()
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("ctxdebug: concurrency checking on (level 1"))
        #expect(stderr.contains("BUG DETECTED"))
        #expect(stderr.contains("Sample.name"))
        #expect(stderr.contains("x-coredata://"))
        #expect(stderr.contains("/Sample/p1"))
        #expect(stderr.contains("'background'"))
        #expect(stderr.contains("ctxdebug.context."), "the owning queue's label")
        #expect(stderr.contains("test.ui-callback"), "the offending queue")
        #expect(stderr.contains("object(with:)"), "the fix hint")
        let site = sourceLine(of: "OFFENDING-OBJECT-READ")
        #expect(stderr.contains("ConcurrencyCheckTests.swift:\(site)"), "the stack names the access:\n\(stderr)")
        #expect(!stderr.contains("not reached"))
    }

    /// Every wrong pattern in the seed material, in one report-mode child.
    @Test func everyWrongPatternOfTheSeedMaterialIsCaught() async throws {
        let report = temporaryPath("report.json")
        let log = temporaryPath("stderr.txt")
        defer { unlink(report); unlink(log) }
        await #expect(processExitsWith: .exitCode(66)) { [report = report as String, log = log as String] in
            redirectStandardError(to: log)
            everyWrongPattern(report: report)
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: report))
        let file = try JSONDecoder().decode(ViolationReportFile.self, from: data)
        #expect(file.distinctCount == 4, "\(file.violations.map { "\($0.access.operation) \($0.access.attribute ?? "")" })")
        let sites = (1...4).map { sourceLine(of: "WRONG-\($0)") }
        for site in sites {
            #expect(
                file.violations.contains { v in v.frames.contains { $0.file?.hasSuffix("ConcurrencyCheckTests.swift") == true && $0.line == site } },
                "a violation at line \(site)")
        }
        #expect(file.violations.allSatisfy { $0.kind == .wrongQueue })
    }

    /// Every correct pattern in the seed material runs clean at levels 1, 2 and 3.
    @Test(arguments: [1, 2, 3])
    func everyCorrectPatternRunsClean(level: Int) async throws {
        let journal = temporaryPath("journal")
        defer { unlink(journal) }
        await #expect(processExitsWith: .success) { [journal = journal as String, level = level as Int] in
            checkInReportMode(level: level, journal: journal)
            runCorrectPatterns()
            precondition(ConcurrencyDebug.level.rawValue == level, "level \(ConcurrencyDebug.level)")
            precondition(ConcurrencyDebug.recordedViolations.isEmpty, "violations: \(ConcurrencyDebug.recordedViolations.map { "\($0.access.operation)" })")
            ConcurrencyDebug.flushAccessJournal()
        }
        if level == 3 {
            let reader = try AccessJournalReader(path: journal)
            var events = 0
            var refused = 0
            reader.forEachEvent { e in
                events += 1
                if !e.allowed { refused += 1 }
            }
            #expect(events > 100, "every access is journaled at level 3")
            #expect(refused == 0)
        }
    }
}

/// The main-queue test the access check makes without a queue-specific lookup
/// (libdispatch's current queue), in every place main-queue code can run, and the
/// places that look like it but are not.
@Suite struct MainQueueCheckTests {
    @Test(arguments: [1, 3])
    func viewContextReadsFromPlainMainQueueCodeAreAllowedAndOtherQueuesAreNot(level: Int) async throws {
        let journal = temporaryPath("journal")
        defer { unlink(journal) }
        await #expect(processExitsWith: .success) { [journal = journal as String, level = level as Int] in
            checkInReportMode(level: level, journal: journal)
            mainQueueCases()
            ConcurrencyDebug.flushAccessJournal()
        }
    }
}

/// Runs in a child. Allowed: plain main-queue work items (not in perform), a
/// `DispatchQueue.main.sync` block from a worker, a queue that targets the main
/// queue. Reported: a private queue, and a `sync` onto another queue from a
/// main-queue work item (that block runs on the other queue, as Core Data sees it).
func mainQueueCases() {
    let stack = try! TestStack()
    let view = ManagedObjectContext(concurrencyType: .mainQueue)
    view.name = "viewContext"
    view.persistentStoreCoordinator = stack.coordinator
    let object: Sample = view.performAndWait {
        let s = Sample(context: view)
        s.name = "main"
        try! view.save()
        return s
    }
    nonisolated(unsafe) let entry = object
    func violations() -> Int { ConcurrencyDebug.recordedViolations.reduce(0) { $0 + $1.count } }
    func onMainQueue(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.main.async {
            body()
            done.signal()
        }
        precondition(done.wait(timeout: .now() + 20) == .success, "the main queue is not serviced in this child")
    }

    // A plain main-queue work item. The exit-test child's main thread is in
    // dispatchMain(), so the item runs on a worker thread, as in a Linux app.
    onMainQueue {
        precondition(!Thread.isMainThread, "the main queue ran on the main thread: this child is not in dispatchMain()")
        precondition(ConcurrencyDebug.isOnMainQueue && ConcurrencyDebug.isRunning(.main))
        for _ in 0..<100 { _ = entry.name }
        entry.small = 9
    }
    DispatchQueue.global().sync {
        precondition(!ConcurrencyDebug.isOnMainQueue)
        DispatchQueue.main.sync { _ = entry.name }
    }
    DispatchQueue(label: "test.targets-main", target: .main).sync {
        precondition(ConcurrencyDebug.isOnMainQueue)
        _ = entry.name
    }
    precondition(violations() == 0, "allowed cases reported: \(ConcurrencyDebug.recordedViolations.map(\.message))")

    DispatchQueue(label: "test.private").sync { _ = entry.name }  // OFF-MAIN-1
    precondition(violations() == 1, "a read on a private queue is a violation")
    onMainQueue {
        DispatchQueue(label: "test.sync-from-main").sync { _ = entry.small }  // OFF-MAIN-2
    }
    precondition(violations() == 2, "a read in a sync block on another queue is a violation")
    precondition(
        ConcurrencyDebug.recordedViolations.allSatisfy { $0.kind == .wrongQueue && $0.access.ownerQueueLabel == "com.apple.main-thread" })
    ConcurrencyDebug.resetRecordedViolations()
}

func backgroundObjectReadOnAnotherQueue() {
    ConcurrencyDebug.Variable.concurrency.set("1")
    let stack = try! TestStack()
    let background = stack.privateContext("background")
    let entry = background.performAndWait {
        let s = Sample(context: background)
        s.name = "Rincon"
        try! background.save()
        return s
    }
    nonisolated(unsafe) let captured = entry
    DispatchQueue(label: "test.ui-callback").sync {
        _ = captured.name  // OFFENDING-OBJECT-READ
    }
    print("not reached")
}

func everyWrongPattern(report: String) {
    ConcurrencyDebug.Variable.set([.concurrency: "1", .onViolation: "report", .report: report])
    let stack = try! TestStack()
    let view = ManagedObjectContext(concurrencyType: .mainQueue)
    view.name = "viewContext"
    view.persistentStoreCoordinator = stack.coordinator
    let background = stack.privateContext("background")
    let fetched: Sample = background.performAndWait {
        let s = Sample(context: background)
        s.name = "bg"
        try! background.save()
        return try! background.fetch(FetchRequest<Sample>()).first!
    }
    nonisolated(unsafe) let bgObject = fetched
    // 1. An object fetched on a background context, then read on the main queue.
    view.performAndWait { _ = bgObject.name }  // WRONG-1
    // 2. A main-context object changed from a background queue.
    nonisolated(unsafe) let mainObject = view.performAndWait { view.object(with: bgObject.objectID) }
    DispatchQueue(label: "test.export").sync { (mainObject as! Sample).name = "changed" }  // WRONG-2
    // 3. A private context used without perform from a callback on another queue.
    DispatchQueue(label: "test.firebase-callback").sync { _ = try? background.count(for: FetchRequest<Sample>()) }  // WRONG-3
    // 4. A managed object captured into DispatchQueue.main.async.
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.main.async {
        _ = bgObject.small  // WRONG-4
        done.signal()
    }
    precondition(done.wait(timeout: .now() + 20) == .success, "the main queue is not serviced in this child")
}

/// The seed material's correct patterns. Each would be reported if the checker
/// had a false positive.
func runCorrectPatterns() {
    let stack = try! TestStack()
    let view = ManagedObjectContext(concurrencyType: .mainQueue)
    view.name = "viewContext"
    view.persistentStoreCoordinator = stack.coordinator
    let background = stack.privateContext("background")
    let onMain = DispatchSemaphore(value: 0)

    // perform-wrapped work, and nested performAndWait (reentrant, and across contexts).
    background.performAndWait {
        for i in 0..<50 { Sample(context: background).large = Int64(i) }
        try! background.save()
        background.performAndWait { _ = background.hasChanges }
        let other = stack.privateContext("other")
        other.performAndWait { _ = try! other.count(for: FetchRequest<Sample>()) }
        _ = try! background.fetch(FetchRequest<Sample>()).first?.large
    }
    let done = DispatchSemaphore(value: 0)
    background.perform {
        _ = try! background.fetch(FetchRequest<Sample>()).map(\.large)
        done.signal()
    }
    done.wait()

    // A background fetch returning objectIDs, used with object(with:) on the main context.
    let ids = background.performAndWait { try! background.fetchObjectIDs(FetchRequest<Sample>(predicate: \Sample.large < 10)) }
    DispatchQueue.main.async {
        // A main-queue context used directly on the main queue.
        let objects = ids.map { view.object(with: $0) as! Sample }
        _ = objects.map(\.large)
        _ = try! view.count(for: FetchRequest<Sample>())
        // A child scratchpad on the main queue.
        let scratch = ManagedObjectContext(concurrencyType: .mainQueue)
        scratch.parent = view
        let edited = scratch.object(with: ids[0]) as! Sample
        edited.name = "edited"
        try! scratch.save()
        _ = view.hasChanges
        try! view.save()  // the chapter saves the main context after the child
        onMain.signal()
    }
    precondition(onMain.wait(timeout: .now() + 20) == .success, "the main queue is not serviced in this child")

    // performBackgroundTask, and a didSave observer merging into the main context.
    let container = PersistentContainer(
        name: "Patterns", managedObjectModel: testModel, storeURL: stack.dir.file("Container.sqlite"))
    try! container.loadPersistentStores()
    let merged = DispatchSemaphore(value: 0)
    let token = NotificationCenter.default.addObserver(
        forName: ManagedObjectContext.didSaveObjectsNotification, object: nil, queue: nil
    ) { note in
        guard let saver = note.object as? ManagedObjectContext, saver !== container.viewContext else { return }
        let changes = SaveChanges(note)
        container.viewContext.perform {
            container.viewContext.mergeChanges(changes)
            _ = try! container.viewContext.fetch(FetchRequest<Sample>()).map(\.name)
            merged.signal()
        }
    }
    container.performBackgroundTask { context in
        Sample(context: context).name = "from background task"
        try! context.save()
    }
    precondition(merged.wait(timeout: .now() + 20) == .success, "the merge did not run")
    NotificationCenter.default.removeObserver(token)
}

func sourceLine(of marker: String, in file: String = #filePath) -> Int {
    let lines = (try? String(contentsOfFile: file, encoding: .utf8))?.components(separatedBy: "\n") ?? []
    let found = lines.indices.filter { lines[$0].contains(marker) && !lines[$0].contains("sourceLine(of:") && !lines[$0].contains("WRONG-\\(") }
    precondition(found.count == 1, "marker \(marker) must be on exactly one line, found \(found.count)")
    return found[0] + 1
}

/// In an exit-test child: checking at `level` in report mode, journaling to `journal` at level 3.
func checkInReportMode(level: Int, journal: String) {
    ConcurrencyDebug.Variable.set([.concurrency: "\(level)", .onViolation: "report"])
    if level == 3 { ConcurrencyDebug.Variable.journal.set(journal) }
}

