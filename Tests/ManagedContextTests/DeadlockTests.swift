import ConcurrencyDebug
import Dispatch
import Foundation
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
        #expect(stderr.contains("DeadlockTests.swift:\(sourceLine(of: "WAIT-A-ON-B"))") || stderr.contains("DeadlockTests.swift:\(sourceLine(of: "WAIT-B-ON-A"))"))
    }

    @Test func twoContextsWaitingOnEachOtherInReportMode() async throws {
        let report = tempPath("deadlock.json")
        defer { unlink(report) }
        await #expect(processExitsWith: .exitCode(66)) { [report = report as String] in
            sendStandardError(to: "/dev/null")
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
