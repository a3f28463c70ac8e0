@_spi(Runtime) import ConcurrencyDebug
import CtxdebugHelpers
import Dispatch
import Foundation
import Testing
import ManagedContext

/// Each diagnostic with its bug (reported, with the right kind, text and hint)
/// and its correct twin (not reported). Each runs in a child process with
/// checking on in log mode and every kind turned on; the child checks what was
/// recorded. unsaved-ancestor, reported at exit, and missing-merge's plain-read
/// and batch forms are in DiagnosticsAtExitTests.
@Suite struct DiagnosticsTests {
    static let cases: [(scenario: String, kind: String?, says: String)] = [
        ("temporary-id", "temporary-id", "obtainPermanentIDs(for:)"),
        ("temporary-id-twin", nil, ""),
        ("cross-context", "cross-context-relationship", "different contexts"),
        ("cross-context-twin", nil, ""),
        ("stale-reset", "stale-object", "its context was reset"),
        ("stale-deleted", "stale-object", "deletion saved"),
        ("stale-twin", nil, ""),
        ("abandoned-insert", "abandoned-insert", "without any property set"),
        ("abandoned-insert-twin", nil, ""),
        ("missing-merge", "missing-merge", "the save's stack"),
        ("missing-merge-twin", nil, ""),
        ("lost-update", "lost-update", "silently overwrote"),
        ("lost-update-twin", nil, ""),
        ("main-queue-wait", "main-queue-wait", "the main queue waited"),
        ("main-queue-wait-twin", nil, ""),
        ("main-queue-io", "main-queue-io", "on the main-queue"),
        ("main-queue-io-twin", nil, ""),
        ("main-queue-io-slow", "main-queue-io", "on the main-queue"),
        ("main-queue-io-slow-twin", nil, ""),
    ]

    @Test(arguments: Self.cases.map(\.scenario))
    func diagnostic(scenario: String) async throws {
        let expected = Self.cases.first { $0.scenario == scenario }!
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) { [scenario = scenario as String] in
            ConcurrencyDebug.Variable.set([.concurrency: "1", .onViolation: "log", .diagnostics: "all", .mainQueueWait: "100", .missingMergeGrace: "0"])
            runDiagnosticScenario(scenario)
            let kinds = Set(ConcurrencyDebug.recordedViolations.map(\.kind.rawValue))
            let expected = DiagnosticsTests.cases.first { $0.scenario == scenario }!.kind
            if let expected {
                precondition(kinds == [expected], "expected exactly [\(expected)], recorded \(kinds.sorted())")
            } else {
                precondition(kinds.isEmpty, "expected none, recorded \(kinds.sorted())")
            }
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        if expected.kind != nil {
            #expect(stderr.contains("BUG DETECTED"), "\(stderr)")
            #expect(stderr.contains(expected.says), "\(stderr)")
            #expect(stderr.contains("fix:"), "a fix hint:\n\(stderr)")
        } else {
            #expect(!stderr.contains("BUG DETECTED"), "\(stderr)")
        }
    }
}

