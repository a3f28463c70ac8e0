import ArgumentParser
import Foundation

/// `ctxdebug bench` runs `ctxdebug-bench`, the benchmarks' own executable (Benchmarks/),
/// built next to this binary (Scripts/bench builds both). The benchmarks stay out of this
/// binary; the command name stays where scripts expect it.
/// main.swift hands every `ctxdebug bench …` to `BenchForwarder` before parsing; this
/// command is here so `ctxdebug --help` lists it.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure what checking costs, side by side (runs ctxdebug-bench, built from Benchmarks/; see ctxdebug bench --help).")

    func run() throws {
        try BenchForwarder.run(arguments: [])
    }
}

enum BenchForwarder {
    static let executableName = "ctxdebug-bench"

    /// Replaces this process with `ctxdebug-bench arguments…`; returns only on failure.
    static func run(arguments: [String]) throws -> Never {
        let binDirectory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let bench = binDirectory.appendingPathComponent(executableName).path
        guard FileManager.default.isExecutableFile(atPath: bench) else {
            throw CommandSupport.fail(
                "\(bench) is missing. The benchmarks are an executable of their own (Benchmarks/): build them next to ctxdebug with "
                    + "`swift build --product ctxdebug-bench` (add `-c release` for a release ctxdebug), "
                    + "or run Scripts/bench, which builds both and writes docs/benchmarks.md.",
                status: .unavailable)
        }
        let argv = ([bench] + arguments).map { strdup($0) } + [nil]
        execv(bench, argv)
        throw CommandSupport.fail("could not start \(bench): \(String(cString: strerror(errno)))", status: .unavailable)
    }
}
