import Foundation
import Synchronization
import Testing
import TestSupport

/// Helpers for the reliability tests (docs/reliability.md): the built binary, child
/// processes with their output, temporary directories, and the sqlite3 CLI as an
/// independent reader of stores.
enum Reliability {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let ctxdebug = root.appendingPathComponent(".build/debug/ctxdebug").path

    struct Run: CustomStringConvertible {
        var status: Int32
        /// True when the process was ended by a signal (`status` is then the signal).
        var signaled: Bool
        var stdout: String
        var stderr: String

        var description: String { "status \(status)\(signaled ? " (signal)" : ""), stderr: \(stderr)" }
    }

    /// A child process whose stdout and stderr are read while it runs.
    final class Child: Sendable {
        let process: Process
        private let out = Mutex(Data())
        private let err = Mutex(Data())
        private let readers = DispatchGroup()

        init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            var env = ProcessInfo.processInfo.environment
            for key in env.keys where key.hasPrefix("CTXDEBUG_") { env[key] = nil }
            env.merge(environment) { $1 }
            process.environment = env
            let outPipe = Pipe(), errPipe = Pipe()
            process.standardOutput = outPipe
            process.standardError = errPipe
            process.standardInput = FileHandle.nullDevice
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

        /// Waits for the process to end (killing it after `timeout` seconds) and for its output.
        func wait(timeout: Double = 300) -> Run {
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning && Date() < deadline { usleep(5_000) }
            if process.isRunning { kill(pid, SIGKILL) }
            process.waitUntilExit()
            readers.wait()
            return Run(
                status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal,
                stdout: String(decoding: out.withLock { $0 }, as: UTF8.self),
                stderr: String(decoding: err.withLock { $0 }, as: UTF8.self))
        }
    }

    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: Double = 300) throws -> Run {
        try Child(executable, arguments, environment: environment).wait(timeout: timeout)
    }

    /// Runs the built `ctxdebug`.
    static func ctxdebug(_ arguments: String..., environment: [String: String] = [:]) throws -> Run {
        try #require(FileManager.default.isExecutableFile(atPath: ctxdebug), "build ctxdebug first (swift build)")
        return try run(ctxdebug, arguments, environment: environment)
    }

    /// Runs the sqlite3 CLI on `store`; nil (with the reason recorded) when it fails.
    static func sqlite(_ store: String, _ sql: String) throws -> Run {
        let sqlite3 = try #require(which("sqlite3"), "install sqlite3 (Scripts/bootstrap)")
        return try run(sqlite3, ["-bail", "-batch", "-separator", " ", store, sql])
    }

    static func which(_ tool: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(dir)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// A fresh temporary directory, removed by `remove(_:)`.
    static func temporaryDirectory(_ name: String) throws -> URL {
        let url = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("ctxdebug-reliability-\(name)-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func remove(_ url: URL) { try? FileManager.default.removeItem(at: url) }

    /// The bytes of a file, or nil when it does not exist.
    static func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    /// The seed for a randomized test: `RELIABILITY_SEED` if set, else the clock.
    static func seed() -> UInt64 {
        if let s = ProcessInfo.processInfo.environment["RELIABILITY_SEED"], let v = UInt64(s) { return v }
        return UInt64(Date().timeIntervalSince1970 * 1000)
    }

    /// Runs `body` with a directory mounted as a tmpfs of `size` (e.g. "256k"), remounted
    /// read-only first when `readOnly`. Returns nil, with the reason, when this process
    /// cannot mount (not root, no CAP_SYS_ADMIN, in a container without it).
    static func withTmpfs<T>(size: String, readOnly: Bool = false, prepare: (URL) throws -> Void = { _ in }, _ body: (URL) throws -> T) throws -> (T?, skipped: String?) {
        let dir = try temporaryDirectory(readOnly ? "ro-mount" : "tmpfs")
        defer { remove(dir) }
        guard let mount = which("mount"), let umount = which("umount") else { return (nil, "no mount(8) on PATH") }
        let m = try run(mount, ["-t", "tmpfs", "-o", "size=\(size),mode=0755", "tmpfs", dir.path])
        guard m.status == 0, !m.signaled else { return (nil, "cannot mount a tmpfs here: \(m.stderr.trimmingCharacters(in: .whitespacesAndNewlines))") }
        defer { _ = try? run(umount, ["-l", dir.path]) }
        try prepare(dir)
        if readOnly {
            let r = try run(mount, ["-o", "remount,ro", dir.path])
            guard r.status == 0 else { return (nil, "cannot remount the tmpfs read-only: \(r.stderr)") }
        }
        return (try body(dir), nil)
    }
}
