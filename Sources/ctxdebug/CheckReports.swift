import ConcurrencyDebug
import Foundation

// The model and renderers of `ctxdebug check`: merging the JSON reports of many
// processes, and writing the summary, JUnit XML, SARIF 2.1.0 and merged JSON.
//
// They live here rather than in Reports: Reports depends on Replay (and through it on
// SurfJournal, ManagedContext and GRDB), and these need nothing but ConcurrencyDebug's
// report types. Moving them to Reports later is a file move.

/// One distinct violation across every process of a run: same kind, same symbolicated
/// stack (function, file, line of each frame; addresses differ between processes).
struct MergedViolation {
    var violation: Violation
    /// Occurrences in all processes.
    var count: Int
    /// The processes it happened in.
    var pids: Set<Int32>
    /// First seen: the order for equal counts.
    var order: Int

    var kind: ViolationKind { violation.kind }
}

struct MergedRun {
    var violations: [MergedViolation]
    var processCount: Int
    var totalCount: Int { violations.reduce(0) { $0 + $1.count } }

    /// Merges reports, grouping by kind and stack, most frequent first.
    init(reports: [ViolationReportFile]) {
        var groups: [String: MergedViolation] = [:]
        var pids = Set<Int32>()
        var next = 0
        for report in reports {
            pids.insert(report.pid)
            for violation in report.violations {
                let key = Self.stackKey(violation)
                if var group = groups[key] {
                    group.count += violation.count
                    group.pids.insert(report.pid)
                    groups[key] = group
                } else {
                    groups[key] = MergedViolation(violation: violation, count: violation.count, pids: [report.pid], order: next)
                    next += 1
                }
            }
        }
        violations = groups.values.sorted { ($0.count, -$0.order) > ($1.count, -$1.order) }
        processCount = pids.count
    }

    static func stackKey(_ violation: Violation) -> String {
        var key = violation.kind.rawValue
        if violation.frames.isEmpty {
            return key + "\u{1}" + violation.message
        }
        for frame in violation.frames {
            key += "\u{1}" + (frame.function ?? frame.moduleName ?? "?")
            key += "\u{2}" + (frame.file ?? "") + ":" + String(frame.line ?? 0)
        }
        return key
    }
}

/// Where an offending access is, for SARIF and JUnit: the first frame in the user's
/// code, skipping the checker's and the runtime's own frames.
enum SourceLocator {
    /// Source directories whose frames are the runtime's, not the user's.
    static let runtimeDirectories = ["/Sources/ConcurrencyDebug/", "/Sources/ManagedContext/", "/Sources/CConcurrencyDebug/"]

    static func isRuntime(_ file: String) -> Bool {
        runtimeDirectories.contains { file.contains($0) }
    }

    /// The first frame with a file and line that is not the runtime's: preferably
    /// under `root`, else anywhere. Frames the process marked as the runtime's
    /// (`isRuntime`: the property wrapper, the wrapped property's getter, the context's
    /// checks) are skipped first, as the printed report skips them.
    static func userFrame(_ frames: [StackFrame], root: String) -> StackFrame? {
        let candidates = frames.drop { $0.isRuntime }.filter { frame in
            guard let file = frame.file, file.hasPrefix("/"), let line = frame.line, line > 0 else { return false }
            return !isRuntime(file)
        }
        return candidates.first { relative($0.file!, to: root) != nil } ?? candidates.first
    }

    /// `path` relative to `root` when it is under it, else nil.
    static func relative(_ path: String, to root: String) -> String? {
        // Debug info may hold paths relative to a build directory elsewhere
        // ("./nptl/pthread_create.c"): those are not under the root.
        guard path.hasPrefix("/") else { return nil }
        let root = root.hasSuffix("/") ? root : root + "/"
        let standardized = URL(fileURLWithPath: path).standardizedFileURL.path
        guard standardized.hasPrefix(root) else { return nil }
        return String(standardized.dropFirst(root.count))
    }

    /// "Tests/X/Y.swift:12" (relative when possible), or nil.
    static func describe(_ frame: StackFrame?, root: String) -> String? {
        guard let frame, let file = frame.file, let line = frame.line else { return nil }
        return (relative(file, to: root) ?? file) + ":\(line)"
    }
}

// MARK: Summary

