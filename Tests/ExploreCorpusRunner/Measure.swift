import ArgumentParser
import ExploreCorpus
import Foundation

struct Measure: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure each case's plain hit rate: N plain runs per case, in child processes.",
        discussion: """
            Each case runs in a fresh child process (`run CASE --times N`), so a deadlock \
            costs only that case: a run that hangs counts as a hit, and the remaining runs \
            go on in a new child. Children get no CTXDEBUG_* variables: plain runs.
            """)

    @Option(help: "Runs per case.")
    var runs: Int = 200

    @Flag(help: "Measure the fixed twins instead of the bugs.")
    var fixed = false

    @Option(help: ArgumentHelp("Only these cases (comma-separated names).", valueName: "NAMES"))
    var cases: String?

    @Option(help: ArgumentHelp("Seconds one run may take before it counts as a hang.", valueName: "SECONDS"))
    var timeout: Double = 5

    @Option(help: ArgumentHelp("Records a busy context imports before its racing step (CorpusWorkload.batchSize).", valueName: "N"))
    var batchSize: Int = CorpusWorkload.defaultBatchSize

    func validate() throws {
        guard runs >= 1 else { throw ValidationError("--runs must be 1 or more (got \(runs)).") }
        guard batchSize >= 0 else { throw ValidationError("--batch-size must be 0 or more (got \(batchSize)).") }
        if let unknown = selectedNames.first(where: { corpusCase(named: $0) == nil }) {
            throw ValidationError("no case named '\(unknown)'; `list` shows them.")
        }
    }

    private var selectedNames: [String] {
        cases.map { $0.split(separator: ",").map(String.init) } ?? exploreCorpus.map(\.name)
    }

    func run() throws {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        print("case\thits\truns\trate\thangs\trecorded")
        var failed = false
        for name in selectedNames {
            let m = try measure(name, executable: executable)
            let recorded = corpusCase(named: name)!.plainHitRate
            let rate = String(format: "%.1f%%", 100 * Double(m.hits) / Double(runs))
            print("\(name)\t\(m.hits)/\(runs)\t\(runs)\t\(rate)\t\(m.hangs)\t\(fixed ? "-" : recorded)")
            fflush(nil)
            // Admission: a bug under 5% of plain runs; a fixed twin never.
            if fixed ? m.hits > 0 : 20 * m.hits >= runs { failed = true }
        }
        if failed { throw ExitCode(1) }
    }

    /// Runs `name` until `runs` plain runs are done, in as many children as hangs need.
    private func measure(_ name: String, executable: String) throws -> (hits: Int, hangs: Int) {
        var done = 0, hits = 0, hangs = 0
        while done < runs {
            var arguments = ["run", name, "--times", "\(runs - done)", "--timeout", "\(timeout)", "--batch-size", "\(batchSize)"]
            if fixed { arguments.append("--fixed") }
            let output = try runChild(executable, arguments)
            guard let result = output.split(separator: "\n").last(where: { $0.hasPrefix("result: ") }) else {
                throw ValidationError("`run \(name)` printed no result line:\n\(output)")
            }
            let fields = Dictionary(
                result.dropFirst("result: ".count).split(separator: " ").compactMap { field -> (String, Int)? in
                    let parts = field.split(separator: "=")
                    guard parts.count == 2, let n = Int(parts[1]) else { return nil }
                    return (String(parts[0]), n)
                }, uniquingKeysWith: { a, _ in a })
            if result.contains("hang") {
                let after = fields["after"] ?? 0
                done += after + 1
                hits += (fields["hits"] ?? 0) + 1
                hangs += 1
            } else {
                done += fields["runs"] ?? runs
                hits += fields["hits"] ?? 0
            }
        }
        return (hits, hangs)
    }

    private func runChild(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("CTXDEBUG_") }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
