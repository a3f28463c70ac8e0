import CtxdebugHelpers
import Foundation
import GRDB
@_spi(Runtime) import ManagedContext
import ConcurrencyDebug
import Synchronization
import Testing
import TestSupport

/// Stress (issue 9, docs/reliability.md): 36 contexts — a main-queue context, private
/// contexts on the coordinator, and children of both — do random fetches, inserts,
/// updates, deletes, saves, resets and automatic merges for a bounded time. A watchdog
/// fails the run with every worker's last step and all thread stacks if progress
/// stops. At the end, every context agrees with the store.
///
/// Runs for `STRESS_SECONDS` (default 3) in the normal suite; Scripts/tsan-stress runs
/// it longer under ThreadSanitizer.
@Suite("Reliability: stress", .serialized)
struct StressTests {
    static let seconds = Double(ProcessInfo.processInfo.environment["STRESS_SECONDS"] ?? "") ?? 3
    static let minimumOperations = 10
    static let rootPrivateCount = 23
    static let childrenOfMain = 6
    static let childrenOfPrivate = 6

    /// What every worker did, for the summary and the watchdog.
    final class Progress: Sendable {
        let operations = Atomic<Int>(0)
        let counts = AnnotatedMutex<[String: Int]>([:])
        let lastStep: AnnotatedMutex<[String]>
        let failedSaves = AnnotatedMutex<[String: Int]>([:])
        let problems = AnnotatedMutex<[String]>([])
        /// The longest operation, in seconds, by kind of context.
        let slowest = AnnotatedMutex<[String: Double]>([:])

        init(workers: Int) { lastStep = AnnotatedMutex(Array(repeating: "not started", count: workers)) }

        func step(_ worker: Int, _ what: String) { lastStep.withLock { $0[worker] = what } }
        func done(_ what: String) {
            operations.add(1, ordering: .relaxed)
            counts.withLock { $0[what, default: 0] += 1 }
        }
        func problem(_ text: String) { problems.withLock { if $0.count < 20 { $0.append(text) } } }
    }

    /// Fails the test with all thread stacks (through gdb when it is there) when the
    /// operation count stops moving for `limit` seconds, then stops the process: a
    /// deadlocked test would otherwise hang CI.
    final class Watchdog: Sendable {
        let stop = Atomic<Bool>(false)
        /// Set while the test awaits the workers' group: resuming needs a thread of the
        /// cooperative pool, which other tests in the process may hold for a while, so
        /// that wait is not a stall of the runtime.
        let paused = Atomic<Bool>(false)
        let stalled = Atomic<Bool>(false)

        func start(_ progress: Progress, limit: Double) {
            Thread.detachNewThread { [self] in
                var last = progress.operations.load(ordering: .relaxed)
                var quietSince = Date()
                while !stop.load(ordering: .relaxed) {
                    usleep(100_000)
                    let now = progress.operations.load(ordering: .relaxed)
                    if now != last {
                        last = now
                        quietSince = Date()
                    } else if paused.load(ordering: .relaxed) {
                        quietSince = Date()
                    } else if Date().timeIntervalSince(quietSince) > limit {
                        stalled.store(true, ordering: .relaxed)
                        var report = "StressTests: no progress for \(limit) s — deadlock? Last step of each worker:\n"
                        for (i, step) in progress.lastStep.withLock({ $0 }).enumerated() { report += "  worker \(i): \(step)\n" }
                        FileHandle.standardError.write(Data(report.utf8))
                        Self.dumpStacks()
                        Issue.record(Comment(rawValue: report))
                        // The workers cannot be unblocked; end the run instead of hanging it.
                        fatalError("StressTests watchdog: no progress for \(limit) s")
                    }
                }
            }
        }

