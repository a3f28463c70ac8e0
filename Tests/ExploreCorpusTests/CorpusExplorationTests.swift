import ConcurrencyDebugTesting
import ExploreCorpus
import ExploreModel
import Foundation
import Testing
import TestSupport

/// A small exploration of the corpus, so that CI keeps `explore` working end to end
/// (issue 26): a few bugs that plain runs never hit (0 of 200, Tests/ExploreCorpus/README.md)
/// are found within a small budget with a fixed seed, their failures replay 3 of 3,
/// and the fixed twins pass every schedule of the budget. The full measurement (every
/// case, 10,000 schedules) is `ctxdebug-explore-corpus explore-bench`, in docs/benchmarks.md.
@Suite("explore finds corpus bugs that plain runs miss")
struct CorpusExplorationTests {
    static let sample = [
        "merge-after-fetch", "temporary-id-handed-over", "find-or-create-duplicates", "perform-and-wait-deadlock",
        "refresh-drops-unsaved-edit", "clear-completed-deletes-unchecked-item",
    ]
    let directory = TempDirectory("corpus-schedules")
    /// Generous: cases run in parallel on a shared 2-core machine, and a hang here would
    /// be a false one (none of these cases waits outside the runtime).
    var options: ExploreOptions { ExploreOptions(hangTimeout: 120, scheduleDirectory: directory.url) }

    @Test("the bug is found, minimized and replayed", arguments: sample)
    func bugIsFound(name: String) throws {
        let c = try #require(corpusCase(named: name))
        let failed = try #require(throws: ExplorationFailed.self) {
            try explore(.portfolio, iterations: 300, seed: 1, options: options, name: name, c.bug)
        }
        #expect(failed.failure.kind == (c.deadlocks ? .deadlock : .assertion), "\(failed)")
        #expect(failed.failure.replaysConfirmed == 3, "\(failed)")
        let path = try #require(failed.failure.schedulePath)
        let again = try #require(throws: ExplorationFailed.self) {
            try explore(.replay(path), options: options, name: name, c.bug)
        }
        #expect(again.failure.kind == failed.failure.kind)
    }

    @Test("the fixed twin passes every schedule", arguments: sample)
    func twinPasses(name: String) throws {
        let c = try #require(corpusCase(named: name))
        let report = try explore(.portfolio, iterations: 100, seed: 1, options: options, name: name + "-fixed", c.fixed)
        #expect(report.failure == nil)
        #expect(report.schedulesRun == 100)
    }
}