func runDiagnosticScenario(_ scenario: String) {
    let stack = try! TestStack()
    let a = stack.privateContext("A")
    let b = stack.privateContext("B")
    switch scenario {
    case "temporary-id", "temporary-id-twin":
        let id: ManagedObjectID = a.performAndWait {
            let s = Sample(context: a)
            s.name = "new"
            if scenario.hasSuffix("twin") { try! a.obtainPermanentIDs(for: [s]); try! a.save() }
            return s.objectID
        }
        b.performAndWait { _ = b.object(with: id) }
    case "cross-context", "cross-context-twin":
        let placeID: ManagedObjectID = a.performAndWait {
            let p = Place(context: a)
            p.title = "Rincon"
            try! a.save()
            return p.objectID
        }
        let place = a.performAndWait { a.object(with: placeID) as! Place }
        b.performAndWait {
            let visit = Visit(context: b)
            visit.note = "dawn patrol"
            if scenario.hasSuffix("twin") {
                visit.place = (b.object(with: placeID) as! Place)
                precondition(visit.place != nil)
            } else {
                nonisolated(unsafe) let foreign = place
                visit.place = foreign
                precondition(visit.place == nil, "the relationship must not be set")
            }
        }
    case "stale-reset", "stale-twin":
        a.performAndWait {
            let s = Sample(context: a)
            s.name = "x"
            try! a.save()
            let id = s.objectID
            a.reset()
            if scenario == "stale-twin" {
                precondition((a.object(with: id) as! Sample).name == "x")
            } else {
                _ = s.name
            }
        }
    case "stale-deleted":
        let id: ManagedObjectID = a.performAndWait {
            let s = Sample(context: a)
            s.name = "x"
            try! a.save()
            return s.objectID
        }
        let fault = b.performAndWait { b.object(with: id) }
        a.performAndWait {
            a.delete(a.object(with: id))
            try! a.save()
        }
        b.performAndWait { _ = (fault as! Sample).name }
    case "abandoned-insert", "abandoned-insert-twin":
        a.performAndWait {
            let s = Sample(context: a)
            if scenario.hasSuffix("twin") { s.name = "filled in" }
            try! a.save()
        }
    case "missing-merge", "missing-merge-twin":
        let seen: Sample = a.performAndWait {
            let s = Sample(context: a)
            s.name = "v1"
            try! a.save()
            return try! a.fetch(FetchRequest<Sample>()).first!
        }
        let id = a.performAndWait { seen.objectID }
        var changes = SaveChanges()
        b.performAndWait {
            (b.object(with: id) as! Sample).name = "v2"
            try! b.save()
            changes = SaveChanges(updated: [id])
        }
        let saved = changes
        a.performAndWait {
            if scenario.hasSuffix("twin") { a.mergeChanges(saved) }
            _ = try! a.fetch(FetchRequest<Sample>()).first!.name
            _ = seen
        }
    case "lost-update", "lost-update-twin":
        let id: ManagedObjectID = a.performAndWait {
            let s = Sample(context: a)
            s.name = "v0"
            try! a.save()
            return s.objectID
        }
        b.mergePolicy = .mergeByPropertyObjectTrump
        let inA = a.performAndWait { a.object(with: id) as! Sample }
        let inB = b.performAndWait { b.object(with: id) as! Sample }
        a.performAndWait { _ = inA.name }
        b.performAndWait { _ = inB.name }
        a.performAndWait {
            inA.name = "from A"
            try! a.save()
        }
        b.performAndWait {
            if scenario.hasSuffix("twin") { inB.small = 3 } else { inB.name = "from B" }
            try! b.save()
        }
    case "main-queue-wait", "main-queue-wait-twin":
        // The diagnostics' clock moves only when told: the wait is 500 ms because the
        // test says so, however loaded the machine.
        MonotonicClock.useManualClock()
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        if !scenario.hasSuffix("twin") {
            a.perform {
                started.signal()
                release.wait()
            }
            started.wait()
        }
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.main.async {
            a.performAndWait { _ = a.hasChanges }
            done.signal()
        }
        if !scenario.hasSuffix("twin") {
            // Once the main queue is blocked on A, 500 ms pass; then A's block ends.
            while !WaitForGraph.isWaiting(.main) { sched_yield() }
            MonotonicClock.advance(by: 500_000_000)
            release.signal()
        }
        precondition(done.wait(timeout: .now() + 60) == .success, "the main queue is not serviced")
    case "main-queue-io", "main-queue-io-twin", "main-queue-io-slow", "main-queue-io-slow-twin":
        // Rows: a clock that never moves keeps the time threshold (16 ms) out of reach.
        // Time: every clock read moves it by 20 ms (over the threshold) or 5 ms (under),
        // so a fetch of a few rows takes exactly that long.
        let slow = scenario.contains("slow")
        let step: UInt64 = !slow ? 0 : scenario.hasSuffix("twin") ? 5_000_000 : 20_000_000
        MonotonicClock.useManualClock(advancingEachReadBy: step)
        a.performAndWait {
            for i in 0..<(slow || scenario.hasSuffix("twin") ? 10 : 3000) { Sample(context: a).large = Int64(i) }
            try! a.save()
        }
        let view = ManagedObjectContext(concurrencyType: .mainQueue)
        view.persistentStoreCoordinator = stack.coordinator
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.main.async {
            _ = try! view.fetch(FetchRequest<Sample>()).count
            done.signal()
        }
        precondition(done.wait(timeout: .now() + 60) == .success, "the main queue is not serviced")
    default:
        preconditionFailure("unknown scenario \(scenario)")
    }
}
