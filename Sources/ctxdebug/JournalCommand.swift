import ArgumentParser
import ConcurrencyDebug
import CtxdebugHelpers
import Foundation
import ManagedContext
import Reports

/// `ctxdebug journal stats|dump|violations FILE`: reads an access journal.
struct JournalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journal",
        abstract: "Read an access journal (written with CTXDEBUG_JOURNAL=path or CTXDEBUG_CONCURRENCY=3).",
        discussion: """
            A journal records every checked access: when, which thread, the queue that ran \
            and the queue that owns what was touched, the context, entity, attribute, object, \
            operation, and whether it was allowed. The format is in docs/journal-format.md.

            The reader keeps every complete block whose checksum holds. A block cut short at \
            the end (the writer was killed) is reported on stderr and is not an error; a block \
            whose checksum fails is dropped, reported, and makes the exit status 3.

            --trace FILE (with any subcommand) also writes the journal as a timeline in the \
            Chrome Trace Event Format, for ui.perfetto.dev: a track per thread, a slice per \
            run of accesses on one queue, an instant per access and per violation \
            (docs/reports.md).

            Exit status:
              0   read; at most a cut tail
              1   the file cannot be read (missing, permissions)
              2   the file is not a ctxdebug journal, or of a newer format version
              3   read, but some blocks are corrupt (their events are left out)
              73  the --trace file cannot be written
              64  usage error
            """,
        subcommands: [Stats.self, Dump.self, Violations.self]
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    struct Options: ParsableArguments {
        @Argument(help: ArgumentHelp("The journal file to read.", valueName: "file"))
        var file: String

        @Option(help: "Output format: text or json.")
        var format: Format = .text

        @Option(help: ArgumentHelp("Also write the journal as a Chrome trace (ui.perfetto.dev) to FILE.", valueName: "FILE"))
        var trace: String?
    }

    static let cannotRead = ExitStatus.journalUnreadable.exitCode
    static let notAJournal = ExitStatus.notAJournal.exitCode
    static let corrupt = ExitStatus.corruptJournal.exitCode

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print counts: sessions, blocks, events, violations, threads, bytes per event, problems.")

        @OptionGroup var options: Options

        func run() throws {
            let reader = try JournalCommand.open(options.file)
            try JournalCommand.writeTrace(reader, to: options.trace)
            let stats = reader.stats
            switch options.format {
            case .json:
                try JournalCommand.printJSON(StatsOutput(reader: reader, stats: stats))
            case .text:
                var lines: [String] = []
                lines.append("journal:      \(reader.path)")
                lines.append("size:         \(stats.fileBytes) bytes")
                let sessions = reader.sessions.map { "pid \($0.pid) from \(JournalCommand.date($0.startWallNanos))" }
                lines.append("sessions:     \(stats.sessions)" + (sessions.isEmpty ? "" : " (" + sessions.joined(separator: "; ") + ")"))
                lines.append("blocks:       \(stats.blocks) good, \(stats.corruptBlocks) corrupt")
                lines.append("events:       \(stats.events) (\(stats.violations) violation\(stats.violations == 1 ? "" : "s"))")
                lines.append("threads:      \(stats.threads)")
                let labels = reader.queueLabels.sorted { $0.key.rawValue < $1.key.rawValue }
                    .map { "\($0.key.rawValue) '\($0.value)'" }
                lines.append("queues:       \(stats.queues)" + (labels.isEmpty ? "" : " (" + labels.joined(separator: ", ") + ")"))
                lines.append(
                    "bytes/event:  " + String(format: "%.2f", stats.recordBytesPerEvent) + " in records, "
                        + String(format: "%.2f", stats.fileBytesPerEvent) + " for the whole file")
                lines.append("span:         " + String(format: "%.3f ms", Double(stats.duration) / 1e6))
                let operations = stats.operations.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }
                    .map { "\($0.key) \($0.value)" }
                lines.append("operations:   " + (operations.isEmpty ? "none" : operations.joined(separator: ", ")))
                lines.append("problems:     " + (reader.problems.isEmpty ? "none" : "\(reader.problems.count)"))
                for problem in reader.problems { lines.append("  - \(problem)") }
                print(lines.joined(separator: "\n"))
            }
            try JournalCommand.finish(reader)
        }
    }

    struct Dump: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print every event, block by block (each block is one thread's events in time order).")

        @OptionGroup var options: Options

        func run() throws {
            let reader = try JournalCommand.open(options.file)
            try JournalCommand.writeTrace(reader, to: options.trace)
            try JournalCommand.printEvents(reader, format: options.format, violationsOnly: false)
            try JournalCommand.finish(reader)
        }
    }

    struct Violations: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print only the accesses that were violations (not allowed).")

        @OptionGroup var options: Options

        func run() throws {
            let reader = try JournalCommand.open(options.file)
            try JournalCommand.writeTrace(reader, to: options.trace)
            try JournalCommand.printEvents(reader, format: options.format, violationsOnly: true)
            try JournalCommand.finish(reader)
        }
    }

    // MARK: Shared

    static func open(_ path: String) throws -> AccessLogReader {
        // A version-1 journal holds no operation names: ManagedContext's name its numbers.
        ManagedContextOperations.register()
        do {
            return try AccessLogReader(path: path)
        } catch {
            printError("error: \(error.description)")
            switch error.code {
            case .cannotAccess: throw cannotRead
            case .notAJournal, .unsupportedVersion: throw notAJournal
            }
        }
    }

    /// Writes the trace of `reader` to `path` (under a temporary name, then renamed).
    static func writeTrace(_ reader: AccessLogReader, to path: String?) throws {
        guard let path else { return }
        do {
            try ReportFile.write(ChromeTrace.render(journal: reader), to: path)
        } catch {
            printError("error: cannot write the trace to \(path): \(error)")
            throw cannotWrite
        }
    }

    static let cannotWrite = ExitStatus.cannotCreate.exitCode

    /// Reports the problems on stderr, and exits 3 when a block was corrupt.
    static func finish(_ reader: AccessLogReader) throws {
        for problem in reader.problems {
            let severity = problem.kind == .cutTail ? "note" : "error"
            printError("\(severity): \(reader.path): \(problem)")
        }
        if !reader.isIntact { throw corrupt }
    }

    static func printError(_ message: String) {
        say("ctxdebug journal: \(message)")
    }

    static func printEvents(_ reader: AccessLogReader, format: Format, violationsOnly: Bool) throws {
        let labels = reader.queueLabels
        let names = (0..<32).map { reader.name(of: AccessOperation(rawValue: UInt8($0))) }
        switch format {
        case .json:
            var events: [EventOutput] = []
            reader.forEachEvent { event in
                if !violationsOnly || !event.allowed {
                    events.append(EventOutput(event, labels: labels, operation: names[Int(event.operation.rawValue)]))
                }
            }
            try printJSON(EventsOutput(file: reader.path, events: events, problems: reader.problems.map(ProblemOutput.init)))
        case .text:
            var output = ""
            var count = 0
            reader.forEachEvent { event in
                guard !violationsOnly || !event.allowed else { return }
                count += 1
                output += line(event, labels: labels, operation: names[Int(event.operation.rawValue)])
                output += "\n"
                if output.utf8.count > 1 << 16 {
                    FileHandle.standardOutput.write(Data(output.utf8))
                    output = ""
                }
            }
            if violationsOnly {
                output += "\(count) violation\(count == 1 ? "" : "s")\n"
            }
            FileHandle.standardOutput.write(Data(output.utf8))
        }
    }

    static func line(_ event: AccessLogEvent, labels: [QueueIdentity: String], operation: String) -> String {
        func queue(_ id: QueueIdentity) -> String {
            if id == .none { return "0 (no queue)" }
            if let label = labels[id] { return "\(id.rawValue) '\(label)'" }
            return "\(id.rawValue)"
        }
        var text = String(format: "%14.6f ms", Double(event.time) / 1e6)
        text += "  pid \(event.pid) thread \(event.thread)  "
        text += event.allowed ? "ok        " : "VIOLATION "
        text += operation
        text += "  owner \(queue(event.owner))  by \(queue(event.current))"
        if event.context != 0 { text += "  context \(event.context)" }
        // ManagedContext's meaning of the checker's subject, member and instance.
        if event.subject != 0 { text += "  entity \(event.subject)" }
        if event.member != .max { text += "  attribute \(event.member)" }
        if event.instance != 0 { text += "  object \(event.instance)" }
        return text
    }

    static func date(_ nanos: UInt64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(nanos) / 1e9))
    }

    static func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        FileHandle.standardOutput.write(try encoder.encode(value))
        FileHandle.standardOutput.write(Data("\n".utf8))
    }

    // MARK: JSON shapes

    struct ProblemOutput: Encodable {
        var kind: String
        var offset: Int
        var length: Int
        var detail: String

        init(_ problem: AccessLogProblem) {
            kind = problem.kind.rawValue
            offset = problem.offset
            length = problem.length
            detail = problem.detail
        }
    }

    struct EventOutput: Encodable {
        var timeNanos: UInt64
        var pid: UInt32
        var thread: UInt32
        var operation: String
        var allowed: Bool
        var owner: UInt
        var ownerLabel: String?
        var current: UInt
        var currentLabel: String?
        var context: UInt32
        var entity: UInt16
        var attribute: UInt16?
        var object: Int64

        init(_ event: AccessLogEvent, labels: [QueueIdentity: String], operation: String) {
            timeNanos = event.time
            pid = event.pid
            thread = event.thread
            self.operation = operation
            allowed = event.allowed
            owner = event.owner.rawValue
            ownerLabel = labels[event.owner]
            current = event.current.rawValue
            currentLabel = labels[event.current]
            context = event.context
            entity = event.subject
            attribute = event.member == .max ? nil : event.member
            object = event.instance
        }
    }

    struct EventsOutput: Encodable {
        var file: String
        var events: [EventOutput]
        var problems: [ProblemOutput]
    }

    struct StatsOutput: Encodable {
        var file: String
        var fileBytes: Int
        var sessions: Int
        var blocks: Int
        var corruptBlocks: Int
        var events: Int
        var violations: Int
        var threads: Int
        var queues: [String: String]
        var recordBytesPerEvent: Double
        var fileBytesPerEvent: Double
        var durationNanos: UInt64
        var operations: [String: Int]
        var cutTailBytes: Int
        var problems: [ProblemOutput]

        init(reader: AccessLogReader, stats: AccessLogStats) {
            file = reader.path
            fileBytes = stats.fileBytes
            sessions = stats.sessions
            blocks = stats.blocks
            corruptBlocks = stats.corruptBlocks
            events = stats.events
            violations = stats.violations
            threads = stats.threads
            queues = Dictionary(uniqueKeysWithValues: reader.queueLabels.map { (String($0.key.rawValue), $0.value) })
            recordBytesPerEvent = (stats.recordBytesPerEvent * 100).rounded() / 100
            fileBytesPerEvent = (stats.fileBytesPerEvent * 100).rounded() / 100
            durationNanos = stats.duration
            operations = stats.operations
            cutTailBytes = stats.cutTailBytes
            problems = reader.problems.map(ProblemOutput.init)
        }
    }
}
