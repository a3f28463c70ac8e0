import ConcurrencyDebug
import Dispatch
import Foundation
import TestSupport
import Testing
import ManagedContext

/// `performAndWait` across contexts, as Core Data runs it.
///
/// Core Data runs a `performAndWait` block on the calling thread and lets it re-enter
/// the queues its caller already holds: "performAndWait … is reentrant" and "executes
/// the block on the calling thread" (NSManagedObjectContext docs, "Concurrency"; WWDC
/// 2015 session 220, "What's New in Core Data": nested performAndWait calls are
/// reentrant). So main-queue code may call `child.performAndWait { try child.save() }`
/// on a private child of the view context: the save pushes into the main-queue
/// parent, which the same call chain already holds. Each shape runs in a child
/// process whose main queue is drained by `dispatchMain()` (where the main queue runs
/// on a worker thread), at every level, in report mode: a crash, a hang, a false
/// `deadlock` or any other report fails it.
@Suite struct PerformAndWaitTests {
    static let levels = [0, 1, 2, 3]

    @Test("main-queue code saves a private child of the view context", arguments: levels)
    func childOfViewContextSaves(level: Int) async {
        await expectCleanRun(level: level, shape: "child-save")
    }

    @Test("main-queue code fetches through a private child of the view context", arguments: levels)
    func childOfViewContextFetches(level: Int) async {
        await expectCleanRun(level: level, shape: "child-fetch")
    }

    @Test("a did-save observer (queue: nil) merges into the view context with performAndWait while main-queue code saves a background context", arguments: levels)
    func observerMergesDuringBackgroundSave(level: Int) async {
        await expectCleanRun(level: level, shape: "observer-merge")
    }

    @Test("main-queue code reaches the view context again through a child's block that waits on a sibling", arguments: levels)
    func mainQueueHeldThroughTwoPrivateQueues(level: Int) async {
        await expectCleanRun(level: level, shape: "two-hops")
    }

    /// The real deadlock twin: two call chains, each holding one queue and waiting for
    /// the other's, on two threads. This must still be reported with both stacks.
    @Test("two threads, each inside one context's performAndWait, waiting for the other's", arguments: [1, 2, 3])
    func realDeadlockStillReported(level: Int) async throws {
        let result = await #expect(processExitsWith: .exitCode(66), observing: [\.standardErrorContent]) { [level] in
            ConcurrencyDebug.Variable.set([.concurrency: "\(level)", .onViolation: "report"])
            if level == 3 { ConcurrencyDebug.Variable.journal.set(temporaryPath("deadlock-\(getpid()).journal")) }
            let stack = try! TestStack()
            let a = stack.privateContext("A"), b = stack.privateContext("B")
            let aInside = DispatchSemaphore(value: 0), bInside = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                a.performAndWait {
                    aInside.signal()
                    bInside.wait()
                    b.performAndWait { _ = b.hasChanges }  // REAL-A-ON-B
                }
            }
            Thread.detachNewThread {
                b.performAndWait {
                    bInside.signal()
                    aInside.wait()
                    a.performAndWait { _ = a.hasChanges }  // REAL-B-ON-A
                }
            }
            // Nothing signals this: the checker ends the process at the deadlock. The
            // timeout only turns a missed deadlock into a failure instead of a hang.
            let neverSignalled = DispatchSemaphore(value: 0)
            _ = neverSignalled.wait(timeout: .now() + 60)
            preconditionFailure("the deadlock was not detected")
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("BUG DETECTED: deadlock"), "\(stderr)")
        #expect(stderr.contains("stack of the wait on queue"), "the other side's stack")
    }

    private func expectCleanRun(level: Int, shape: String) async {
        await #expect(processExitsWith: .success) { [level, shape] in
            ConcurrencyDebug.Variable.set([.concurrency: "\(level)", .onViolation: "report"])
            if level == 3 { ConcurrencyDebug.Variable.journal.set(temporaryPath("paw-\(getpid()).journal")) }
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.main.async {
                runPerformAndWaitShape(shape)
                precondition(ConcurrencyDebug.recordedViolations.isEmpty, "\(ConcurrencyDebug.recordedViolations)")
                done.signal()
            }
            // A guard against a hang, not a timing threshold: the shapes take milliseconds.
            precondition(done.wait(timeout: .now() + 120) == .success, "\(shape) hung")
        }
    }
}

/// The program shapes, run as main-queue code (outside any perform block).
func runPerformAndWaitShape(_ shape: String) {
    let stack = try! TestStack()
    let viewContext = ManagedObjectContext(concurrencyType: .mainQueue)
    viewContext.persistentStoreCoordinator = stack.coordinator
    viewContext.name = "viewContext"
    switch shape {
    case "child-save":
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = viewContext
        child.performAndWait {
            Sample(context: child).name = "from the child"
            try! child.save()
        }
        // The child's save pushed into the view context: it holds the insert now.
        let names = try! viewContext.fetch(FetchRequest<Sample>()).map(\.name)
        precondition(names == ["from the child"], "\(names)")
        precondition(viewContext.hasChanges)
        try! viewContext.save()
        let reader = stack.privateContext()
        let stored = reader.performAndWait { try! reader.count(for: FetchRequest<Sample>()) }
        precondition(stored == 1, "\(stored)")
    case "child-fetch":
        let seed = stack.privateContext()
        seed.performAndWait {
            for i in 0..<5 { Sample(context: seed).large = Int64(i) }
            try! seed.save()
        }
        Sample(context: viewContext).large = 99  // unsaved in the parent, seen by the child
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = viewContext
        let values = child.performAndWait {
            try! child.fetch(FetchRequest<Sample>(sortDescriptors: [FetchSortDescriptor(\Sample.large)])).map(\.large)
        }
        precondition(values == [0, 1, 2, 3, 4, 99], "\(values)")
    case "observer-merge":
        let seen: Sample = {
            Sample(context: viewContext).name = "v1"
            try! viewContext.save()
            return try! viewContext.fetch(FetchRequest<Sample>()).first!
        }()
        let background = stack.privateContext("background")
        let token = NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.didSaveObjectsNotification, object: background, queue: nil
        ) { note in
            viewContext.performAndWait { viewContext.mergeChanges(fromContextDidSave: note) }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let id = seen.objectID
        background.performAndWait {
            (background.object(with: id) as! Sample).name = "v2"
            try! background.save()
        }
        precondition(seen.name == "v2", "the merge did not reach the view context: \(seen.name ?? "nil")")
    case "two-hops":
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = viewContext
        let sibling = stack.privateContext("sibling")
        child.performAndWait {
            sibling.performAndWait {
                Sample(context: sibling).name = "sibling"
                try! sibling.save()
            }
            Sample(context: child).name = "child"
            try! child.save()
        }
        let names = Set(try! viewContext.fetch(FetchRequest<Sample>()).compactMap(\.name))
        precondition(names == ["sibling", "child"], "\(names)")
        try! viewContext.save()
    default:
        preconditionFailure("unknown shape \(shape)")
    }
}
