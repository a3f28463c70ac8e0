import Foundation
import Testing

/// The fuzz targets in ordinary builds (docs/reliability.md): every regression input in
/// Tests/Fixtures/fuzz-regressions/<target>/ and random inputs go through the same
/// entry point libFuzzer calls (`FuzzEntry`), via each target's built executable.
@Suite("Reliability: fuzz regression inputs")
struct FuzzRegressionTests {
    /// The repository root (this file is Fuzz/Tests/FuzzTests/FuzzRegressionTests.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = root.appendingPathComponent("Tests/Fixtures/fuzz-regressions")

    /// The fuzz executables are built next to this test bundle, whatever the scratch
    /// path and configuration.
    static func executable(_ product: String) throws -> String {
        let binDirectory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let path = binDirectory.appendingPathComponent(product).path
        try #require(
            FileManager.default.isExecutableFile(atPath: path),
            "\(path) is missing: build the fuzz package first (swift build --package-path Fuzz --scratch-path .build)")
        return path
    }

    struct Run: CustomStringConvertible {
        var status: Int32
        var signaled: Bool
        var stdout: String
        var stderr: String
        var description: String { "status \(status)\(signaled ? " (signal)" : ""), stderr: \(stderr.prefix(600))" }
    }

    /// Runs a fuzz executable with its output in files, so a chatty child never blocks on a pipe.
    static func run(_ product: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("stdout"), err = directory.appendingPathComponent("stderr")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try executable(product))
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal,
            stdout: try String(contentsOf: out, encoding: .utf8), stderr: try String(contentsOf: err, encoding: .utf8))
    }

    @Test(
        "Regression inputs and random inputs run without a crash",
        arguments: [("FuzzJournalReader", "journal-reader"), ("FuzzWorkload", "workload"), ("FuzzObjectID", "objectid-uri"), ("FuzzPredicate", "predicate")])
    func regressions(_ product: String, _ directory: String) throws {
        let dir = Self.fixtures.appendingPathComponent(directory).path
        let inputs = try FileManager.default.contentsOfDirectory(atPath: dir).filter { !$0.hasPrefix(".") && $0 != "fixed" }
        #expect(!inputs.isEmpty, "no regression or seed inputs in \(dir)")
        let run = try Self.run(product, ["--random", "200", dir])
        #expect(!run.signaled && run.status == 0, "\(product): \(run)")
        #expect(run.stdout.contains("\(inputs.count) regression inputs and 200 random inputs"), "\(run.stdout)")
    }

    /// The two predicate bugs the fuzzer found (SQL and memory disagreed on a NUL in a
    /// string, and on a value of another type than the attribute), fixed: their inputs
    /// now agree with the input classes switched back on.
    @Test("Fixed predicate bugs stay fixed", arguments: [("nul-prefix-beginswith", "FUZZ_PREDICATE_NUL"), ("text-vs-integer-affinity", "FUZZ_PREDICATE_MISMATCH")])
    func fixedPredicateBugs(_ file: String, _ switchName: String) throws {
        let input = Self.fixtures.appendingPathComponent("predicate/fixed/\(file)").path
        let run = try Self.run("FuzzPredicate", ["--random", "0", input], environment: [switchName: "1"])
        #expect(run.status == 0 && !run.signaled, "\(run)")
    }
}
