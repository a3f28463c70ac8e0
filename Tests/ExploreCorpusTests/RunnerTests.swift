import ExploreCorpus
import Foundation
import Testing
import TestSupport

/// `ctxdebug-explore-corpus`, through its binary.
@Suite struct RunnerTests {
    @Test func listPrintsEveryCaseWithItsKindRateAndSummary() throws {
        let run = try ChildProcess(Runner.path, ["list"]).wait(timeout: 60)
        #expect(run.status == 0, "\(run)")
        let lines = run.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        #expect(lines.map { $0[0] } == exploreCorpus.map(\.name))
        for (fields, c) in zip(lines, exploreCorpus) {
            #expect(fields == [c.name, c.kind.rawValue, c.plainHitRate, c.summary])
        }
    }

    @Test func runCountsHitsAndExitsWithTheVerdict() throws {
        let fixed = try ChildProcess(Runner.path, ["run", "merge-after-fetch", "--fixed", "--times", "3"]).wait(timeout: 60)
        #expect(fixed.status == 0, "\(fixed)")
        #expect(fixed.stdout.contains("merge-after-fetch (fixed): 0 of 3 runs hit the bug"), "\(fixed.stdout)")
        #expect(fixed.stdout.hasSuffix("result: runs=3 hits=0\n"), "\(fixed.stdout)")
        let forced = try ChildProcess(Runner.path, ["run", "merge-after-fetch", "--forced", "--times", "2"]).wait(timeout: 60)
        #expect(forced.status == 1, "\(forced)")
        #expect(forced.stdout.contains("first hit: invariant broken: the header says 1 done but 0 rows show done"), "\(forced.stdout)")
        #expect(forced.stdout.hasSuffix("result: runs=2 hits=2\n"), "\(forced.stdout)")
    }

    @Test func runRejectsAnUnknownCaseAndNamesTheCases() throws {
        let run = try ChildProcess(Runner.path, ["run", "no-such-case"]).wait(timeout: 60)
        #expect(run.status != 0)
        #expect(run.stderr.contains("no case named 'no-such-case'") && run.stderr.contains("merge-after-fetch"), "\(run.stderr)")
    }

    /// `measure` runs each case in children, and a hang costs one run: the forced
    /// deadlock is not what `measure` runs, so a plain deadlock case reports its hangs
    /// in the hangs column (usually 0) and goes on to the end.
    @Test func measurePrintsATableRow() throws {
        let run = try ChildProcess(Runner.path, ["measure", "--runs", "3", "--cases", "merge-after-fetch,perform-and-wait-deadlock"])
            .wait(timeout: 120)
        let rows = run.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        #expect(rows.first == ["case", "hits", "runs", "rate", "hangs", "recorded"], "\(run.stdout)")
        #expect(rows.dropFirst().map { $0.first } == ["merge-after-fetch", "perform-and-wait-deadlock"], "\(run.stdout)")
        #expect(rows.dropFirst().allSatisfy { $0.count == 6 && $0[2] == "3" }, "\(run.stdout)")
    }
}

/// Tests/ExploreCorpus/README.md's table is `list --markdown`: the recorded rates, the
/// summaries and the fixes there are the code's.
@Suite struct ReadmeTests {
    @Test func theReadmesTableIsTheListsMarkdown() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../ExploreCorpus/README.md").standardizedFileURL
        let text = try String(contentsOf: readme, encoding: .utf8)
        let run = try ChildProcess(Runner.path, ["list", "--markdown"]).wait(timeout: 60)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.split(separator: "\n").count == exploreCorpus.count + 2)
        #expect(text.contains(run.stdout), "regenerate the table with `ctxdebug-explore-corpus list --markdown`")
    }
}

/// Without the head start (`--batch-size 0`, what an exploration may use for speed), the
/// bodies still run and every fixed twin still holds: the head start only makes the
/// harmless order likely, it is not what makes a twin correct.
@Suite struct WithoutHeadStartTests {
    @Test func everyFixedTwinHoldsWithBatchSizeZero() throws {
        let run = try ChildProcess(Runner.path, ["measure", "--fixed", "--runs", "3", "--batch-size", "0"]).wait(timeout: 600)
        #expect(run.status == 0, "\(run.stdout)")
        let rows = run.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: "\t").map(String.init) }
        #expect(rows.map { $0[0] } == exploreCorpus.map(\.name))
        #expect(rows.allSatisfy { $0[1] == "0/3" }, "\(run.stdout)")
    }
}
