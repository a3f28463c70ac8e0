import ConcurrencyDebug
import ConcurrencyDebugTesting
import Foundation
import Synchronization
import TestSupport
import Testing

/// The Swift Testing expectations and the trait. Failures are checked with
/// `withKnownIssue(matching:)`: an issue that does not match, or no issue at all,
/// fails the test.
@Suite("ConcurrencyDebugTesting: Swift Testing", .serialized)
struct SwiftTestingExpectationTests {
    @Test("expectNoConcurrencyViolation passes a clean block and returns its value")
    func noViolationPasses() {
        let (value, owner) = makeConfined()
        let read = expectNoConcurrencyViolation { owner.sync { value.value + 1 } }
        #expect(read == 1)
    }

    @Test("expectNoConcurrencyViolation fails at the caller's line with the report")
    func noViolationFails() {
        let (value, _) = makeConfined()
        let expectedLine = line(of: "ST-NO-VIOLATION")
        withKnownIssue {
            expectNoConcurrencyViolation("counter") { touchFromAnotherQueue(value) }  // ST-NO-VIOLATION
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return issue.sourceLocation?.line == expectedLine
                && issue.sourceLocation?.fileName == "SwiftTestingExpectationTests.swift"
                && text.contains("expectNoConcurrencyViolation failed: 1 distinct concurrency violation (1 in all) - counter")
                && text.contains("BUG DETECTED: get of QueueConfined<Int>")
                && text.contains("Support.swift:\(line(of: "VIOLATING-ACCESS", in: supportFile))")
        }
        #expect(!processRecorded(value.name))
    }

    @Test("expectConcurrencyViolation passes on the expected kind and claims it")
    func expectedKindPasses() {
        let (value, _) = makeConfined()
        expectConcurrencyViolation(.wrongQueue) { touchFromAnotherQueue(value) }
        #expect(!processRecorded(value.name), "a claimed violation is not recorded for the process (report mode would not count it)")
    }

    @Test("expectConcurrencyViolation fails when the block makes none")
    func expectedKindMissing() {
        let (value, owner) = makeConfined()
        let expectedLine = line(of: "ST-NONE")
        withKnownIssue {
            expectConcurrencyViolation { owner.sync { _ = value.value } }  // ST-NONE
        } matching: { issue in
            issue.sourceLocation?.line == expectedLine
                && issue.comments.map(\.rawValue).joined().contains("expected a wrong-queue violation, but the block made no concurrency violation")
        }
    }

    @Test("expectConcurrencyViolation fails on another kind, and accepts kinds of your own")
    func otherKinds() {
        let (value, _) = makeConfined()
        let expectedLine = line(of: "ST-OTHER-KIND")
        withKnownIssue {
            expectConcurrencyViolation(.performOffQueue) { touchFromAnotherQueue(value) }  // ST-OTHER-KIND
        } matching: { issue in
            issue.sourceLocation?.line == expectedLine
                && issue.comments.map(\.rawValue).joined().contains("expected only perform-off-queue violations, but the block also made wrong-queue")
        }
        expectConcurrencyViolation("helper-custom-kind") {
            ConcurrencyDebug.reportViolation(
                kind: "helper-custom-kind",
                description: AccessDescription(operation: "fire fault", ownerQueueLabel: "helper.q", fixHint: "refetch it"))
        }
    }

    @Test("Scopes open at the same time, on threads of their own, see only their own violations")
    func parallelScopes() {
        // Barriers make every scope open before any violation, and keep all open until
        // every violation is made: a router that mixed them up would be caught.
        let count = 8
        let allOpen = DispatchGroup()
        let allMade = DispatchGroup()
        let done = DispatchGroup()
        for _ in 0..<count {
            allOpen.enter()
            allMade.enter()
            done.enter()
        }
        let seen = Mutex<[Int: Int]>([:])
        for index in 0..<count {
            Thread {
                let (value, owner) = makeConfined()
                let violations = withConcurrencyViolationsRecorded {
                    allOpen.leave()
                    allOpen.wait()
                    if index % 2 == 0 {
                        for _ in 0..<5 { touchFromAnotherQueue(value) }
                    } else {
                        owner.sync { value.value += 1 }
                    }
                    allMade.leave()
                    allMade.wait()
                }.violations
                seen.withLock { $0[index] = violations.totalCount }
                done.leave()
            }.start()
        }
        done.wait()
        let expected = Dictionary(uniqueKeysWithValues: (0..<count).map { ($0, $0 % 2 == 0 ? 5 : 0) })
        #expect(seen.withLock { $0 } == expected)
    }

    @Test("The async form counts child tasks' violations")
    func asyncChildTasks() async {
        let (value, _) = makeConfined()
        await expectConcurrencyViolation {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { touchFromAnotherQueue(value) }
            }
        }
    }

    @Test("The trait passes a clean test", .concurrencyChecked)
    func traitClean() {
        let (value, owner) = makeConfined()
        owner.sync { value.value = 3 }
    }

    @Test("Inside the trait, an expected violation is claimed by its expectation", .concurrencyChecked)
    func traitWithExpectedViolation() {
        let (value, _) = makeConfined()
        expectConcurrencyViolation { touchFromAnotherQueue(value) }
    }

    @Test("The trait fails the test on a violation, at the offending line in the test's file")
    func traitFails() async throws {
        let test = try #require(Test.current)
        let (value, _) = makeConfined()
        let expectedLine = line(of: "TRAIT-VIOLATION")
        try await withKnownIssue {
            try await ConcurrencyCheckedTrait().provideScope(for: test, testCase: nil) {
                DispatchQueue(label: "helper.trait-offender").sync {
                    _ = value.value  // TRAIT-VIOLATION
                }
            }
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return issue.sourceLocation?.line == expectedLine
                && issue.sourceLocation?.fileName == "SwiftTestingExpectationTests.swift"
                && text.contains("concurrency violation in a .concurrencyChecked test (1 time)")
                && text.contains("BUG DETECTED")
        }
    }

    @Test("Attribution .process sees work sent to other threads; .task does not (in a child process)")
    func attribution() async {
        // In a child process: a .process scope would also take the violations of tests
        // running next to it.
        await #expect(processExitsWith: .success) {
            let (value, _) = makeConfined()
            func offThread() {
                let done = DispatchSemaphore(value: 0)
                DispatchQueue.global().async {
                    _ = value.value
                    done.signal()
                }
                done.wait()
            }
            let process = withConcurrencyViolationsRecorded(attribution: .process) { offThread() }.violations
            let task = withConcurrencyViolationsRecorded(attribution: .task) { offThread() }.violations
            guard process.totalCount == 1, task.totalCount == 0 else {
                print("process: \(process.totalCount), task: \(task.totalCount)")
                exit(1)
            }
        }
    }
}
