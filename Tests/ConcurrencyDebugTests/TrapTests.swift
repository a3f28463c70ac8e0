import ConcurrencyDebug
import Foundation
import TestSupport
import Testing

/// Trap mode runs in child processes (exit tests) and is judged from outside: the
/// signal that ended the child and what it printed.
@Suite("Trap mode")
struct TrapTests {
    @Test("A wrong-queue access stops the process with SIGTRAP and a full report")
    func wrongQueueTraps() async throws {
        let result = await #expect(processExitsWith: .signal(SIGTRAP), observing: [\.standardErrorContent]) {
            wrongQueueChild()
        }
        let stderr = utf8(try #require(result).standardErrorContent)
        #expect(stderr.contains("ctxdebug: concurrency checking on (level 1, on violation: trap)"))
        #expect(stderr.contains("BUG DETECTED"))
        #expect(stderr.contains("get of Item.title"))
        #expect(stderr.contains("x-coredata://TEST/Item/p7"))
        #expect(stderr.contains("entity Item"))
        #expect(stderr.contains("context 'backgroundContext'"))
        #expect(stderr.contains("test.owner-queue"))
        #expect(stderr.contains("queue 'test.offending-queue'"))
        #expect(stderr.contains("context.perform { }"))
        #expect(stderr.contains("ctxdebug_violation_trap"))
        let accessLine = line(of: "OFFENDING-ACCESS-TRAP")
        #expect(
            containsLocation(stderr, fileName: "TrapTests.swift", line: accessLine),
            "the stack names TrapTests.swift:\(accessLine):\n\(stderr)")
        // The checker's own frames are dropped: the first frame is the accessor.
        let firstFrame = stderr.components(separatedBy: "\n").first { $0.contains("#0 ") } ?? ""
        #expect(firstFrame.contains("FakeItem.title.getter"), "first frame: \(firstFrame)")
        #expect(!stderr.contains("not reached"))
    }

    @Test("QueueConfined checks every get and set; the report names the setter")
    func queueConfinedSetTraps() async throws {
        let result = await #expect(processExitsWith: .signal(SIGTRAP), observing: [\.standardErrorContent]) {
            queueConfinedSetChild()
        }
        let stderr = utf8(try #require(result).standardErrorContent)
        #expect(stderr.contains("set of QueueConfined<Int>"))
        #expect(stderr.contains("'counter'"))
        #expect(stderr.contains("test.confined-owner"))
        #expect(stderr.contains("test.confined-offender"))
        #expect(containsLocation(stderr, fileName: "TrapTests.swift", line: line(of: "OFFENDING-ACCESS-CONFINED")))
    }

    @Test("Under dispatchMain(), main-queue code owns .main values, and a private-queue access traps")
    func dispatchMainQueue() async throws {
        let result = await #expect(processExitsWith: .signal(SIGTRAP), observing: [\.standardErrorContent]) {
            dispatchMainChild()
            try await Task.sleep(for: .seconds(60))
        }
        let stderr = utf8(try #require(result).standardErrorContent)
        #expect(stderr.contains("main-queue phase done: 100"))
        #expect(occurrences(of: "BUG DETECTED", in: stderr) == 1)
        #expect(stderr.contains("must happen on queue 'com.apple.main-thread'"))
        #expect(stderr.contains("queue 'test.private'"))
        #expect(
            containsLocation(stderr, fileName: "TrapTests.swift", line: line(of: "OFFENDING-ACCESS-DISPATCH-MAIN")),
            "\(stderr)")
    }

    @Test("Level 2: a perform block that runs off its context's queue is a violation")
    func performOffQueue() async throws {
        let result = await #expect(processExitsWith: .signal(SIGTRAP), observing: [\.standardErrorContent]) {
            performOffQueueChild()
            try await Task.sleep(for: .seconds(60))
        }
        let stderr = utf8(try #require(result).standardErrorContent)
        #expect(stderr.contains("level 2"))
        #expect(stderr.contains("main ok"))
        #expect(stderr.contains("kind:      perform-off-queue"))
        #expect(stderr.contains("a perform block must run on queue 'test.context-queue' of context 'background'"))
        #expect(stderr.contains("test.wrong-queue"))
        #expect(containsLocation(stderr, fileName: "TrapTests.swift", line: line(of: "// OFF-QUEUE")))
    }

    @Test("Checking off: nothing is checked and nothing is printed")
    func checkingOff() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            ConcurrencyDebug.Variable.concurrency.set("0")
            let item = FakeItem(owner: QueueIdentity.makePrivate(label: "test.off"))
            DispatchQueue(label: "test.elsewhere").sync { item.title = "unchecked" }
            if ConcurrencyDebug.level != 0 { exit(1) }
        }
        let stderr = utf8(try #require(result).standardErrorContent)
        #expect(!stderr.contains("ctxdebug"))
    }
}

