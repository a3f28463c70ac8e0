@_spi(Runtime) import ConcurrencyDebug
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing
import ManagedContext

/// performAndWait chains that would hang forever are reported with both stacks.
@Suite struct DeadlockTests {
    @Test func twoContextsWaitingOnEachOtherTrap() async throws {
        let result = await #expect(processExitsWith: .signal(SIGTRAP), observing: [\.standardErrorContent]) {
            ConcurrencyDebug.Variable.concurrency.set("1")
            twoContextsWaitingOnEachOther()
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("BUG DETECTED: deadlock"), "\(stderr)")
        #expect(stderr.contains("kind:      deadlock"))
        #expect(stderr.contains("stack of the wait on queue"), "the other side's stack")
        // Both sides: the thread that closed the cycle captures its own stack; the other
        // one, blocked in its wait, is sampled (a signal whose handler unwinds it).
        #expect(stderr.contains("DeadlockTests.swift:\(sourceLine(of: "WAIT-A-ON-B"))"), "\(stderr)")
        #expect(stderr.contains("DeadlockTests.swift:\(sourceLine(of: "WAIT-B-ON-A"))"), "\(stderr)")
    }

    @Test func twoContextsWaitingOnEachOtherInReportMode() async throws {
        let report = temporaryPath("deadlock.json")
        defer { unlink(report) }
        await #expect(processExitsWith: .exitCode(66)) { [report = report as String] in
            redirectStandardError(to: "/dev/null")
            ConcurrencyDebug.Variable.set([.concurrency: "1", .onViolation: "report", .report: report])
            twoContextsWaitingOnEachOther()
        }
        let file = try JSONDecoder().decode(ViolationReportFile.self, from: Data(contentsOf: URL(fileURLWithPath: report)))
        #expect(file.violations.map(\.kind) == [.deadlock])
    }

    @Test func aChildAndItsParentWaitingThroughTheMainQueueTrap() async throws {
        let result = await #expect(processExitsWith: .signal(SIGTRAP), observing: [\.standardErrorContent]) {
            ConcurrencyDebug.Variable.concurrency.set("1")
            childAndParentThroughTheMainQueue()
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("BUG DETECTED: deadlock"), "\(stderr)")
        #expect(stderr.contains("com.apple.main-thread"))
    }

    /// Issue 27: a wait that was served (its block started on the other queue) is not
    /// a wait any more, though its thread has not woken yet. Each program below waits
    /// in one direction, and its second wait, in the other direction, starts only after
    /// the first one's block ran: neither can hang. A report must be certain, so each
    /// must report nothing in 1,000 runs (in one child process per shape and level, in
    /// report mode, where a false deadlock ends the process with status 66). Before the
    /// fix the edge lasted until the waiting thread woke, and the next block of the
    /// queue it waited for could see it and report a cycle.
    @Test(
        "a wait already served is not part of a deadlock", arguments: ["view-context", "child-into-parent", "two-private"], [1, 2, 3])
    func aServedWaitIsNotADeadlock(shape: String, level: Int) async throws {
        let dir = TempDirectory()
        let report = dir.file("report.json").path, stderrPath = dir.file("stderr.txt").path
        let journal = dir.file("access.journal").path
        await #expect(processExitsWith: .success) {
            [shape = shape as String, level, report = report as String, stderrPath = stderrPath as String, journal = journal as String] in
            redirectStandardError(to: stderrPath)
            for name in ["CTXDEBUG_DIAGNOSTICS", "CTXDEBUG_REPORT_DIR", "CTXDEBUG_SUPPRESSIONS", "CTXDEBUG_EXITCODE"] { unsetenv(name) }
            setenv("CTXDEBUG_CONCURRENCY", "\(level)", 1)
            setenv("CTXDEBUG_ON_VIOLATION", "report", 1)
            setenv("CTXDEBUG_REPORT", report, 1)
            if level == 3 { setenv("CTXDEBUG_JOURNAL", journal, 1) } else { unsetenv("CTXDEBUG_JOURNAL") }
            runServedWaits(shape, runs: servedWaitRuns)
        }
        let stderr = String(decoding: fileBytes(URL(fileURLWithPath: stderrPath)), as: UTF8.self)
        #expect(!stderr.contains("BUG DETECTED"), "\(stderr.suffix(4000))")
        #expect(stderr.contains("\(shape): \(servedWaitRuns) runs done"), "\(stderr.suffix(4000))")
        #expect(!FileManager.default.fileExists(atPath: report), "report mode wrote a report: \(String(decoding: fileBytes(URL(fileURLWithPath: report)), as: UTF8.self))")
    }

    /// Many waits at once, all in one direction (A's blocks wait for B, the main queue
    /// for A): every wait looks for a cycle, since others are in progress, and reads
    /// the other threads' records while they come and go. None may report one.
    @Test func manyWaitsAtOnceInOneDirectionAreNotADeadlock() async {
        await #expect(processExitsWith: .success) {
            ConcurrencyDebug.Variable.set([.concurrency: "1", .onViolation: "log"])
            let stack = try! TestStack()
            let a = stack.privateContext("A"), b = stack.privateContext("B"), c = stack.privateContext("C")
            DispatchQueue.concurrentPerform(iterations: 8) { worker in
                for _ in 0..<500 {
                    switch worker % 3 {
                    case 0: a.performAndWait { b.performAndWait { _ = b.hasChanges } }
                    case 1: b.performAndWait { c.performAndWait { _ = c.hasChanges } }
                    default: a.performAndWait { c.performAndWait { _ = c.hasChanges } }
                    }
                }
            }
            precondition(ConcurrencyDebug.recordedViolations.isEmpty, "\(ConcurrencyDebug.recordedViolations.map(\.message))")
        }
    }

    /// A thread's wait record goes back when the thread exits, and the next new thread
    /// takes it over: 50 threads, one after the other, each waiting while it holds a
    /// queue, leave a handful of records, not 50.
    @Test func exitedThreadsHandTheirWaitRecordsOn() async {
        await #expect(processExitsWith: .success) {
            ConcurrencyDebug.Variable.set([.concurrency: "1", .onViolation: "log"])
            let stack = try! TestStack()
            let a = stack.privateContext("A"), b = stack.privateContext("B")
            for _ in 0..<50 {
                // pthread_join returns after the thread's key destructors have run.
                runOnNewThreadAndJoin { a.performAndWait { b.performAndWait { _ = b.hasChanges } } }
            }
            precondition(WaitForGraph.recordCount < 10, "\(WaitForGraph.recordCount) wait records after 50 threads, one at a time")
            precondition(ConcurrencyDebug.recordedViolations.isEmpty)
        }
    }

    @Test func waitingInOneDirectionIsNotADeadlock() async {
        await #expect(processExitsWith: .success) {
            ConcurrencyDebug.Variable.set([.concurrency: "1", .onViolation: "log"])
            let stack = try! TestStack()
            let a = stack.privateContext("A"), b = stack.privateContext("B")
            for _ in 0..<100 {
                a.performAndWait { b.performAndWait { _ = b.hasChanges } }
            }
            precondition(ConcurrencyDebug.recordedViolations.isEmpty)
        }
    }
}

