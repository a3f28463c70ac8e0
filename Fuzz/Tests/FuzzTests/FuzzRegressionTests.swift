import Foundation
import Testing
import TestSupport

/// The fuzz targets in ordinary builds (docs/reliability.md): every regression input in
/// Tests/Fixtures/fuzz-regressions/<target>/ and random inputs go through the same
/// entry point libFuzzer calls (`FuzzEntry`), via each target's built executable.
@Suite("Reliability: fuzz regression inputs")
struct FuzzRegressionTests {
    /// The repository root (this file is Fuzz/Tests/FuzzTests/FuzzRegressionTests.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = root.appendingPathComponent("Tests/Fixtures/fuzz-regressions")

    /// A fuzz executable built next to this test bundle (`BuiltProducts`).
    static func run(_ product: String, _ arguments: [String], environment: [String: String] = [:]) throws -> CommandRun {
        let path = BuiltProducts.directory.appendingPathComponent(product).path
        try #require(
            FileManager.default.isExecutableFile(atPath: path),
            "\(path) is missing: build the fuzz targets first (swift build --build-tests)")
        return try ChildProcess(path, arguments, environment: environment).wait(timeout: 600)
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
