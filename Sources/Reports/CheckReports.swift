public import Foundation
@_exported public import ReportFormats
import ViolationModel

// The reports of `ctxdebug check` (docs/ci.md): the summary on stderr, JUnit XML,
// SARIF 2.1.0 and the merged JSON. Paths are relative to `root` when under it.

extension MergedRun {
    /// The text summary: a headline, then each distinct violation's report, most
    /// frequent first.
    public func summary(root: String) -> String {
        var text = ""
        let n = violations.count
        text += "ctxdebug check: \(n) distinct concurrency violation\(n == 1 ? "" : "s") (\(totalCount) in all)"
        text += " in \(plural(processCount, "process", "processes")), most frequent first\n"
        for (index, merged) in violations.enumerated() {
            let site = SourceLocator.describe(SourceLocator.userFrame(merged.violation.frames, root: root), root: root)
            text += "\n[\(index + 1)/\(n)] \(plural(merged.count, "time", "times")), \(merged.kind)"
            text += site.map { " at \($0)" } ?? ""
            text += ", in \(plural(merged.pids.count, "process", "processes"))\n"
            text += merged.counted.formattedReport()
        }
        return text
    }

    /// A failing test case per distinct violation, at the user's line; one passing case
    /// when there is none.
    public func junit(root: String, command: [String]) -> JUnitReport {
        var cases = violations.enumerated().map { index, merged in
            let violation = merged.counted
            let frame = SourceLocator.userFrame(violation.frames, root: root)
            let site = SourceLocator.describe(frame, root: root)
            let file = frame?.file.map { SourceLocator.relative($0, to: root) ?? $0 }
            let details = "\(plural(merged.count, "time", "times")) in \(plural(merged.pids.count, "process", "processes"))\n"
            return JUnitReport.TestCase(
                classname: "ctxdebug.\(merged.kind.rawValue)",
                name: "#\(index + 1) \(violation.access.summary)" + (site.map { " at \($0)" } ?? ""),
                file: file, line: file == nil ? nil : frame?.line ?? 0,
                failure: JUnitReport.Failure(type: merged.kind.rawValue, message: violation.message, text: details + violation.formattedReport()))
        }
        if cases.isEmpty {
            cases = [JUnitReport.TestCase(classname: "ctxdebug.concurrency", name: "no concurrency violations")]
        }
        return JUnitReport(
            name: "ctxdebug check", suiteName: "ctxdebug.concurrency",
            properties: [JUnitReport.Property(name: "command", value: command.joined(separator: " "))], cases: cases)
    }

    /// A rule per violation kind; a result per distinct violation at the user's line,
    /// with its stack as a code flow and a fingerprint of the stack.
    public func sarif(root: String, command: [String], exitStatus: Int32) -> SARIF.Log {
        let kinds = Array(Set(violations.map(\.kind.rawValue))).sorted()
        let results = violations.map { merged in
            let violation = merged.violation
            let location = SourceLocator.userFrame(violation.frames, root: root)
                .flatMap { CheckSARIF.physicalLocation($0, root: root) }
                .map { [SARIF.Location(physicalLocation: $0)] }
            return SARIF.Result(
                ruleId: merged.kind.rawValue, ruleIndex: kinds.firstIndex(of: merged.kind.rawValue) ?? 0, level: "error",
                message: violation.message + " Fix: " + violation.access.fixHint, locations: location,
                partialFingerprints: [SARIF.stackFingerprintKey: SARIF.fingerprint(MergedRun.stackKey(violation))],
                properties: [
                    "count": .integer(merged.count),
                    "processCount": .integer(merged.pids.count),
                    "queue": .string(violation.queueLabel),
                    "ownerQueue": .string(violation.access.ownerQueueLabel),
                    "operation": .string(violation.access.operation),
                ],
                codeFlows: CheckSARIF.codeFlows(violation, root: root))
        }
        return SARIF.Log(
            rules: kinds.map { CheckSARIF.rule(ViolationKind($0)) }, results: results, root: root,
            commandLine: command.joined(separator: " "), exitStatus: exitStatus, informationURI: CheckSARIF.documentation)
    }
}

extension MergedViolation {
    /// The violation with the count of the whole run.
    var counted: Violation {
        var violation = violation
        violation.count = count
        return violation
    }
}

private func plural(_ n: Int, _ one: String, _ many: String) -> String {
    "\(n) \(n == 1 ? one : many)"
}

/// The parts of `ctxdebug check`'s SARIF that are not one result's fields.
enum CheckSARIF {
    static let documentation = "https://github.com/ctxdebug/ctxdebug/blob/main/docs/ci.md"