// The bodies of the child processes live outside the `#expect` macro, so that debug
// info gives their lines in this file (code inside a macro expansion gets the
// expansion's own file and lines).

private func wrongQueueChild() {
    ConcurrencyDebug.Variable.concurrency.set("1")
    ConcurrencyDebug.Variable.onViolation.unset()
    let owner = QueueIdentity.makePrivate(label: "test.owner-queue")
    let item = FakeItem(owner: owner, contextName: "backgroundContext")
    // Allowed: inside the owner's "perform block".
    runAs(owner) { item.title = "fine" }
    DispatchQueue(label: "test.offending-queue").sync {
        _ = item.title  // OFFENDING-ACCESS-TRAP
    }
    print("not reached")
}

private func queueConfinedSetChild() {
    ConcurrencyDebug.Variable.concurrency.set("1")
    let owner = QueueIdentity.makePrivate(label: "test.confined-owner")
    let counter = QueueConfined(0, owner: owner, name: "counter")
    runAs(owner) { counter.value += 1 }
    DispatchQueue(label: "test.confined-offender").sync {
        counter.value = 42  // OFFENDING-ACCESS-CONFINED
    }
}

private func dispatchMainChild() {
    ConcurrencyDebug.Variable.concurrency.set("1")
    let counter = QueueConfined(0, owner: .main, name: "main-counter")
    DispatchQueue.main.async {
        // This child's main queue is drained by dispatch_main() (Swift's async main on
        // Linux): main-queue work runs on a worker thread, not the main thread. Say
        // so, or fail with another status.
        guard !Thread.isMainThread else { exit(3) }
        for _ in 0..<100 { counter.value += 1 }
        FileHandle.standardError.write(Data("main-queue phase done: \(counter.value)\n".utf8))
        DispatchQueue(label: "test.private").async {
            _ = counter.value  // OFFENDING-ACCESS-DISPATCH-MAIN
        }
    }
}

private func performOffQueueChild() {
    ConcurrencyDebug.Variable.concurrency.set("2")
    let owner = QueueIdentity.makePrivate(label: "test.context-queue")
    let queue = DispatchQueue(label: "test.context-queue")
    ConcurrencyDebug.tag(queue, as: owner)
    let description = AccessDescription(
        operation: "perform", contextName: "background", ownerQueueLabel: owner.label,
        fixHint: "run the block with `context.perform { }`")
    // On its queue: fine.
    queue.sync { ConcurrencyDebug.assertPerformQueue(expected: owner, contextDescription: description) }
    DispatchQueue.main.async {
        ConcurrencyDebug.assertPerformQueue(expected: .main, contextDescription: description)
        FileHandle.standardError.write(Data("main ok\n".utf8))
        DispatchQueue(label: "test.wrong-queue").async {
            ConcurrencyDebug.assertPerformQueue(expected: owner, contextDescription: description)  // OFF-QUEUE
        }
    }
}
