import ConcurrencyDebugTesting
import ExploreModel
import Foundation
import ManagedContext
import Testing
import TestSupport

final class Counter: ManagedObject {
    @Attribute("value") var value: Int64? = 0
}

/// A store of one counter, on a real SQLite file in WAL mode.
final class CounterStack: Sendable {
    let directory = TempDirectory("explore")
    let coordinator: PersistentStoreCoordinator

    init() throws {
        coordinator = PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [Counter.self]))
        try coordinator.addPersistentStore(at: directory.file("Counter.sqlite"))
        let seed = context("seed")
        try seed.performAndWait {
            Counter(context: seed).value = 0
            try seed.save()
        }
    }

    func context(_ name: String) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.name = name
        context.mergePolicy = .mergeByPropertyObjectTrump
        return context
    }

    /// Reads the counter, adds one, saves: in one block (`perform`), so two of them on
    /// two contexts may both read the same value, and one increment is lost.
    func increment(on context: ManagedObjectContext) {
        context.perform {
            let counter = try! context.fetch(FetchRequest<Counter>()).first!
            counter.value = (counter.value ?? 0) + 1
            try! context.save()
        }
    }

    func value() throws -> Int64 {
        let reader = context("reader")
        return try reader.performAndWait { try reader.fetch(FetchRequest<Counter>()).first!.value ?? -1 }
    }
}

struct LostIncrement: Error, CustomStringConvertible {
    let value: Int64
    var description: String { "two increments left the counter at \(value)" }
}

/// Two contexts increment one counter read-modify-write: the FIFO schedule runs the
/// blocks one after the other and passes; a schedule that runs the second block's
/// fetch before the first block's save loses an increment.
@Sendable func lostUpdate() throws {
    let stack = try CounterStack()
    stack.increment(on: stack.context("a"))
    stack.increment(on: stack.context("b"))
    drain()
    let value = try stack.value()
    if value != 2 { throw LostIncrement(value: value) }
}

/// The fix: both increments go through one context's queue, which runs them in turn.
@Sendable func serializedUpdate() throws {
    let stack = try CounterStack()
    let shared = stack.context("shared")
    stack.increment(on: shared)
    stack.increment(on: shared)
    drain()
    let value = try stack.value()
    if value != 2 { throw LostIncrement(value: value) }
}

@Suite("explore: the in-process API", .serialized)
struct ExploreTests {
    let directory = TempDirectory("schedules")
    /// A generous hang timeout: tests run in parallel on a shared machine, and none of
    /// these bodies waits outside the runtime.
    var options: ExploreOptions { ExploreOptions(hangTimeout: 60, scheduleDirectory: directory.url) }

    @Test("a lost update between two contexts is found, minimized, replayed 3 of 3, and its file replays it")
    func findsMinimizesAndReplays() throws {
        let failed = try #require(throws: ExplorationFailed.self) {
            try explore(.pct(depth: 3), iterations: 200, seed: 7, options: options, name: "lost-update", lostUpdate)
        }
        let failure = failed.failure
        #expect(failure.kind == .assertion)
        #expect(failure.message.contains("left the counter at 1"), "\(failure.message)")
        #expect(failure.replaysConfirmed == 3 && failure.replaysAttempted == 3)
        #expect(failure.reproducible)
        #expect(!failure.schedule.deviations.isEmpty, "FIFO order passes, so some deviation is needed")
        #expect(failure.schedule.deviations.count <= failure.deviationsBeforeMinimizing)
        #expect(failure.deviationsInWords.count == failure.schedule.deviations.count)
        #expect(failure.schedule.steps.contains { $0.site?.contains("ExploreTests.swift") == true }, "steps name the app's lines")
        let path = try #require(failure.schedulePath)
        let file = try ScheduleFile.read(from: path)
        #expect(file.choices == failure.schedule.choices)
        #expect(failed.description.contains("3 of 3"), "\(failed.description)")
        // The file replays it exactly, again and again.
        for _ in 0..<3 {
            let again = try #require(throws: ExplorationFailed.self) {
                try explore(.replay(path), options: options, name: "replay", lostUpdate)
            }
            #expect(again.failure.kind == .assertion)
            #expect(again.failure.schedule.choices == file.choices)
        }
    }

    /// Issue 47: the in-process strategy skipped the checks `--strategy` makes, so
    /// `.pct(depth: 0)` trapped on a precondition and `depth: 100` ran.
    @Test("a strategy made in code is checked as --strategy checks it", arguments: [ExploreStrategy.pct(depth: 0), .pct(depth: 100), .delay(-1), .delay(33)])
    func strategyIsChecked(strategy: ExploreStrategy) {
        #expect {
            try explore(strategy, iterations: 1, name: "checked") {}
        } throws: { error in
            let spec = error as? StrategySpecError
            return spec?.description.contains("must be a whole number from") == true && spec?.text == strategy.description
        }
    }

    @Test("the fixed twin passes every schedule of the budget")
    func fixedTwinPasses() throws {
        let report = try explore(.pct(depth: 3), iterations: 100, seed: 7, options: options, name: "serialized", serializedUpdate)
        #expect(report.failure == nil)
        #expect(report.schedulesRun == 100)
    }

    @Test("delay:K runs every schedule within its bound, then stops")
    func delayIsExhaustive() throws {
        let report = try explore(.delay(0), iterations: 1_000, options: options, name: "fifo-only", serializedUpdate)
        #expect(report.exhausted)
        #expect(report.schedulesRun == 1, "delay:0 is the FIFO schedule alone")
        let wider = try explore(.delay(1), iterations: 1_000, options: options, name: "one-deviation", serializedUpdate)
        #expect(wider.exhausted)
        #expect(wider.schedulesRun > 1)
    }

    @Test("a replay of code that changed says where it diverged")
    func replayOfChangedCodeDiverges() throws {
        let failed = try #require(throws: ExplorationFailed.self) {
            try explore(.pct(depth: 3), iterations: 200, seed: 7, options: options, name: "lost-update", lostUpdate)
        }
        let path = try #require(failed.failure.schedulePath)
        let changed = try #require(throws: ExplorationFailed.self) {
            try explore(.replay(path), options: options, name: "changed") {
                let stack = try CounterStack()
                stack.increment(on: stack.context("only"))
                drain()
            }
        }
        #expect(changed.failure.kind == .diverged)
        #expect(changed.failure.message.contains("diverged at step"))
    }

    @Test("the running schedule's steps are on disk while it runs, so a crash leaves them behind")
    func runningScheduleIsLogged() throws {
        let log = directory.file("logged.running.log").path
        let seen = LockedStepCounts()
        try explore(.random, iterations: 3, seed: 3, options: options, name: "logged") {
            let stack = try CounterStack()
            stack.increment(on: stack.context("a"))
            drain()
            // Read mid-run, as a crash here would leave it.
            let assembled = try StepLog.assemble(Data(contentsOf: URL(fileURLWithPath: log)))
            seen.append(assembled.schedule.steps.count, finished: assembled.finished)
        }
        let counts = seen.values
        #expect(counts.count == 3)
        #expect(counts.allSatisfy { $0.steps > 0 && !$0.finished }, "\(counts)")
        #expect(!FileManager.default.fileExists(atPath: log), "a passing exploration leaves no log")
    }
}

final class LockedStepCounts: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [(steps: Int, finished: Bool)] = []
    func append(_ steps: Int, finished: Bool) { lock.lock(); counts.append((steps, finished)); lock.unlock() }
    var values: [(steps: Int, finished: Bool)] { lock.lock(); defer { lock.unlock() }; return counts }
}
