import ArgumentParser
import ConcurrencyDebugTesting
import ExploreCorpus
import ExploreModel
import Foundation

/// Issue 26's corpus targets, measured in process: for each bug, the schedules until the
/// first failure and whether its reported failure replays; for each fixed twin, the
/// failures in a budget of schedules. Prints a Markdown table for docs/benchmarks.md.
struct ExploreBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explore-bench",
        abstract: "Explore every case in process: schedules to the first failure of each bug, failures of each fixed twin.",
        discussion: """
            Runs on a worker thread while the main thread serves the main queue \
            (dispatchMain). The head start of plain runs (--batch-size) is 0: under the \
            scheduler only the order of the steps matters, not their cost.
            """)

    @Option(help: ArgumentHelp("Schedules at most per bug.", valueName: "N"))
    var budget = 10_000

    @Option(help: ArgumentHelp("Schedules per fixed twin.", valueName: "N"))
    var twinBudget = 10_000

    @Option(help: ArgumentHelp("The strategy (random, pct:D, pos, delay:K, portfolio).", valueName: "SPEC"))
    var strategy = "portfolio"

    @Option(help: "The exploration's seed.")
    var seed: UInt64 = 1

    @Option(help: ArgumentHelp("Replays that must confirm each failure.", valueName: "N"))
    var replays = 10

    @Option(help: ArgumentHelp("Only these cases (comma-separated names).", valueName: "NAMES"))
    var cases: String?

    @Flag(help: "Skip the fixed twins.")
    var noTwins = false

    func run() throws {
        let spec = try ExploreStrategy(parsing: strategy)
        let chosen = cases.map { Set($0.split(separator: ",").map(String.init)) }
        let selected = exploreCorpus.filter { chosen?.contains($0.name) ?? true }
        CorpusWorkload.batchSize = 0
        let config = self
        Thread.detachNewThread {
            config.measure(selected, spec)
            fflush(nil)
            Foundation.exit(0)
        }
        dispatchMain()
    }

    func measure(_ selected: [CorpusCase], _ spec: ExploreStrategy) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ctxdebug-explore-bench-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let options = ExploreOptions(hangTimeout: 5, scheduleDirectory: directory, replays: replays)
        print("| case | schedules to the first failure | failure | minimized deviations | replays | twin: failures / schedules | twin schedules/s |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for c in selected {
            var found = "not found in \(budget)", kind = "", deviations = "", replayed = ""
            do {
                let report = try explore(spec, iterations: budget, seed: seed, options: options, name: c.name, c.bug)
                found = "not found in \(report.schedulesRun)"
            } catch let failed as ExplorationFailed {
                found = "\(failed.report.schedulesRun)"
                kind = failed.failure.kind.rawValue
                deviations = "\(failed.failure.schedule.deviations.count) (from \(failed.failure.deviationsBeforeMinimizing))"
                replayed = failed.failure.replaysText
            } catch {
                found = "error: \(error)"
            }
            var twin = "", twinRate = ""
            if !noTwins {
                let started = Date()
                do {
                    let report = try explore(spec, iterations: twinBudget, seed: seed, options: options, name: c.name + "-fixed", c.fixed)
                    twin = "0 / \(report.schedulesRun)"
                } catch let failed as ExplorationFailed {
                    twin = "FAILED at \(failed.report.schedulesRun): \(failed.failure.kind.rawValue): \(failed.failure.message)"
                } catch {
                    twin = "error: \(error)"
                }
                twinRate = String(format: "%.0f", Double(twinBudget) / Date().timeIntervalSince(started))
            }
            print("| `\(c.name)` | \(found) | \(kind) | \(deviations) | \(replayed) | \(twin) | \(twinRate) |")
            fflush(nil)
        }
    }
}
