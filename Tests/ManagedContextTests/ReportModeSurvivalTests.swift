import ConcurrencyDebug
import Dispatch
import Foundation
import ManagedContext
import TestSupport
import Testing

/// Issue 25, part 1: report mode survives the misuse it reports. Report and log modes
/// promise that the program goes on and the report is written at exit, so after a
/// wrong-queue access the runtime's own bookkeeping (a context's change sets and
/// registry, the objects' values, the row cache) must stay whole: the user's data may
/// race, the runtime's must not.
///
/// Each run is one child process (a Swift Testing exit test) in report mode: 4 to 8
/// global-queue blocks at once insert, update, delete, fetch and save, without
/// `perform`, on one private context and on the view context, while the contexts' own
/// queues do the same work the right way. The child then saves what is left properly
/// and writes down the rows it expects. Every run must end with exit status 66 (no
/// crash), a JSON report written by the real exit path that names each violating line
/// of this file, and a store that opens in a fresh container with every saved row as
/// the child left it. 200 runs, each its own process and its own report: 8 batches run
/// side by side, each 25 runs one after another, so that no more than 8 children load
/// this shared machine at once.
@Suite struct ReportModeSurvivalTests {
    static let batches = 0..<8
    static let runsPerBatch = 25

    @Test("Report mode: racing global-queue blocks on a private and the view context never crash or tear the runtime", arguments: batches)
    func racingBlocksInReportMode(batch: Int) async throws {
        var reports = 0
        for run in batch * Self.runsPerBatch..<(batch + 1) * Self.runsPerBatch {
            if try await oneRun(run) { reports += 1 }
        }
        #expect(reports == Self.runsPerBatch, "every run writes its report")
    }

    /// One run, checked; true when it wrote its report. A failed run is recorded and
    /// the batch goes on, so that the count of failures is seen.
    private func oneRun(_ run: Int) async throws -> Bool {
        let dir = TempDirectory()
        let reportPath = dir.file("report.json").path
        let stderrPath = dir.file("stderr.txt").path
        let directory = dir.url.path
        await #expect(processExitsWith: .exitCode(66), "run \(run) crashed or did not report") {
            [run = run as Int, directory = directory as String, reportPath = reportPath as String, stderrPath = stderrPath as String] in
            stressChild(run: run, directory: directory, reportPath: reportPath, stderrPath: stderrPath)
        }
        let stderr = String(decoding: fileBytes(URL(fileURLWithPath: stderrPath)), as: UTF8.self)
        // The report, written at exit, names every violating line of this file.
        guard let reportData = try? Data(contentsOf: URL(fileURLWithPath: reportPath)) else {
            Issue.record("run \(run) wrote no report:\n\(stderr.suffix(3000))")
            return false
        }
        let report = try JSONDecoder().decode(ViolationReportFile.self, from: reportData)
        // The first frame of this file in each stack: the line that made the access (an
        // insert's stack has the model class's initializer, in Support.swift, above it).
        let lines = Set(report.violations.compactMap { violation in
            violation.userFrames.first { $0.file?.hasSuffix("ReportModeSurvivalTests.swift") == true }?.line
        })
        for marker in StressMarker.allCases {
            let line = sourceLine(of: marker.marker)
            #expect(lines.contains(line), "run \(run): the report does not name \(marker.marker) at line \(line); it names \(lines.sorted())")
        }
        // The store opens, and holds every row the child saved, as it saved it.
        guard let expected = try? JSONDecoder().decode([String: Int64].self, from: Data(contentsOf: dir.file("expected.json"))) else {
            Issue.record("run \(run) did not finish its final saves:\n\(stderr.suffix(3000))")
            return true
        }
        let found = try savedRows(in: dir.file("Stress.sqlite"))
        #expect(found == expected, "run \(run): the store differs from the rows saved (\(found.count) rows, \(expected.count) expected):\n\(stderr.split(separator: "\n").filter { !$0.hasPrefix(" ") && !$0.hasPrefix("[") && !$0.hasPrefix("ctxdebug: BUG") }.joined(separator: "\n").prefix(3000))")
        return true
    }

    /// Every `Sample` row of the store at `url`, opened in a fresh container: name → `large`.
    private func savedRows(in url: URL) throws -> [String: Int64] {
        let container = PersistentContainer(name: "Stress", managedObjectModel: testModel, storeURL: url)
        try container.loadPersistentStores()
        defer { container.persistentStoreCoordinator.removePersistentStore() }
        let context = container.viewContext
        return try context.performAndWait {
            var rows: [String: Int64] = [:]
            for sample in try context.fetch(FetchRequest<Sample>()) {
                rows[sample.name ?? "(nil)"] = sample.large ?? -1
            }
            return rows
        }
    }
}