enum CheckSummary {
    static func render(_ run: MergedRun, root: String) -> String {
        var text = ""
        let n = run.violations.count
        text += "ctxdebug check: \(n) distinct concurrency violation\(n == 1 ? "" : "s") (\(run.totalCount) in all)"
        text += " in \(run.processCount) process\(run.processCount == 1 ? "" : "es"), most frequent first\n"
        for (index, merged) in run.violations.enumerated() {
            var violation = merged.violation
            violation.count = merged.count
            let site = SourceLocator.describe(SourceLocator.userFrame(violation.frames, root: root), root: root)
            text += "\n[\(index + 1)/\(n)] \(merged.count) time\(merged.count == 1 ? "" : "s"), \(merged.kind)"
            text += site.map { " at \($0)" } ?? ""
            text += ", in \(merged.pids.count) process\(merged.pids.count == 1 ? "" : "es")\n"
            text += violation.report
        }
        return text
    }
}

// MARK: JUnit

enum JUnitRenderer {
    static func render(_ run: MergedRun, root: String, command: [String]) -> String {
        let failures = run.violations.count
        let tests = max(failures, 1)
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml += #"<testsuites name="ctxdebug check" tests="\#(tests)" failures="\#(failures)" errors="0">"# + "\n"
        xml += #"  <testsuite name="ctxdebug.concurrency" tests="\#(tests)" failures="\#(failures)" errors="0" skipped="0" time="0">"# + "\n"
        xml += #"    <properties><property name="command" value="\#(escape(command.joined(separator: " ")))"/></properties>"# + "\n"
        if run.violations.isEmpty {
            xml += #"    <testcase classname="ctxdebug.concurrency" name="no concurrency violations" time="0"/>"# + "\n"
        }
        for (index, merged) in run.violations.enumerated() {
            var violation = merged.violation
            violation.count = merged.count
            let frame = SourceLocator.userFrame(violation.frames, root: root)
            let site = SourceLocator.describe(frame, root: root)
            let name = "#\(index + 1) \(violation.access.summary)" + (site.map { " at \($0)" } ?? "")
            var attributes = #"classname="ctxdebug.\#(escape(merged.kind.rawValue))" name="\#(escape(name))" time="0""#
            if let frame, let file = frame.file {
                attributes += #" file="\#(escape(SourceLocator.relative(file, to: root) ?? file))" line="\#(frame.line ?? 0)""#
            }
            xml += "    <testcase \(attributes)>\n"
            xml += #"      <failure type="\#(escape(merged.kind.rawValue))" message="\#(escape(violation.message))">"#
            xml += escape("\(merged.count) time\(merged.count == 1 ? "" : "s") in \(merged.pids.count) process\(merged.pids.count == 1 ? "" : "es")\n" + violation.report)
            xml += "</failure>\n"
            xml += "    </testcase>\n"
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    /// XML text and attribute escaping; drops characters XML 1.0 cannot hold.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                let v = scalar.value
                if v < 0x20 || (0xFFFE...0xFFFF).contains(v) { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

// MARK: SARIF 2.1.0

enum SARIFRenderer {
    static let schema = "https://json.schemastore.org/sarif-2.1.0.json"
    static let rootBase = "%SRCROOT%"

    struct RuleText {
        var name: String
        var short: String
        var full: String
        var help: String
    }

    static func ruleText(_ kind: ViolationKind) -> RuleText {
        switch kind {
        case .wrongQueue:
            return RuleText(
                name: "WrongQueueAccess",
                short: "A queue-confined object was touched from the wrong queue.",
                full: "A managed object, context or QueueConfined value was read or changed from a queue other than the one that owns it. Core Data's -com.apple.CoreData.ConcurrencyDebug 1 stops at such accesses.",
                help: "Wrap the access in `context.perform { }` / `performAndWait { }` of the owning context, or pass the objectID across queues and use `object(with:)` in the other context.")
        case .performOffQueue:
            return RuleText(
                name: "PerformOffQueue",
                short: "A perform block did not run on its context's queue.",
                full: "A block the runtime dispatched onto a context's queue ran on another queue (level 2).",
                help: "Run context work through the context's own perform methods; do not re-dispatch perform blocks.")
        default:
            return RuleText(
                name: kind.rawValue, short: "Concurrency violation: \(kind.rawValue).",
                full: "A concurrency violation of kind \(kind.rawValue) reported through ConcurrencyDebug.reportViolation.",
                help: "See the violation's message and fix hint.")
        }
    }

    static func render(_ run: MergedRun, root: String, command: [String], exitStatus: Int32) throws -> Data {
        let kinds = Array(Set(run.violations.map(\.kind.rawValue))).sorted()
        let rules: [[String: Any]] = kinds.map { id in
            let text = ruleText(ViolationKind(id))
            return [
                "id": id,
                "name": text.name,
                "shortDescription": ["text": text.short],
                "fullDescription": ["text": text.full],
                "help": ["text": text.help],
                "defaultConfiguration": ["level": "error"],
                "properties": ["tags": ["concurrency", "thread-safety"]],
            ]
        }
        var results: [[String: Any]] = []
        for merged in run.violations {
            let violation = merged.violation
            var result: [String: Any] = [
                "ruleId": merged.kind.rawValue,
                "ruleIndex": kinds.firstIndex(of: merged.kind.rawValue) ?? 0,
                "level": "error",
                "message": ["text": violation.message + " Fix: " + violation.access.fixHint],
                "partialFingerprints": ["ctxdebugStack/v1": fingerprint(MergedRun.stackKey(violation))],
                "properties": [
                    "count": merged.count,
                    "processCount": merged.pids.count,
                    "queue": violation.queueLabel,
                    "ownerQueue": violation.access.ownerQueueLabel,
                    "operation": violation.access.operation,
                ],
            ]
            if let frame = SourceLocator.userFrame(violation.frames, root: root), let physical = physicalLocation(frame, root: root) {
                result["locations"] = [["physicalLocation": physical]]
            }
            // The stack as one thread flow, in execution order: outermost caller first,
            // the offending access last.
            let steps: [[String: Any]] = violation.frames.reversed().enumerated().map { index, frame in
                var text = frame.function ?? frame.moduleName ?? "0x" + String(frame.address, radix: 16)
                if let place = frame.location, frame.file?.hasPrefix("/") != true { text += " at " + place }
                var location: [String: Any] = ["message": ["text": text]]
                if let physical = physicalLocation(frame, root: root) { location["physicalLocation"] = physical }
                return ["location": location, "executionOrder": index + 1]
            }
            if !steps.isEmpty {
                result["codeFlows"] = [[
                    "message": ["text": "stack of the offending access (\(violation.queueLabel), thread \(violation.threadID))"],
                    "threadFlows": [["locations": steps]],
                ]]
            }
            results.append(result)
        }
        return try log(
            rules: rules, results: results, root: root, commandLine: command.joined(separator: " "), exitStatus: exitStatus,
            informationURI: "https://github.com/ctxdebug/ctxdebug/blob/main/docs/ci.md")
    }

    /// A SARIF 2.1.0 log of one run of ctxdebug: the tool and its rules, the source
    /// root as `%SRCROOT%` (results give paths relative to it), the invocation and the
    /// results. Shared by `ctxdebug check` and `ctxdebug lint`.
    static func log(
        rules: [[String: Any]], results: [[String: Any]], root: String, commandLine: String, exitStatus: Int32, informationURI: String
    ) throws -> Data {
        let rootURI = URL(fileURLWithPath: root, isDirectory: true).absoluteString
        let log: [String: Any] = [
            "$schema": schema,
            "version": "2.1.0",
            "runs": [[
                "tool": ["driver": [
                    "name": "ctxdebug",
                    "informationUri": informationURI,
                    "rules": rules,
                ]],
                "originalUriBaseIds": [rootBase: ["uri": rootURI.hasSuffix("/") ? rootURI : rootURI + "/"]],
                "invocations": [[
                    "commandLine": commandLine,
                    "exitCode": Int(exitStatus),
                    "executionSuccessful": true,
                ]],
                "results": results,
            ]],
        ]
        return try JSONSerialization.data(withJSONObject: log, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    static func physicalLocation(_ frame: StackFrame, root: String) -> [String: Any]? {
        guard let file = frame.file, file.hasPrefix("/"), let line = frame.line, line > 0 else { return nil }
        let artifact: [String: Any]
        if let relative = SourceLocator.relative(file, to: root) {
            artifact = ["uri": percentEncoded(relative), "uriBaseId": rootBase]
        } else {
            artifact = ["uri": URL(fileURLWithPath: file).absoluteString]
        }
        var region: [String: Any] = ["startLine": line]
        if let column = frame.column, column > 0 { region["startColumn"] = column }
        return ["artifactLocation": artifact, "region": region]
    }

    static func percentEncoded(_ path: String) -> String {
        path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
    }

    /// FNV-1a, 64 bits, as hex: stable across runs and machines for the same stack.
    static func fingerprint(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}

// MARK: Merged JSON

struct CheckJSON: Encodable {
    struct Location: Encodable {
        var file: String
        var line: Int
        var column: Int?
    }

    struct Entry: Encodable {
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

    init(_ run: MergedRun, root: String, command: [String], exitStatus: Int32, level: Int) {
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

    func data() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
