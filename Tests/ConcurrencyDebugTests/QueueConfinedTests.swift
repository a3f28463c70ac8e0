import ConcurrencyDebug
import Foundation
import TestSupport
import Testing

/// In-process tests of the checker with a collecting handler. They change the
/// process-wide configuration, so they run one at a time.
@Suite("QueueConfined and handlers, in process", .serialized)
struct QueueConfinedTests {
    /// Only this suite's values (`QueueConfined`) and owners (`test.…`): the other suites
    /// of the process run beside it, under the level it sets.
    static func isOurs(_ v: Violation) -> Bool {
        v.access.entity?.hasPrefix("QueueConfined") == true || v.access.ownerQueueLabel.hasPrefix("test.")
    }
    let handler = CollectingHandler(keeping: QueueConfinedTests.isOurs)

    init() {
        ConcurrencyDebug.configure(.init(level: 1, onViolation: .log))
        ConcurrencyDebug.setViolationHandler(handler)
        ConcurrencyDebug.resetRecordedViolations()
    }

    @Test("The owner's perform block may touch the value; another queue may not")
    func ownerAndOthers() throws {
        let owner = QueueIdentity.makePrivate(label: "test.in-process-owner")
        let counter = QueueConfined(1, owner: owner, name: "counter")
        runAs(owner) {
            counter.value += 1
            counter.withValue { $0 *= 10 }
        }
        #expect(handler.violations.isEmpty)
        let read = DispatchQueue(label: "test.in-process-other").sync { counter.value }
        #expect(read == 20, "a violation does not change what is read")
        let violation = try #require(handler.violations.first)
        #expect(handler.violations.count == 1)
        #expect(violation.kind == .wrongQueue)
        #expect(violation.access.operation == "get")
        #expect(violation.access.entity == "QueueConfined<Int>")
        #expect(violation.access.objectID == "counter")
        #expect(violation.access.ownerQueueLabel == "test.in-process-owner")
        #expect(violation.queueLabel == "test.in-process-other")
        #expect(violation.count == 1)
        #expect(violation.frames.isEmpty, "handlers get the stack unsymbolicated")
        #expect(ConcurrencyDebug.recordedViolations.filter(Self.isOurs).count == 1)
    }

    @Test("Nested owners restore the outer one")
    func nestedOwners() {
        let outer = QueueIdentity.makePrivate(label: "test.outer")
        let inner = QueueIdentity.makePrivate(label: "test.inner")
        let outerValue = QueueConfined("o", owner: outer)
        let innerValue = QueueConfined("i", owner: inner)
        runAs(outer) {
            _ = outerValue.value
            runAs(inner) { _ = innerValue.value }
            _ = outerValue.value
        }
        #expect(handler.violations.isEmpty)
        #expect(ConcurrencyDebug.currentOwner == .none)
    }

    @Test("A value bound to a queue the user owns: code on that queue may touch it, other code may not")
    func boundToAUsersQueue() throws {
        let mine = DispatchQueue(label: "test.users-own-queue")
        let cache = QueueConfined([String: Int](), queue: mine, name: "cache")
        let sameQueue = QueueConfined(0, queue: mine)
        #expect(cache.owner == sameQueue.owner, "one identity per queue")
        #expect(cache.owner != .main && cache.owner != .none)
        mine.sync {
            cache.value["a"] = 1
            sameQueue.value += 1
        }
        let group = DispatchGroup()
        mine.async(group: group) { cache.value["b"] = 2 }
        group.wait()
        #expect(handler.violations.isEmpty, "\(handler.violations.map(\.message))")

        let read = DispatchQueue(label: "test.someone-else").sync { cache.value }
        #expect(read == ["a": 1, "b": 2])
        let violation = try #require(handler.violations.first)
        #expect(handler.violations.count == 1)
        #expect(violation.kind == .wrongQueue)
        #expect(violation.access.objectID == "cache")
        #expect(violation.access.ownerQueueLabel == "test.users-own-queue")
        #expect(violation.queueLabel == "test.someone-else")
        #expect(violation.access.fixHint.contains("running on queue 'test.users-own-queue'"))

        #expect(QueueConfined(0, queue: .main).owner == .main)
    }

    @Test("Main-queue code owns .main values outside any perform block")
    func mainQueueOwnsMain() async {
        let counter = QueueConfined(0, owner: .main)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.main.async {
                counter.value += 1
                continuation.resume()
            }
        }
        #expect(handler.violations.isEmpty)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue(label: "test.not-main").async {
                counter.value += 1
                continuation.resume()
            }
        }
        #expect(handler.violations.map(\.access.operation) == ["set"])
        #expect(handler.violations.first?.message.contains("must happen on queue 'com.apple.main-thread'") == true)
    }

    @Test("The same stack is counted, not repeated; the symbolicated stack starts at the accessor")
    func deduplicationAndSymbolication() throws {
        let counter = QueueConfined(0, owner: QueueIdentity.makePrivate(label: "test.owner"), name: "dedup")
        DispatchQueue(label: "test.offender").sync {
            for _ in 0..<5 {
                _ = counter.value  // DEDUP-SITE
            }
        }
        #expect(handler.violations.map(\.count) == [1, 2, 3, 4, 5])
        let recorded = ConcurrencyDebug.recordedViolations.filter(Self.isOurs)
        #expect(recorded.count == 1)
        #expect(recorded.first?.count == 5)
        let frames = try #require(recorded.first).symbolicated().frames
        #expect(frames.first?.function?.contains("QueueConfined.value.getter") == true, "\(frames.prefix(3))")
        #expect(frames.contains { $0.file?.hasSuffix("QueueConfinedTests.swift") == true && $0.line == line(of: "DEDUP-SITE") })
        #expect(!frames.contains { $0.function?.contains("Checker") == true })
        ConcurrencyDebug.resetRecordedViolations()
        #expect(ConcurrencyDebug.recordedViolations.filter(Self.isOurs).isEmpty)
    }

    @Test("reportViolation raises any kind through the active handler")
    func customKind() throws {
        let kind = ViolationKind("fault-after-reset")
        ConcurrencyDebug.reportViolation(
            kind: kind,
            description: AccessDescription(operation: "fire fault", ownerQueueLabel: "test.q", fixHint: "refetch it"),
            message: "BUG DETECTED: a fault fired after its context was reset.")
        let violation = try #require(handler.violations.first)
        #expect(violation.kind == kind)
        #expect(violation.kind.rawValue == "fault-after-reset")
        #expect(violation.message == "BUG DETECTED: a fault fired after its context was reset.")
        #expect(violation.report.contains("fix:       refetch it"))
        #expect(violation.symbolicated().frames.first?.function?.contains("customKind") == true)
    }

    /// In a child process: turning checking off here would turn it off under the
    /// other suites that share this process.
    @Test("Checking off lets everything through, without a handler call")
    func off() async {
        await #expect(processExitsWith: .success) {
            let handler = CollectingHandler()
            ConcurrencyDebug.configure(.init(level: 0))
            ConcurrencyDebug.setViolationHandler(handler)
            let counter = QueueConfined(0, owner: QueueIdentity.makePrivate(label: "test.off"))
            DispatchQueue(label: "test.any").sync { counter.value = 3 }
            precondition(handler.violations.isEmpty && ConcurrencyDebug.level == 0)
        }
    }
}