        static func dumpStacks() {
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb") else {
                FileHandle.standardError.write(Data("(install gdb for all thread stacks)\n".utf8))
                return
            }
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/gdb")
            p.arguments = ["-p", "\(getpid())", "-batch", "-nx", "-ex", "thread apply all bt 30"]
            p.standardOutput = FileHandle.standardError
            p.standardError = FileHandle.standardError
            try? p.run()
            p.waitUntilExit()
        }
    }

    struct Actor {
        let context: ManagedObjectContext
        let kind: String
    }

    static func makeContexts(_ stack: TestStack) -> [Actor] {
        var actors: [Actor] = []
        let main = ManagedObjectContext(concurrencyType: .mainQueue)
        main.persistentStoreCoordinator = stack.coordinator
        main.name = "main"
        actors.append(Actor(context: main, kind: "main"))
        for i in 0..<rootPrivateCount {
            let c = stack.privateContext("private-\(i)")
            actors.append(Actor(context: c, kind: "private"))
        }
        for i in 0..<childrenOfMain {
            let c = ManagedObjectContext(concurrencyType: i % 2 == 0 ? .privateQueue : .mainQueue)
            c.parent = main
            c.name = "main-child-\(i)"
            actors.append(Actor(context: c, kind: "child"))
        }
        for i in 0..<childrenOfPrivate {
            let c = ManagedObjectContext(concurrencyType: .privateQueue)
            c.parent = actors[1 + i].context
            c.name = "private-child-\(i)"
            actors.append(Actor(context: c, kind: "child"))
        }
        for a in actors {
            a.context.mergePolicy = .mergeByPropertyObjectTrump
            a.context.automaticallyMergesChangesFromParent = true
        }
        return actors
    }

    /// One random operation on `context`, on its queue.
    static func randomOperation(_ worker: Int, _ context: ManagedObjectContext, _ rng: inout SplitMix, _ progress: Progress) {
        let dice = Int.random(in: 0..<100, using: &rng)
        let n = Int.random(in: 0..<1_000_000, using: &rng)
        let began = DispatchTime.now().uptimeNanoseconds
        defer {
            let took = Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9
            let what = "\(context.concurrencyType == .mainQueue ? "main" : "private")\(context.parent == nil ? "" : " child")"
            progress.slowest.withLock { if took > $0[what, default: 0] { $0[what] = took } }
        }
        context.performAndWait {
            switch dice {
            case 0..<30:
                progress.step(worker, "fetch")
                let threshold = Int16(n % 10)
                var request = FetchRequest<Sample>(predicate: .attribute("small", .greaterOrEqual, threshold))
                request.fetchLimit = 20
                request.sortDescriptors = [FetchSortDescriptor(key: "medium", ascending: n % 2 == 0)]
                do {
                    let found = try context.fetch(request)
                    for s in found where s.isDeleted == false && (s.small ?? 0) < threshold {
                        progress.problem("\(context.name ?? ""): fetched small \(s.small ?? -1) for small >= \(threshold)")
                    }
                    progress.done("fetch")
                } catch {
                    progress.problem("\(context.name ?? ""): fetch failed: \(error)")
                }
            case 30..<50:
                progress.step(worker, "insert")
                for k in 0..<(1 + n % 3) {
                    let s = Sample(context: context)
                    s.name = "\(context.name ?? "?")-\(n)-\(k)"
                    s.small = Int16(n % 10)
                    s.medium = Int32(n % 1000)
                }
                progress.done("insert")
            case 50..<65:
                progress.step(worker, "update")
                var request = FetchRequest<Sample>()
                request.fetchLimit = 3
                request.fetchOffset = n % 40
                if let found = try? context.fetch(request) {
                    for s in found where !s.isDeleted {
                        s.small = Int16(n % 10)
                        s.medium = Int32(n % 1000)
                    }
                }
                progress.done("update")
            case 65..<72:
                progress.step(worker, "delete")
                var request = FetchRequest<Sample>()
                request.fetchLimit = 1
                request.fetchOffset = n % 60
                if let found = try? context.fetch(request), let victim = found.first, !victim.isDeleted {
                    context.delete(victim)
                }
                progress.done("delete")
            case 72..<92:
                progress.step(worker, "save")
                do {
                    try context.save()
                    progress.done("save")
                } catch {
                    let code = (error as? ManagedContextError)?.code.description ?? "\(error)"
                    progress.failedSaves.withLock { $0[code, default: 0] += 1 }
                    context.rollback()
                    progress.done("save failed")
                }
            case 92..<96:
                progress.step(worker, "count")
                _ = try? context.count(for: FetchRequest<Sample>())
                progress.done("count")
            case 96..<98:
                progress.step(worker, "rollback")
                context.rollback()
                progress.done("rollback")
            default:
                progress.step(worker, "reset")
                context.reset()
                progress.done("reset")
            }
        }
        progress.step(worker, "between operations")
    }

    @Test("36 contexts doing random work: no deadlock, no lost consistency, every context agrees with the store")
    func randomWork() async throws {
        let stack = try TestStack()
        let actors = Self.makeContexts(stack)
        #expect(actors.count >= 32)
        let progress = Progress(workers: actors.count)
        let watchdog = Watchdog()
        // 60 s: on two cores shared with the rest of the suite, a context's queue can
        // wait that long for a thread without anything being stuck.
        watchdog.start(progress, limit: max(60, Self.seconds))
        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        let deadline = Date().addingTimeInterval(Self.seconds)
        let started = Date()

        let group = DispatchGroup()
        for (i, actor) in actors.enumerated() {
            group.enter()
            let context = actor.context
            Thread.detachNewThread {
                var rng = SplitMix(state: seed &+ UInt64(i) &* 0x1234_5678)
                // At least `minimumOperations` each, however loaded the machine is, then
                // on until the deadline: the work done never depends on its speed.
                var done = 0
                while done < Self.minimumOperations || Date() < deadline {
                    Self.randomOperation(i, context, &rng, progress)
                    done += 1
                }
                group.leave()
            }
        }
        group.notify(queue: .global()) { watchdog.paused.store(true, ordering: .relaxed) }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            group.notify(queue: .global()) { c.resume() }
        }
        watchdog.paused.store(false, ordering: .relaxed)
        let workSeconds = Date().timeIntervalSince(started)

        // Settle: children save into their parents, then everything saves to the store.
        // A save refused by a conflict is rolled back (the store wins).
        for actor in actors.reversed() {
            actor.context.performAndWait {
                do { try actor.context.save() } catch { actor.context.rollback() }
            }
        }
        for actor in actors where actor.kind != "child" {
            actor.context.performAndWait {
                do { try actor.context.save() } catch { actor.context.rollback() }
            }
        }
        // Let the automatic merges queued by those saves run: a performAndWait on each
        // context runs after what is already queued on it, twice to cover merges that
        // queue further merges (parent into child).
        for _ in 0..<2 {
            for actor in actors { actor.context.performAndWait {} }
        }
        watchdog.stop.store(true, ordering: .relaxed)

        let store = try stack.rawRead { db in
            try Row.fetchAll(db, sql: "SELECT Z_PK, ZNAME, ZSMALL, ZMEDIUM FROM ZSAMPLE ORDER BY Z_PK").map {
                "\($0[0] as Int64) \($0[1] as String? ?? "nil") \($0[2] as Int64? ?? -1) \($0[3] as Int64? ?? -1)"
            }
        }
        let integrity = try stack.rawRead { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        #expect(integrity == ["ok"])
        var disagreeing: [String] = []
        for actor in actors {
            let seen: [String] = try actor.context.performAndWait {
                #expect(!actor.context.hasChanges, "\(actor.context.name ?? ""): changes left after the settle")
                return try actor.context.fetch(FetchRequest<Sample>(sortDescriptors: [])).map {
                    "\($0.objectID.primaryKey ?? -1) \($0.name ?? "nil") \(Int64($0.small ?? -1)) \(Int64($0.medium ?? -1))"
                }.sorted { Int64($0.split(separator: " ")[0])! < Int64($1.split(separator: " ")[0])! }
            }
            if seen != store {
                let missing = Set(store).subtracting(seen).sorted().prefix(3)
                let extra = Set(seen).subtracting(store).sorted().prefix(3)
                disagreeing.append("\(actor.context.name ?? "") (\(seen.count) rows vs \(store.count)): store-only \(Array(missing)), context-only \(Array(extra))")
            }
        }
        #expect(disagreeing.isEmpty, "contexts that disagree with the store:\n\(disagreeing.joined(separator: "\n"))")
        let problems = progress.problems.withLock { $0 }
        #expect(problems.isEmpty, "\(problems)")
        // Conflicts are expected under this much contention; anything else is a bug.
        let failed = progress.failedSaves.withLock { $0 }
        #expect(failed.keys.allSatisfy { $0 == "merge-conflict" }, "saves failed with: \(failed)")
        let stalled = watchdog.stalled.load(ordering: .relaxed)
        #expect(!stalled)

        let counts = progress.counts.withLock { $0 }
        let total = progress.operations.load(ordering: .relaxed)
        print(
            "stress: \(actors.count) contexts for \(String(format: "%.1f", workSeconds)) s: \(total) operations "
                + counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                + "; failed saves \(failed); \(store.count) rows in the store at the end; slowest operation by context kind "
                + progress.slowest.withLock { $0 }.sorted { $0.key < $1.key }.map { "\($0.key) \(String(format: "%.2f", $0.value)) s" }.joined(separator: ", "))
        #expect(total >= actors.count * Self.minimumOperations, "operations lost from the count: \(total)")
    }
}

/// The runtime's own lock, which tells ThreadSanitizer about itself (Mutex waits on
/// futexes, which ThreadSanitizer does not see), so the test's counters are not reported.
typealias AnnotatedMutex = LockedValue
