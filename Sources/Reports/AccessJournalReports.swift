public import Foundation
public import ReportFormats

/// `ctxdebug journal stats|dump|violations` as text and as JSON (docs/journal-format.md).
public enum AccessJournalReport {
    /// `stats` as text: one line per figure, no final newline.
    public static func statsText(_ journal: AccessJournalContents) -> String {
        let stats = journal.stats
        var lines: [String] = []
        lines.append("journal:      \(journal.path)")
        lines.append("size:         \(stats.fileBytes) bytes")
        let sessions = journal.sessions.map { "pid \($0.pid) from \(date($0.startWallNanos))" }
        lines.append("sessions:     \(stats.sessions)" + (sessions.isEmpty ? "" : " (" + sessions.joined(separator: "; ") + ")"))
        lines.append("blocks:       \(stats.blocks) good, \(stats.corruptBlocks) corrupt")
        lines.append("events:       \(stats.events) (\(stats.violations) violation\(stats.violations == 1 ? "" : "s"))")
        lines.append("threads:      \(stats.threads)")
        let labels = journal.queueLabels.sorted { $0.key < $1.key }.map { "\($0.key) '\($0.value)'" }
        lines.append("queues:       \(stats.queues)" + (labels.isEmpty ? "" : " (" + labels.joined(separator: ", ") + ")"))
        lines.append(
            "bytes/event:  " + String(format: "%.2f", stats.recordBytesPerEvent) + " in records, "
                + String(format: "%.2f", stats.fileBytesPerEvent) + " for the whole file")
        lines.append("span:         " + String(format: "%.3f ms", Double(stats.duration) / 1e6))
        let operations = stats.operations.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }
            .map { "\($0.key) \($0.value)" }
        lines.append("operations:   " + (operations.isEmpty ? "none" : operations.joined(separator: ", ")))
        lines.append("problems:     " + (journal.problems.isEmpty ? "none" : "\(journal.problems.count)"))
        for problem in journal.problems { lines.append("  - \(problem.description)") }
        return lines.joined(separator: "\n")
    }

    /// `stats` as JSON, with a final newline.
    public static func statsJSON(_ journal: AccessJournalContents) throws -> Data {
        try json(StatsOutput(journal))
    }

    /// `dump` (or `violations`, with `violationsOnly`) as text, handed to `write` in
    /// pieces of about 64 KiB so that a large journal is never one string.
    public static func writeEventsText(_ journal: AccessJournalContents, violationsOnly: Bool, to write: (String) -> Void) {
        var output = ""
        var count = 0
        journal.forEachEvent { event in
            guard !violationsOnly || !event.allowed else { return }
            count += 1
            output += line(event, labels: journal.queueLabels)
            output += "\n"
            if output.utf8.count > 1 << 16 {
                write(output)
                output = ""
            }
        }
        if violationsOnly {
            output += "\(count) violation\(count == 1 ? "" : "s")\n"
        }
        write(output)
    }

    /// `dump` (or `violations`) as JSON, with a final newline.
    public static func eventsJSON(_ journal: AccessJournalContents, violationsOnly: Bool) throws -> Data {
        var events: [EventOutput] = []
        journal.forEachEvent { event in
            if !violationsOnly || !event.allowed {
                events.append(EventOutput(event, labels: journal.queueLabels))
            }
        }
        return try json(EventsOutput(file: journal.path, events: events, problems: journal.problems.map(ProblemOutput.init)))
    }

    /// One event of `dump` as text.
    public static func line(_ event: AccessJournalContents.Event, labels: [UInt: String]) -> String {
        func queue(_ id: UInt) -> String {
            if id == AccessJournalContents.noQueue { return "0 (no queue)" }
            if let label = labels[id] { return "\(id) '\(label)'" }
            return "\(id)"
        }
        var text = String(format: "%14.6f ms", Double(event.time) / 1e6)
        text += "  pid \(event.pid) thread \(event.thread)  "
        text += event.allowed ? "ok        " : "VIOLATION "
        text += event.operation
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

    static func json(_ value: some Encodable) throws -> Data {
        var data = try ReportJSON.encoder().encode(value)
        data.append(0x0A)
        return data
    }

    // MARK: JSON shapes

    struct ProblemOutput: Encodable {
        var kind: String
        var offset: Int
        var length: Int
        var detail: String

        init(_ problem: AccessJournalContents.Problem) {
            kind = problem.kind
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

        init(_ event: AccessJournalContents.Event, labels: [UInt: String]) {
            timeNanos = event.time
            pid = event.pid
            thread = event.thread
            operation = event.operation
            allowed = event.allowed
            owner = event.owner
            ownerLabel = labels[event.owner]
            current = event.current
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
        var garbageBytes: Int
        var cutTailBytes: Int
        var problems: [ProblemOutput]

        init(_ journal: AccessJournalContents) {
            let stats = journal.stats
            file = journal.path
            fileBytes = stats.fileBytes
            sessions = stats.sessions
            blocks = stats.blocks
            corruptBlocks = stats.corruptBlocks
            events = stats.events
            violations = stats.violations
            threads = stats.threads
            queues = Dictionary(uniqueKeysWithValues: journal.queueLabels.map { (String($0.key), $0.value) })
            recordBytesPerEvent = (stats.recordBytesPerEvent * 100).rounded() / 100
            fileBytesPerEvent = (stats.fileBytesPerEvent * 100).rounded() / 100
            durationNanos = stats.duration
            operations = stats.operations
            garbageBytes = stats.garbageBytes
            cutTailBytes = stats.cutTailBytes
            problems = journal.problems.map(ProblemOutput.init)
        }
    }
}