/// The lines of the stress child that touch a context from the wrong queue.
enum StressMarker: String, CaseIterable {
    case insert = "INSERT", update = "UPDATE", delete = "DELETE", fetch = "FETCH", save = "SAVE"

    /// The comment that marks the line (built here, so that this line holds none).
    var marker: String { "STRESS-" + rawValue }
}

// The child's body lives outside `#expect`, so that debug info gives its lines in
// this file.

/// One run: the racing blocks, then the final saves, then the rows expected in the store.
private func stressChild(run: Int, directory: String, reportPath: String, stderrPath: String) {
    let fd = open(stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    dup2(fd, 2)
    close(fd)
    for variable in [ConcurrencyDebug.Variable.diagnostics, .reportDirectory, .journal, .suppressions, .exitCode] {
        variable.unset()
    }
    ConcurrencyDebug.Variable.set([.concurrency: "1", .onViolation: "report", .report: reportPath])
    let container = PersistentContainer(
        name: "Stress", managedObjectModel: testModel, storeURL: URL(fileURLWithPath: directory).appendingPathComponent("Stress.sqlite"))
    try! container.loadPersistentStores()
    let contexts = [container.newBackgroundContext(), container.viewContext]
    let workers = 4 + run % 5
    let ledgers = (0..<workers + 2).map { _ in StressLedger() }
    let group = DispatchGroup()
    for worker in 0..<workers {
        let context = contexts[worker % 2]
        let ledger = ledgers[worker]
        DispatchQueue.global().async(group: group) {
            wrongQueueWork(context, worker: worker, ledger: ledger)
        }
    }
    // The owners' own work at the same time, the right way.
    for (index, context) in contexts.enumerated() {
        let ledger = ledgers[workers + index]
        group.enter()
        context.perform {
            rightQueueWork(context, worker: workers + index, ledger: ledger)
            group.leave()
        }
    }
    group.wait()
    for context in contexts {
        context.performAndWait {
            do { try context.save() } catch { fatalError("the final save of \(context) failed: \(error)") }
        }
    }
    var expected: [String: Int64] = [:]
    for ledger in ledgers { expected.merge(ledger.rows) { $1 } }
    let data = try! JSONEncoder().encode(expected)
    try! data.write(to: URL(fileURLWithPath: directory).appendingPathComponent("expected.json"))
}

/// What one worker left in its context: its objects' names and final values, without
/// the ones it deleted. Each worker has its own, so the test's own record never races.
final class StressLedger: @unchecked Sendable {  // touched by one worker, read after the group's wait
    var rows: [String: Int64] = [:]
}

/// Inserts, updates, deletes, fetches and saves on `context` from a global queue: every
/// call is a wrong-queue access, reported and gone on from.
private func wrongQueueWork(_ context: ManagedObjectContext, worker: Int, ledger: StressLedger) {
    var kept: [Sample] = []
    for step in 0..<12 {
        let sample = Sample(context: context)  // STRESS-INSERT
        let name = "w\(worker)-\(step)"
        sample.name = name  // STRESS-UPDATE
        sample.large = Int64(step)
        if step % 3 == 2 {
            context.delete(sample)  // STRESS-DELETE
        } else {
            kept.append(sample)
            ledger.rows[name] = Int64(step)
        }
        _ = try? context.fetch(FetchRequest<Sample>())  // STRESS-FETCH
        if step % 4 == 3 {
            _ = try? context.save()  // STRESS-SAVE
            if let first = kept.first {
                first.large = (first.large ?? 0) + 100
                ledger.rows[first.name!] = first.large
            }
        }
    }
    if let last = kept.popLast() {
        ledger.rows[last.name!] = nil
        context.delete(last)
    }
}

/// The same work inside the context's own perform block.
private func rightQueueWork(_ context: ManagedObjectContext, worker: Int, ledger: StressLedger) {
    for step in 0..<12 {
        let sample = Sample(context: context)
        let name = "w\(worker)-\(step)"
        sample.name = name
        sample.large = Int64(step)
        ledger.rows[name] = Int64(step)
        _ = try? context.fetch(FetchRequest<Sample>())
        if step % 4 == 3 { _ = try? context.save() }
    }
}
