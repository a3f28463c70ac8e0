import ExploreCorpus
import Foundation
import Testing
import TestSupport

/// The corpus of ordering-dependent bugs (issue 26, item 10): its list, its fixed twins in
/// plain runs, and each bug in its bad order, forced by hand. (Exploring the corpus with
/// the scheduler is tested where the scheduler is.)
@Suite struct CorpusListTests {
    @Test func theCorpusHasTwentyCasesWithDistinctNamesAndASummaryEach() {
        #expect(exploreCorpus.count >= 20)
        #expect(Set(exploreCorpus.map(\.name)).count == exploreCorpus.count, "names are unique")
        for c in exploreCorpus {
            #expect(!c.summary.isEmpty && !c.summary.contains("\n"), "\(c.name): a one-line summary")
            #expect(!c.fix.isEmpty && !c.fix.contains("\n"), "\(c.name): a one-line fix")
            #expect(c.name.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" }, "\(c.name): kebab-case")
            #expect(corpusCase(named: c.name)?.name == c.name)
        }
    }

    /// The issue's list: merges against fetches, two saves under each merge policy, a
    /// temporary ID handed over, reset while a block holds objects, check-then-insert
    /// duplicates, a performAndWait deadlock, refresh dropping an edit, a child saved into
    /// a reset parent.
    @Test func theCorpusCoversTheIssuesList() {
        let kinds = Set(exploreCorpus.map(\.kind))
        for kind in [CorpusKind.mergeVersusFetch, .mergePolicy, .temporaryID, .reset, .duplicateInsert, .deadlock, .refresh, .parentChild] {
            #expect(kinds.contains(kind), "no case of kind \(kind)")
        }
        let policies = exploreCorpus.filter { $0.kind == .mergePolicy }.map(\.name)
        for policy in ["error", "object-trump", "store-trump", "overwrite", "rollback"] {
            #expect(policies.contains { $0.contains(policy) }, "no merge-policy case for \(policy)")
        }
        #expect(exploreCorpus.contains { $0.name == "child-saved-into-reset-parent" })
        #expect(exploreCorpus.filter(\.deadlocks).allSatisfy { $0.kind == .deadlock })
    }

    /// Admission: a bug is in the corpus only if plain runs hit it in fewer than 5% of
    /// 200 runs; each case records its measured rate as "hits/200".
    @Test func everyRecordedPlainHitRateIsUnderFivePercentOf200Runs() throws {
        for c in exploreCorpus {
            let parts = c.plainHitRate.split(separator: "/").compactMap { Int($0) }
            try #require(parts.count == 2, "\(c.name): '\(c.plainHitRate)' is not hits/runs")
            #expect(parts[1] == 200, "\(c.name): measured over \(parts[1]) runs")
            #expect(parts[0] * 20 < parts[1], "\(c.name): \(c.plainHitRate) is not under 5%")
        }
    }
}

@Suite struct CorpusRunTests {
    static let names = exploreCorpus.map(\.name)
    static let invariantCases = exploreCorpus.filter { !$0.deadlocks }.map(\.name)
    static let deadlockCases = exploreCorpus.filter(\.deadlocks).map(\.name)

    @Test("the fixed twin passes plain runs", arguments: names)
    func theFixedTwinPassesPlainRuns(name: String) async throws {
        let c = try #require(corpusCase(named: name))
        for _ in 0..<3 {
            let error = await onOwnThread(c.fixed)
            #expect(error == nil, "\(name) (fixed): \(error.map { "\($0)" } ?? "")")
        }
    }

    /// Each bug, with its racing step forced (by semaphores) to go first, breaks its
    /// invariant: the detector works and the bad order is the one the case names.
    @Test("the bug breaks its invariant in its bad order", arguments: invariantCases)
    func theBugBreaksItsInvariantInItsBadOrder(name: String) async throws {
        let c = try #require(corpusCase(named: name))
        let error = await onOwnThread(c.forcedBug)
        #expect(error is CorpusInvariantBroken, "\(name) (forced): \(error.map { "\($0)" } ?? "no error")")
    }

    /// A deadlock cannot be caught in this process: the runner runs it in a child, whose
    /// watchdog reports the hang (exit status 2).
    @Test("the deadlock hangs in its bad order", arguments: deadlockCases)
    func theDeadlockHangsInItsBadOrder(name: String) throws {
        let run = try ChildProcess(Runner.path, ["run", name, "--forced", "--timeout", "2"]).wait(timeout: 60)
        #expect(run.status == 2 && !run.signaled, "\(run)")
        #expect(run.stdout.contains("deadlock/hang"), "\(run.stdout)")
    }

    /// With the checker on, its wait-for graph names the deadlock of the forced order.
    @Test("the checker reports the deadlock of the forced order", arguments: deadlockCases)
    func theCheckerReportsTheDeadlock(name: String) throws {
        let run = try ChildProcess(Runner.path, ["run", name, "--forced", "--timeout", "20"], environment: ["CTXDEBUG_CONCURRENCY": "1"])
            .wait(timeout: 60)
        #expect(run.signaled && run.status == SIGTRAP, "\(run)")
        #expect(run.stderr.contains("BUG DETECTED: deadlock"), "\(run.stderr)")
    }
}

/// Runs a corpus body on a thread of its own (bodies wait on the main queue, which the
/// test process serves) and returns what it threw.
func onOwnThread(_ body: @escaping @Sendable () throws -> Void) async -> (any Error)? {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            do {
                try body()
                continuation.resume(returning: nil)
            } catch {
                continuation.resume(returning: error)
            }
        }
    }
}

enum Runner {
    static let path = BuiltProducts.directory.appendingPathComponent("ctxdebug-explore-corpus").path
}
