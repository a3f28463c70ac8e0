import Foundation
import Synchronization
import Testing

/// Runs the BUILT binaries these tests need: `.build/debug/ctxdebug` (located from
/// this file), `chromium` and `sqlite3` (installed by Scripts/bootstrap), optionally
/// in a given working directory.
enum ReportTestSupport {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let ctxdebug = root.appendingPathComponent(".build/debug/ctxdebug").path

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `executable` with `arguments`, reading stdout and stderr while it runs.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil, timeout: Double = 600
    ) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var env = ProcessInfo.processInfo.environment
        for key in env.keys where key.hasPrefix("CTXDEBUG_") { env[key] = nil }
        env.merge(environment) { $1 }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let group = DispatchGroup()
        let outData = PipeOutput(), errData = PipeOutput()
        for (pipe, box) in [(out, outData), (err, errData)] {
            group.enter()
            Thread.detachNewThread {
                box.set(pipe.fileHandleForReading.readDataToEndOfFile())
                group.leave()
            }
        }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        group.wait()
        return Run(
            status: process.terminationStatus, stdout: String(decoding: outData.get(), as: UTF8.self),
            stderr: String(decoding: errData.get(), as: UTF8.self))
    }

    static func ctxdebug(_ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil) throws -> Run {
        try #require(FileManager.default.isExecutableFile(atPath: ctxdebug), "build ctxdebug first (swift build)")
        return try run(ctxdebug, arguments, environment: environment, in: directory)
    }

    static func temporaryDirectory(_ name: String) throws -> URL {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("ctxdebug-\(name)-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func which(_ tool: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(dir)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// Headless Chromium on `file`: the DOM after load (`--dump-dom`) and what the
    /// browser logged, console messages included (`--enable-logging=stderr`).
    static func chromium(_ arguments: [String], file: URL) throws -> Run {
        let chromium = try #require(which("chromium") ?? which("chromium-browser"), "install chromium (Scripts/bootstrap)")
        let profile = try temporaryDirectory("chromium-profile")
        defer { try? FileManager.default.removeItem(at: profile) }
        return try run(
            chromium,
            ["--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0", "--user-data-dir=\(profile.path)"]
                + arguments + [file.absoluteString], timeout: 120)
    }

    /// The console messages in Chromium's log (`... CONSOLE(12)] "text", source: ...`).
    static func consoleMessages(_ log: String) -> [String] {
        log.split(separator: "\n").map(String.init).filter { $0.contains(":CONSOLE") || $0.contains("CONSOLE(") }
    }
}

/// What a reader thread read from a pipe.
final class PipeOutput: Sendable {
    private let data = Mutex(Data())
    func set(_ d: Data) { data.withLock { $0 = d } }
    func get() -> Data { data.withLock { $0 } }
}
