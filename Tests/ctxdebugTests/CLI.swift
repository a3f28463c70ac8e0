import Foundation
import Testing
import TestSupport

/// Runs this package's built executables (`ctxdebug`, the fuzz targets) and other tools
/// as child processes, for every test of the CLI.
///
/// The executables are taken from the products directory the running tests were built
/// into, as swift-argument-parser's `AssertExecuteCommand` and SwiftPM's `productsDirectory`
/// do: `swift test` runs the `ctxdebug` of its own configuration and scratch path
/// (`.build/debug`, `-c release`, Scripts/tsan-stress's `.build-tsan-tests`), never a
/// stale one from another build. `swift build --build-tests` builds both.
enum CLI {
    /// The root of this package (for fixtures, scripts and docs).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Where the running tests were built (`BuiltProducts.directory`).
    static let productsDirectory = BuiltProducts.directory

    /// The path of a built executable of this package, or a test failure that says how to build it.
    static func product(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let path = productsDirectory.appendingPathComponent(name).path
        try #require(
            FileManager.default.isExecutableFile(atPath: path),
            "\(name) is not built in \(productsDirectory.path), where these tests were built: run `swift build --build-tests` with the same -c and --scratch-path as `swift test`",
            sourceLocation: sourceLocation)
        return path
    }

    /// The built `ctxdebug`.
    static func ctxdebugPath(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try product("ctxdebug", sourceLocation: sourceLocation)
    }

    /// A guard against a hung child, far above any run here; nil waits for ever (a
    /// build of a package, or the benchmarks on a busy machine).
    static let defaultTimeout: Double? = 600

    /// Runs the built `ctxdebug` to the end.
    static func ctxdebug(
        _ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil, timeout: Double? = defaultTimeout,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> CommandRun {
        try run(try ctxdebugPath(sourceLocation: sourceLocation), arguments, environment: environment, in: directory, timeout: timeout)
    }

    /// Runs `executable` to the end (killed after `timeout` seconds), reading its output
    /// while it runs. The `CTXDEBUG_*` variables of this test process are not passed on;
    /// `environment` is added.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil,
        timeout: Double? = defaultTimeout
    ) throws -> CommandRun {
        try ChildProcess(executable, arguments, environment: environment, in: directory).wait(timeout: timeout)
    }

    /// The first `tool` on PATH.
    static func which(_ tool: String) -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(directory)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }
}