/// Runs `body` on a new POSIX thread and waits until that thread is gone.
func runOnNewThreadAndJoin(_ body: @escaping @Sendable () -> Void) {
    final class Box: @unchecked Sendable {  // handed to the one thread that runs it
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    var thread = pthread_t()
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    let created = pthread_create(&thread, nil, { context in
        let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
        box.body()
        return nil
    }, box)
    precondition(created == 0, "pthread_create failed: \(created)")
    pthread_join(thread, nil)
}

func twoContextsWaitingOnEachOther() {
    let stack = try! TestStack()
    let a = stack.privateContext("A"), b = stack.privateContext("B")
    let aInside = DispatchSemaphore(value: 0), bInside = DispatchSemaphore(value: 0)
    a.perform {
        aInside.signal()
        bInside.wait()
        b.performAndWait { _ = b.hasChanges }  // WAIT-A-ON-B
    }
    b.perform {
        bInside.signal()
        aInside.wait()
        a.performAndWait { _ = a.hasChanges }  // WAIT-B-ON-A
    }
    sleep(30)
    preconditionFailure("the deadlock was not detected")
}

func childAndParentThroughTheMainQueue() {
    let stack = try! TestStack()
    let parent = stack.privateContext("parent")
    let child = ManagedObjectContext(concurrencyType: .mainQueue)
    child.parent = parent
    let parentInside = DispatchSemaphore(value: 0)
    parent.perform {
        parentInside.signal()
        // Wait until the main queue is blocked on the parent, then close the cycle.
        while !WaitForGraph.isWaiting(.main) { sched_yield() }
        child.performAndWait { _ = child.hasChanges }
    }
    parentInside.wait()
    DispatchQueue.main.async {
        parent.performAndWait { _ = parent.hasChanges }
    }
    sleep(30)
    preconditionFailure("the deadlock was not detected")
}

let servedWaitRuns = 1_000
/// Runs finished so far, said at exit: how far a failing child got.
let servedWaitRunsDone = Atomic<Int>(0)

/// The programs of `aServedWaitIsNotADeadlock`, `runs` times each in one process. In
/// each, a block that a wait is served by queues the wait in the other direction; the
/// run ends when that second wait's block has run.
func runServedWaits(_ shape: String, runs: Int) {
    let stack = try! TestStack()
    let viewContext = ManagedObjectContext(concurrencyType: .mainQueue)
    viewContext.persistentStoreCoordinator = stack.coordinator
    viewContext.name = "viewContext"
    let background = stack.privateContext("background")
    let child = ManagedObjectContext(concurrencyType: .privateQueue)
    child.parent = viewContext
    child.name = "child"
    let other = stack.privateContext("other")
    let done = DispatchSemaphore(value: 0)
    atexit {
        FileHandle.standardError.write(Data("runs finished before exit: \(servedWaitRunsDone.load(ordering: .relaxed))\n".utf8))
    }
    for run in 0..<runs {
        switch shape {
        case "view-context", "child-into-parent":
            // The issue's program; and a private child's wait into its main-queue parent.
            let context = shape == "view-context" ? background : child
            context.perform {
                viewContext.performAndWait {
                    // Runs after the wait above was served; the block around it is ending.
                    DispatchQueue.main.async {
                        _ = context.performAndWait { context.hasChanges }
                        done.signal()
                    }
                }
            }
        case "two-private":
            background.perform {
                other.performAndWait {
                    other.perform {
                        _ = background.performAndWait { background.hasChanges }
                        done.signal()
                    }
                }
            }
        default:
            preconditionFailure("unknown shape \(shape)")
        }
        // A guard against a hang, not a timing threshold: a run takes microseconds.
        precondition(done.wait(timeout: .now() + 60) == .success, "\(shape) hung at run \(run)")
        servedWaitRunsDone.add(1, ordering: .relaxed)
    }
    precondition(ConcurrencyDebug.recordedViolations.isEmpty, "\(ConcurrencyDebug.recordedViolations.map(\.message))")
    FileHandle.standardError.write(Data("\(shape): \(runs) runs done\n".utf8))
}