    static func rule(_ kind: ViolationKind) -> SARIF.ReportingDescriptor {
        let tags = ["concurrency", "thread-safety"]
        switch kind {
        case .wrongQueue:
            return SARIF.ReportingDescriptor(
                id: kind.rawValue, name: "WrongQueueAccess",
                short: "A queue-confined object was touched from the wrong queue.",
                full: "A managed object, context or QueueConfined value was read or changed from a queue other than the one that owns it. Core Data's -com.apple.CoreData.ConcurrencyDebug 1 stops at such accesses.",
                help: "Wrap the access in `context.perform { }` / `performAndWait { }` of the owning context, or pass the objectID across queues and use `object(with:)` in the other context.",
                level: "error", tags: tags)
        case .performOffQueue:
            return SARIF.ReportingDescriptor(
                id: kind.rawValue, name: "PerformOffQueue", short: "A perform block did not run on its context's queue.",
                full: "A block the runtime dispatched onto a context's queue ran on another queue (level 2).",
                help: "Run context work through the context's own perform methods; do not re-dispatch perform blocks.",
                level: "error", tags: tags)
        default:
            return SARIF.ReportingDescriptor(
                id: kind.rawValue, name: kind.rawValue, short: "Concurrency violation: \(kind.rawValue).",
                full: "A concurrency violation of kind \(kind.rawValue) reported through ConcurrencyDebug.reportViolation.",
                help: "See the violation's message and fix hint.", level: "error", tags: tags)
        }
    }

    /// The stack as one thread flow, in execution order: outermost caller first, the
    /// offending access last.
    static func codeFlows(_ violation: Violation, root: String) -> [SARIF.CodeFlow]? {
        let steps = violation.frames.reversed().enumerated().map { index, frame in
            var text = frame.function ?? frame.moduleName ?? "0x" + String(frame.address, radix: 16)
            if let place = frame.location, frame.file?.hasPrefix("/") != true { text += " at " + place }
            return SARIF.ThreadFlowLocation(
                location: SARIF.Location(message: text, physicalLocation: physicalLocation(frame, root: root)), executionOrder: index + 1)
        }
        guard !steps.isEmpty else { return nil }
        return [
            SARIF.CodeFlow(
                message: "stack of the offending access (\(violation.queueLabel), thread \(violation.threadID))",
                threadFlows: [SARIF.ThreadFlow(locations: steps)])
        ]
    }

    static func physicalLocation(_ frame: StackFrame, root: String) -> SARIF.PhysicalLocation? {
        guard let file = frame.file, file.hasPrefix("/"), let line = frame.line, line > 0 else { return nil }
        let relative = SourceLocator.relative(file, to: root)
        return SARIF.PhysicalLocation(
            artifactLocation: .file(relative ?? file, relativeToRoot: relative != nil),
            region: SARIF.Region(startLine: line, startColumn: frame.column.flatMap { $0 > 0 ? $0 : nil }))
    }
}

/// The merged JSON of `ctxdebug check --json` (docs/ci.md).
public struct CheckJSON: Encodable {
    public struct Location: Encodable {
        var file: String
        var line: Int
        var column: Int?
    }

    public struct Entry: Encodable {
        var kind: String
        var count: Int
        var processCount: Int
        var message: String
        var location: Location?
        var access: AccessDescription
        var queueLabel: String
        var frames: [StackFrame]
    }

    var tool = "ctxdebug check"
    var formatVersion = 1
    var command: [String]
    var commandExitStatus: Int32
    var level: Int
    var processCount: Int
    var distinctCount: Int
    var totalCount: Int
    var violations: [Entry]

    public init(_ run: MergedRun, root: String, command: [String], exitStatus: Int32, level: Int) {
        self.command = command
        self.commandExitStatus = exitStatus
        self.level = level
        self.processCount = run.processCount
        self.distinctCount = run.violations.count
        self.totalCount = run.totalCount
        self.violations = run.violations.map { merged in
            let frame = SourceLocator.userFrame(merged.violation.frames, root: root)
            let location = frame.flatMap { frame in
                frame.file.map { Location(file: SourceLocator.relative($0, to: root) ?? $0, line: frame.line ?? 0, column: frame.column) }
            }
            return Entry(
                kind: merged.kind.rawValue, count: merged.count, processCount: merged.pids.count,
                message: merged.violation.message, location: location, access: merged.violation.access,
                queueLabel: merged.violation.queueLabel, frames: merged.violation.frames)
        }
    }

    public func data() throws -> Data {
        try JSONReport.encoder().encode(self)
    }
}
