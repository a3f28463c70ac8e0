import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One child process measured from start to exit, with its peak memory.
struct MeasuredProcess {
    var status: Int32
    var signaled: Bool
    var seconds: Double
    /// The child's peak resident set (VmHWM, sampled every 2 ms while it ran), in bytes.
    var peakBytes: Int
    /// The child's CPU time, user and system, from wait4's rusage.
    var cpuSeconds: Double = 0
    var standardError: String

    /// Runs `executable` with `arguments`, standard input from /dev/null and standard
    /// output and error to files in `work`, its environment the bench's own without
    /// any `CTXDEBUG_*` or `TSAN_OPTIONS` variable, plus `environment`. Spawned and
    /// waited for here rather than through `Process`, so that its memory can be
    /// watched while it runs.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:], work: URL) throws -> MeasuredProcess {
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("CTXDEBUG_") && $0.key != "TSAN_OPTIONS" }
        for (key, value) in environment { env[key] = value }
        let tag = UUID().uuidString.prefix(8)
        let outPath = work.appendingPathComponent("measured-\(tag).out").path
        let errPath = work.appendingPathComponent("measured-\(tag).err").path
        defer {
            unlink(outPath)
            unlink(errPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var pid: pid_t = 0
        let start = benchNow()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw BenchError("Cannot start \(executable): \(String(cString: strerror(spawned))). Check that it exists and is executable.")
        }
        // Peak memory is the child's VmHWM, read while it runs: `ru_maxrss` would
        // count this (large) process, whose memory a spawned child shares until exec.
        var status: Int32 = 0
        var peak = 0
        var seconds = 0.0
        var usage = rusage()
        while true {
            let reaped = wait4(pid, &status, WNOHANG, &usage)
            if reaped == pid { seconds = benchSeconds(since: start); break }
            if reaped < 0 && errno != EINTR { throw BenchError("Waiting for \(executable) failed: \(String(cString: strerror(errno))).") }
            peak = max(peak, highWaterMark(pid))
            usleep(2_000)
        }
        let signal = status & 0x7f
        return MeasuredProcess(
            status: signal == 0 ? (status >> 8) & 0xff : signal, signaled: signal != 0, seconds: seconds,
            peakBytes: peak,
            cpuSeconds: Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6,
            standardError: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }
}

/// VmHWM of process `pid` (its peak resident set since exec), in bytes; 0 once gone.
private func highWaterMark(_ pid: pid_t) -> Int {
    // Read with read(2): /proc files report a size of 0, so Foundation reads nothing.
    let fd = open("/proc/\(pid)/status", O_RDONLY)
    guard fd >= 0 else { return 0 }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: 8_192)
    let n = read(fd, &bytes, bytes.count)
    guard n > 0 else { return 0 }
    let text = String(decoding: bytes[..<n], as: UTF8.self)
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kib = Int(line.dropFirst("VmHWM:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
    else { return 0 }
    return kib * 1024
}

/// Reads RFC 4180 records one at a time (CRLF or LF line ends), to compare two
/// CSV files record by record without holding either as strings.
struct CSVRecordReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ data: Data) { bytes = [UInt8](data) }

    mutating func next() -> [String]? {
        guard position < bytes.count else { return nil }
        var fields: [String] = []
        var field: [UInt8] = []
        var quoted = false
        while position < bytes.count {
            let b = bytes[position]
            position += 1
            if quoted {
                if b == UInt8(ascii: "\"") {
                    if position < bytes.count && bytes[position] == UInt8(ascii: "\"") {
                        field.append(b)
                        position += 1
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(b)
                }
                continue
            }
            switch b {
            case UInt8(ascii: "\""): quoted = true
            case UInt8(ascii: ","):
                fields.append(String(decoding: field, as: UTF8.self))
                field.removeAll(keepingCapacity: true)
            case 13 where position < bytes.count && bytes[position] == 10:
                break
            case 10:
                fields.append(String(decoding: field, as: UTF8.self))
                return fields
            default: field.append(b)
            }
        }
        fields.append(String(decoding: field, as: UTF8.self))
        return fields
    }

    /// nil when both files hold the same records; else where they first differ.
    static func firstDifference(_ a: Data, _ b: Data) -> String? {
        var ra = CSVRecordReader(a), rb = CSVRecordReader(b)
        var line = 1
        while true {
            let x = ra.next(), y = rb.next()
            if x == nil && y == nil { return nil }
            if x != y {
                return "record \(line): \(x.map { $0.joined(separator: "|") } ?? "(end)") against \(y.map { $0.joined(separator: "|") } ?? "(end)")"
            }
            line += 1
        }
    }
}
