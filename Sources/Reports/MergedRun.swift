public import ViolationModel
import Foundation

// `ctxdebug check` runs a command whose processes each write a JSON report of their
// violations; these merge them and find, for each, the user's line.

/// One distinct violation across every process of a run: same kind, same symbolicated
/// stack (function, file, line of each frame; addresses differ between processes).
public struct MergedViolation: Sendable {
    public var violation: Violation
    /// Occurrences in all processes.
    public var count: Int
    /// The processes it happened in.
    public var pids: Set<Int32>
    /// First seen: the order for equal counts.
    public var order: Int

    public var kind: ViolationKind { violation.kind }
}

/// The violations of a run of many processes (`ctxdebug check`), merged.
public struct MergedRun: Sendable {
    public var violations: [MergedViolation]
    public var processCount: Int
    public var totalCount: Int { violations.reduce(0) { $0 + $1.count } }

    /// Merges reports, grouping by kind and stack, most frequent first.
    public init(reports: [ViolationReportFile]) {
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

    /// The kind and the symbolicated stack (the message when there is no stack).
    public static func stackKey(_ violation: Violation) -> String {
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
public enum SourceLocator {
    /// Source directories whose frames are the runtime's, not the user's.
    public static let runtimeDirectories = ["/Sources/ConcurrencyDebug/", "/Sources/ManagedContext/", "/Sources/CConcurrencyDebug/"]

    public static func isRuntime(_ file: String) -> Bool {
        runtimeDirectories.contains { file.contains($0) }
    }

    /// The first frame with a file and line that is not the runtime's: preferably
    /// under `root`, else anywhere. Frames the process marked as the runtime's
    /// (`isRuntime`: the property wrapper, the wrapped property's getter, the context's
    /// checks) are skipped first, as the printed report skips them.
    public static func userFrame(_ frames: [StackFrame], root: String) -> StackFrame? {
        let candidates = frames.drop { $0.isRuntime }.filter { frame in
            guard let file = frame.file, file.hasPrefix("/"), let line = frame.line, line > 0 else { return false }
            return !isRuntime(file)
        }
        return candidates.first { relative($0.file!, to: root) != nil } ?? candidates.first
    }

    /// `path` relative to `root` when it is under it, else nil.
    public static func relative(_ path: String, to root: String) -> String? {
        // Debug info may hold paths relative to a build directory elsewhere
        // ("./nptl/pthread_create.c"): those are not under the root.
        guard path.hasPrefix("/") else { return nil }
        let root = root.hasSuffix("/") ? root : root + "/"
        let standardized = URL(fileURLWithPath: path).standardizedFileURL.path
        guard standardized.hasPrefix(root) else { return nil }
        return String(standardized.dropFirst(root.count))
    }

    /// "Tests/X/Y.swift:12" (relative when possible), or nil.
    public static func describe(_ frame: StackFrame?, root: String) -> String? {
        guard let frame, let file = frame.file, let line = frame.line else { return nil }
        return (relative(file, to: root) ?? file) + ":\(line)"
    }
}
