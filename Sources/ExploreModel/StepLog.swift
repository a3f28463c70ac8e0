public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The step log (JSON Lines) that a run writes while it runs, so that a crash leaves
/// its schedule behind: a header line (`format` `ctxdebug-schedule-log`, `version`,
/// strategy, seed, iteration, granularity, reproducible), one line per step (the
/// fields of a schedule file's `steps`), then optionally `{"reproducible":false}` when
/// uncontrolled work ran, and a last `{"failure":{...}}` or `{"end":true}`.
/// `assemble` reads one back into a `ScheduleFile`; a truncated last line is skipped.
public enum StepLog {
    public static let format = "ctxdebug-schedule-log"
    public static let version = 1

    /// A log read back.
    public struct Assembled: Sendable, Equatable {
        public var schedule: ScheduleFile
        /// True when the log has its `{"end":true}` or failure line: the run finished
        /// writing. False after a crash or a kill.
        public var finished: Bool
        /// True when an incomplete last line was skipped.
        public var truncatedLastLine: Bool
    }

    /// The discriminating keys of a line.
    private struct LineKind: Decodable {
        var format: String?
        var version: Int?
        var step: Int?
        var failure: ScheduleFailure?
        var end: Bool?
        var reproducible: Bool?
    }

    /// True when the first line of `data` is a step log's header.
    public static func looksLikeLog(_ data: Data) -> Bool {
        let firstLine = data.prefix { $0 != 0x0A }
        guard let kind = try? JSONDecoder().decode(LineKind.self, from: firstLine) else { return false }
        return kind.format == format
    }

    /// A schedule from a log's lines. A last line without its newline that is not a
    /// whole JSON object is skipped (the writer was stopped in the middle of it);
    /// anything else that cannot be read throws `ScheduleFileError`.
    public static func assemble(_ data: Data) throws -> Assembled {
        var lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        let endsWithNewline = data.last == 0x0A
        let decoder = JSONDecoder()
        var header: ScheduleHeader?
        var steps: [ScheduleStep] = []
        var failure: ScheduleFailure?
        var finished = false
        var truncated = false
        for (index, line) in lines.enumerated() {
            let kind: LineKind
            do {
                kind = try decoder.decode(LineKind.self, from: line)
            } catch {
                if index == lines.count - 1 && !endsWithNewline {
                    truncated = true
                    break
                }
                throw ScheduleFileError.malformed("line \(index + 1) of the step log is not JSON: \(error)")
            }
            if index == 0 {
                header = try readHeader(kind, line, decoder)
            } else if let step = kind.step {
                guard step == steps.count else {
                    throw ScheduleFileError.malformed("line \(index + 1) of the step log is step \(step), expected step \(steps.count)")
                }
                steps.append(try decodeLine(ScheduleStep.self, line, index, decoder))
            } else if let lineFailure = kind.failure {
                failure = lineFailure
                finished = true
            } else if kind.end == true {
                finished = true
            } else if kind.reproducible == false {
                header?.reproducible = false
            } else {
                throw ScheduleFileError.malformed("line \(index + 1) of the step log is neither a step, a failure nor an end")
            }
        }
        guard let header else { throw ScheduleFileError.malformed("the step log is empty") }
        var schedule = ScheduleFile(header: header, steps: steps, failure: failure)
        try schedule.validate()
        schedule.reproducible = header.reproducible
        return Assembled(schedule: schedule, finished: finished, truncatedLastLine: truncated)
    }

    private static func readHeader(_ kind: LineKind, _ line: Data.SubSequence, _ decoder: JSONDecoder) throws -> ScheduleHeader {
        guard kind.format == format else { throw ScheduleFileError.notASchedule(format: kind.format) }
        guard kind.version == version else { throw ScheduleFileError.unsupportedVersion(kind.version ?? 0) }
        return try decodeLine(ScheduleHeader.self, line, 0, decoder)
    }

    private static func decodeLine<T: Decodable>(_ type: T.Type, _ line: Data.SubSequence, _ index: Int, _ decoder: JSONDecoder) throws -> T {
        do {
            return try decoder.decode(type, from: line)
        } catch {
            throw ScheduleFileError.malformed("line \(index + 1) of the step log: \(error)")
        }
    }
}

/// Writes a step log to a file descriptor: each line is built by hand in a reused
/// buffer (no `JSONEncoder`: a scheduling point has a budget of 20 µs) and handed to
/// one `write(2)`, so it is in the file (the kernel's page cache) as soon as the call
/// returns, and a crash of the process loses nothing written.
public struct StepLogWriter: Sendable {
    public let fileDescriptor: Int32
    private var buffer: [UInt8] = []

