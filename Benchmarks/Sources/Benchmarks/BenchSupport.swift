import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where every measured value goes, so the optimizer cannot delete the work that
/// made it. A closure in a mutable global: an indirect call the compiler cannot see
/// through, so a value passed to it must be computed every iteration, and memory it
/// might reach must be read again after it.
nonisolated(unsafe) var benchSinkTotal = 0
nonisolated(unsafe) var benchSink: (Int) -> Void = { benchSinkTotal &+= $0 }

/// Makes `benchSink` depend on something only known at run time.
func armBenchSink() {
    if getenv("CTXDEBUG_BENCH_NEVER_SET_THIS") != nil {
        benchSink = { print("sink", $0) }
    }
}

/// A monotonic clock in nanoseconds.
@inline(__always)
func benchNow() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

/// Seconds since `start` (from `benchNow()`).
func benchSeconds(since start: UInt64) -> Double {
    Double(benchNow() &- start) / 1e9
}

/// What a child process did.
struct ChildRun {
    var status: Int32
    /// True when the child ended by a signal; `status` is the signal then.
    var signaled: Bool
    var seconds: Double
    var standardOutput: Data
    var standardError: String
}

/// A failure of the bench itself (not a missed target): says what and how to fix it.
struct BenchError: Error, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

enum BenchSupport {
    /// The `ctxdebug` built next to this executable: the bench measures it, and starts
    /// its own children through it (`ctxdebug bench --child …` runs this binary again).
    static var selfExecutable: String {
        let running = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: running).deletingLastPathComponent().appendingPathComponent("ctxdebug").path
    }

    /// Runs `executable` with `arguments`, its environment the bench's own without any
    /// `CTXDEBUG_*` or `TSAN_OPTIONS` variable, plus `environment`. Standard output and
    /// error go to files in `work` (no pipe can fill up). Times it from start to exit.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], work: URL
    ) throws -> ChildRun {
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("CTXDEBUG_") && $0.key != "TSAN_OPTIONS" }
        for (key, value) in environment { env[key] = value }
        let tag = UUID().uuidString.prefix(8)
        let outURL = work.appendingPathComponent("child-\(tag).out")
        let errURL = work.appendingPathComponent("child-\(tag).err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = env
        process.standardInput = FileHandle.nullDevice
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        let start = benchNow()
        do {
            try process.run()
        } catch {
            throw BenchError("Cannot start \(executable): \(error). Check that it exists and is executable.")
        }
        process.waitUntilExit()
        let seconds = benchSeconds(since: start)
        try? out.close()
        try? err.close()
        return ChildRun(
            status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal, seconds: seconds,
            standardOutput: (try? Data(contentsOf: outURL)) ?? Data(),
            standardError: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }

    /// The path of `name` on PATH, or nil.
    static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// The fastest of `runs` runs of `body`: a preemption by another process on a shared
    /// machine lands in one run, not in the figure.
    static func fastest(of runs: Int, _ body: () -> Double) -> Double {
        var fastest = Double.infinity
        for _ in 0..<runs { fastest = min(fastest, body()) }
        return fastest
    }

    /// Runs `body` with standard error sent to /dev/null (the checker's banner, printed
    /// at each in-process reconfiguration).
    static func quietly<T>(_ body: () throws -> T) rethrows -> T {
        fflush(nil)
        let saved = dup(2)
        let null = open("/dev/null", O_WRONLY)
        if null >= 0 { dup2(null, 2); close(null) }
        defer {
            fflush(nil)
            if saved >= 0 { dup2(saved, 2); close(saved) }
        }
        return try body()
    }

    static func loadAverage() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8),
            let first = text.split(separator: " ").first, let value = Double(first)
        else { return .nan }
        return value
    }

    static func machine(quick: Bool, loadAtStart: Double) -> BenchMachine {
        var model = "unknown"
        if let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) {
            for line in info.split(separator: "\n") where line.hasPrefix("model name") {
                if let colon = line.firstIndex(of: ":") {
                    model = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                break
            }
        }
        var toolchain = "unknown"
        if let swift = which("swift"),
            let run = try? run(swift, ["--version"], work: URL(fileURLWithPath: NSTemporaryDirectory()))
        {
            let text = String(decoding: run.standardOutput, as: UTF8.self) + run.standardError
            if let line = text.split(separator: "\n").first(where: { $0.contains("Swift version") }) {
                toolchain = String(line).trimmingCharacters(in: .whitespaces)
            }
        }
        #if DEBUG
        let build = "debug"
        #else
        let build = "release"
        #endif
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return BenchMachine(
            date: formatter.string(from: Date()), cores: ProcessInfo.processInfo.activeProcessorCount, cpuModel: model,
            toolchain: toolchain, build: build, loadAverageAtStart: loadAtStart, loadAverageAtEnd: loadAverage())
    }

    /// The size of the file at `path`, or 0.
    static func fileSize(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : 0
    }
}
