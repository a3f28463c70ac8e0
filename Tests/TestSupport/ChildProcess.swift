import CtxdebugHelpers
public import Foundation

/// The directory holding the running test executable, where `swift build --build-tests`
/// put this package's executables too (`ctxdebug`, `ctxdebug-bench`, the fuzz
/// executables). As swift-argument-
/// parser's `AssertExecuteCommand` and SwiftPM's `productsDirectory` do, so a test runs
/// the executables of its own configuration and scratch path, never a stale one. On Linux
/// the test executable is `<products>/<package>PackageTests.xctest` itself; on macOS it is
/// inside that bundle, in `Contents/MacOS/`.
public enum BuiltProducts {
    public static let directory: URL = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? Bundle.main.executablePath ?? CommandLine.arguments[0]
        var url = URL(fileURLWithPath: executable).standardizedFileURL
        while url.pathExtension != "xctest" && url.path != "/" { url.deleteLastPathComponent() }
        return url.path == "/" ? URL(fileURLWithPath: executable).deletingLastPathComponent() : url.deletingLastPathComponent()
    }()
}

/// How a child process ended, and what it wrote.
public struct CommandRun: CustomStringConvertible, Sendable {
    public var status: Int32
    /// True when the process was ended by a signal (`status` is then the signal).
    public var signaled: Bool
    public var stdout: String
    public var stderr: String

    public init(status: Int32, signaled: Bool, stdout: String, stderr: String) {
        self.status = status
        self.signaled = signaled
        self.stdout = stdout
        self.stderr = stderr
    }

    public var output: String { stdout + stderr }
    public var description: String { "status \(status)\(signaled ? " (signal)" : ""), stderr: \(stderr)" }
}

/// A child process whose stdout and stderr are read while it runs, so a full pipe never
/// blocks it; stdin is /dev/null.
public final class ChildProcess: Sendable {
    public let process: Process
    private let out = LockedValue(Data())
    private let err = LockedValue(Data())
    private let readers = DispatchGroup()
    private let ended = DispatchSemaphore(value: 0)

    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var env = ProcessInfo.processInfo.environment
        // Only what the caller gives turns checking on: none of the checker's variables, nor
        // Core Data's own switch, comes from the parent.
        for key in env.keys where key.hasPrefix("CTXDEBUG_") || key.hasPrefix("com.apple.CoreData.") { env[key] = nil }
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

    public var pid: Int32 { process.processIdentifier }
    public var stdoutSoFar: String { String(decoding: out.withLock { $0 }, as: UTF8.self) }

    /// Waits for the process to end (killing it after `timeout` seconds, if given) and for its output.
    public func wait(timeout: Double? = nil) -> CommandRun {
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