    /// A writer on an open descriptor (not closed by the writer unless `close()` is called).
    public init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
        buffer.reserveCapacity(512)
    }

    /// Creates (or truncates) the log at `path` and writes its header.
    public static func create(path: String, header: ScheduleHeader) throws -> StepLogWriter {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StepLogError(path: path, reason: String(cString: strerror(errno))) }
        var writer = StepLogWriter(fileDescriptor: fd)
        try writer.writeHeader(header)
        return writer
    }

    public mutating func writeHeader(_ header: ScheduleHeader) throws {
        buffer.removeAll(keepingCapacity: true)
        appendRaw(#"{"format":"#)
        appendString(StepLog.format)
        appendRaw(#","version":"#)
        appendInteger(UInt64(StepLog.version))
        appendRaw(#","strategy":"#)
        appendString(header.strategy)
        appendRaw(#","seed":"#)
        appendInteger(header.seed)
        appendRaw(#","iteration":"#)
        appendSigned(header.iteration)
        appendRaw(#","granularity":"#)
        appendString(header.granularity.rawValue)
        appendRaw(header.reproducible ? #","reproducible":true}"# : #","reproducible":false}"#)
        try flushLine()
    }

    public mutating func writeStep(_ step: ScheduleStep) throws {
        buffer.removeAll(keepingCapacity: true)
        appendRaw(#"{"step":"#)
        appendSigned(step.step)
        appendRaw(#","actor":"#)
        appendString(step.actor)
        appendRaw(#","point":"#)
        appendString(step.point.rawValue)
        if let queue = step.queue {
            appendRaw(#","queue":"#)
            appendString(queue)
        }
        if let site = step.site {
            appendRaw(#","site":"#)
            appendString(site)
        }
        appendRaw(#","enabled":["#)
        for (index, actor) in step.enabled.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            appendString(actor)
        }
        appendRaw(#"],"defaultIndex":"#)
        appendSigned(step.defaultIndex)
        appendRaw(#","chosen":"#)
        appendSigned(step.chosen)
        buffer.append(UInt8(ascii: "}"))
        try flushLine()
    }

    /// Marks the run not reproducible (uncontrolled work ran, and was allowed).
    public mutating func writeNotReproducible() throws {
        buffer.removeAll(keepingCapacity: true)
        appendRaw(#"{"reproducible":false}"#)
        try flushLine()
    }

    public mutating func writeFailure(_ failure: ScheduleFailure) throws {
        buffer.removeAll(keepingCapacity: true)
        appendRaw(#"{"failure":{"kind":"#)
        appendString(failure.kind.rawValue)
        appendRaw(#","message":"#)
        appendString(failure.message)
        if let detail = failure.detail {
            appendRaw(#","detail":"#)
            appendString(detail)
        }
        appendRaw("}}")
        try flushLine()
    }

    public mutating func writeEnd() throws {
        buffer.removeAll(keepingCapacity: true)
        appendRaw(#"{"end":true}"#)
        try flushLine()
    }

    /// Closes the descriptor.
    public func close() {
        _ = systemClose(fileDescriptor)
    }

    private mutating func flushLine() throws {
        buffer.append(0x0A)
        let failed = buffer.withUnsafeBytes { bytes -> Int32? in
            var offset = 0
            while offset < bytes.count {
                let written = write(fileDescriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failed { throw StepLogError(path: nil, reason: String(cString: strerror(failed))) }
    }

    private mutating func appendRaw(_ text: StaticString) {
        text.withUTF8Buffer { buffer.append(contentsOf: $0) }
    }

    private mutating func appendInteger(_ value: UInt64) {
        let start = buffer.count
        var rest = value
        repeat {
            buffer.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        buffer[start...].reverse()
    }

    private mutating func appendSigned(_ value: Int) {
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        appendInteger(UInt64(value.magnitude))
    }

    /// A JSON string literal: `"` and `\` escaped, controls as `\n \r \t` or `\u00XX`;
    /// text with none of them (the usual case) is copied whole.
    private mutating func appendString(_ text: String) {
        buffer.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            if !bytes.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
                buffer.append(contentsOf: bytes)
            } else {
                for byte in bytes { appendEscaped(byte) }
            }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscaped(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): buffer.append(contentsOf: [0x5C, 0x22])
        case UInt8(ascii: "\\"): buffer.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: buffer.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: buffer.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: buffer.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        case ..<0x20:
            let hex = Array("0123456789abcdef".utf8)
            buffer.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        default: buffer.append(byte)
        }
    }
}

/// close(2), out of the reach of `StepLogWriter.close()`'s name.
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }

/// The step log could not be opened or written.
public struct StepLogError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String?
    public var reason: String
    public var description: String { "cannot write the step log\(path.map { " \($0)" } ?? ""): \(reason)" }
}
