import ArgumentParser
import ExploreCorpus
import Foundation

/// `ctxdebug-explore-corpus`: a test-only executable (built by `swift build
/// --build-tests`, not part of the shipped `ctxdebug`) that runs the corpus of
/// ordering-dependent bugs (Tests/ExploreCorpus) plainly, without exploration: how
/// often a bug shows up on its own is what admits it to the corpus (under 5% of 200
/// runs), and `measure` is how its `plainHitRate` is filled in.
@main
struct ExploreCorpusRunner: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ctxdebug-explore-corpus",
        abstract: "Run the corpus of ordering-dependent Core Data bugs plainly (no exploration).",
        subcommands: [List.self, Run.self, Measure.self, ExploreBench.self])
}

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the cases: name, kind, recorded plain hit rate, summary (tab-separated).")

    @Flag(help: "Print the table of Tests/ExploreCorpus/README.md instead (Markdown).")
    var markdown = false

    func run() {
        guard markdown else {
            for c in exploreCorpus {
                print("\(c.name)\t\(c.kind)\t\(c.plainHitRate)\t\(c.summary)")
            }
            return
        }
        print("| case | kind | the bug | the bad order | what the fix changes | plain hits |")
        print("| --- | --- | --- | --- | --- | --- |")
        for c in exploreCorpus {
            let cells = [c.summary, c.badOrder, c.fix].map { $0.replacingOccurrences(of: "|", with: "\\|") }
            print("| `\(c.name)` | \(c.kind) | \(cells[0]) | \(cells[1]) | \(cells[2]) | \(c.plainHitRate) |")
        }
    }
}

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run one case N times in this process and count the runs that hit the bug.",
        discussion: """
            Exit status: 0 when no run hit the bug, 1 when some did, 2 when a run did not \
            finish within --timeout (a deadlock or hang: "deadlock/hang" is printed).
            """)

    @Argument(help: "The case's name (see `list`).")
    var name: String

    @Flag(help: "Run the fixed twin instead of the bug.")
    var fixed = false

    @Flag(help: "Run the bug with its bad order forced by semaphores (tests).")
    var forced = false

    @Option(help: "How many runs.")
    var times: Int = 1

    @Option(help: ArgumentHelp("Seconds one run may take before it counts as a deadlock or hang.", valueName: "SECONDS"))
    var timeout: Double = 10

    @Option(help: ArgumentHelp("Records a busy context imports before its racing step (CorpusWorkload.batchSize).", valueName: "N"))
    var batchSize: Int = CorpusWorkload.defaultBatchSize

    func validate() throws {
        guard corpusCase(named: name) != nil else {
            throw ValidationError("no case named '\(name)'; `list` shows them: \(exploreCorpus.map(\.name).joined(separator: ", ")).")
        }
        guard !(fixed && forced) else { throw ValidationError("--fixed and --forced exclude each other: the forcing is the bug's.") }
        guard times >= 1 else { throw ValidationError("--times must be 1 or more (got \(times)).") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive (got \(timeout)).") }
        guard batchSize >= 0 else { throw ValidationError("--batch-size must be 0 or more (got \(batchSize)).") }
    }

    func run() {
        let c = corpusCase(named: name)!
        CorpusWorkload.batchSize = batchSize
        let body = fixed ? c.fixed : forced ? c.forcedBug : c.bug
        let variant = fixed ? "fixed" : forced ? "forced" : "bug"
        let runner = PlainRunner(label: "\(c.name) (\(variant))", body: body, times: times, timeout: timeout)
        // The bodies use the main queue: run them on another thread and serve it here.
        Thread.detachNewThread { runner.runAll() }
        dispatchMain()
    }
}

