import Foundation
import Synchronization
import Testing

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

    /// The directory holding the running test executable: on Linux the executable
    /// `<products>/ctxdebugPackageTests.xctest` itself, on macOS inside the bundle
    /// `<products>/ctxdebugPackageTests.xctest/Contents/MacOS/`.
    static let productsDirectory: URL = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? Bundle.main.executablePath ?? CommandLine.arguments[0]
        var url = URL(fileURLWithPath: executable).standardizedFileURL
        while url.pathExtension != "xctest" && url.path != "/" { url.deleteLastPathComponent() }
        return url.path == "/" ? URL(fileURLWithPath: executable).deletingLastPathComponent() : url.deletingLastPathComponent()
    }()

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

    /// A fresh directory under the temporary directory, named after `name`.
    static func temporaryDirectory(_ name: String) throws -> URL {
        let url = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("ctxdebug-\(name)-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// How a child process ended, and what it wrote.
struct CommandRun: CustomStringConvertible, Sendable {
    var status: Int32
    /// True when the process was ended by a signal (`status` is then the signal).
    var signaled: Bool
    var stdout: String
    var stderr: String

    var output: String { stdout + stderr }
    var description: String { "status \(status)\(signaled ? " (signal)" : ""), stderr: \(stderr)" }
}

/// A child process whose stdout and stderr are read while it runs, so a full pipe never
/// blocks it; stdin is /dev/null.
final class ChildProcess: Sendable {
    let process: Process
    private let out = Mutex(Data())
    private let err = Mutex(Data())
    private let readers = DispatchGroup()
    private let ended = DispatchSemaphore(value: 0)

    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var env = ProcessInfo.processInfo.environment
        for key in env.keys where key.hasPrefix("CTXDEBUG_") { env[key] = nil }
        env.merge(environment) { $1 }
        process.environment = env
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        process.terminationHandler = { [ended] _ in ended.signal() }
        self.process = process
        try process.run()
        for (pipe, isOut) in [(outPipe, true), (errPipe, false)] {
            readers.enter()
            Thread.detachNewThread { [self] in
                let handle = pipe.fileHandleForReading
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    if isOut { out.withLock { $0.append(chunk) } } else { err.withLock { $0.append(chunk) } }
                }
                readers.leave()
            }
        }
    }

    var pid: Int32 { process.processIdentifier }
    var stdoutSoFar: String { String(decoding: out.withLock { $0 }, as: UTF8.self) }

    /// Waits for the process to end (killing it after `timeout` seconds, if given) and for its output.
    func wait(timeout: Double? = nil) -> CommandRun {
        if let timeout {
            if ended.wait(timeout: .now() + timeout) == .timedOut { kill(pid, SIGKILL) }
        }
        process.waitUntilExit()
        readers.wait()
        return CommandRun(
            status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal,
            stdout: String(decoding: out.withLock { $0 }, as: UTF8.self),
            stderr: String(decoding: err.withLock { $0 }, as: UTF8.self))
    }
}
