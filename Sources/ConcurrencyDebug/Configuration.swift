import CConcurrencyDebug
import CtxdebugHelpers
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ConcurrencyDebug {
    /// What the checker does, read once per process from the environment (see
    /// `docs/concurrency-debug.md`), or set in code with `ConcurrencyDebug.configure(_:)`.
    public struct Configuration: Sendable, Equatable {
        /// What happens at a violation (`CTXDEBUG_ON_VIOLATION`).
        public enum OnViolation: String, Sendable, CaseIterable, CustomStringConvertible {
            /// Print the report, then stop with SIGTRAP in `ctxdebug_violation_trap`.
            case trap
            /// Record, deduplicate by stack, go on; at exit print a summary, write the
            /// JSON report and exit with `exitCode`.
            case report
            /// Print each distinct violation once and go on.
            case log

            public var description: String { rawValue }
        }

        /// How much the checker does (`CTXDEBUG_CONCURRENCY`).
        public var level: Level
        /// What happens at a violation: trap, report or log (`CTXDEBUG_ON_VIOLATION`).
        public var onViolation: OnViolation
        /// Where report mode writes its JSON at exit (`CTXDEBUG_REPORT`).
        public var reportPath: String?
        /// The status report mode exits with when it recorded a violation.
        public var exitCode: Int32
        /// A file of frame patterns; matching violations are not reported.
        public var suppressionsPath: String?
        /// Where every checked access is journaled; nil for no journal.
        public var accessJournalPath: String?
        /// A directory where report mode also writes its JSON at exit, as a file of its
        /// own (`CTXDEBUG_REPORT_DIR`): how `ctxdebug check` collects the reports of
        /// every process a command starts.
        public var reportDirectory: String?

        /// The exit status of report mode: ThreadSanitizer's convention.
        public static let defaultExitCode: Int32 = 66

        /// The variables the checker reads (their table: `ConcurrencyDebug.Variable`).
        /// `CTXDEBUG_CONCURRENCY`: the level, 0 to 3.
        public static let levelVariable = Variable.concurrency.name
        /// `CTXDEBUG_ON_VIOLATION`: `trap`, `report` or `log`.
        public static let onViolationVariable = Variable.onViolation.name
        /// `CTXDEBUG_REPORT`: the JSON report's file in report mode.
        public static let reportVariable = Variable.report.name
        /// `CTXDEBUG_EXITCODE`: report mode's exit status after a violation.
        public static let exitCodeVariable = Variable.exitCode.name
        /// `CTXDEBUG_SUPPRESSIONS`: the suppressions file.
        public static let suppressionsVariable = Variable.suppressions.name
        /// `CTXDEBUG_JOURNAL`: the access journal's file.
        public static let accessJournalVariable = Variable.journal.name
        /// `CTXDEBUG_REPORT_DIR`: a directory for one report file per process.
        public static let reportDirectoryVariable = Variable.reportDirectory.name
        /// Core Data's launch argument, honoured as an alternative to the level variable.
        public static let launchArgument = "-com.apple.CoreData.ConcurrencyDebug"
        /// Core Data's flag as an environment variable, as teams put it in schemes and
        /// test scripts (`env com.apple.CoreData.ConcurrencyDebug=1 swift test`).
        public static let appleEnvironmentVariable = "com.apple.CoreData.ConcurrencyDebug"

        /// A configuration with each setting given, and by default the checker off; what
        /// `ConcurrencyDebug.configure(_:)` takes instead of the environment's variables.
        public init(
            level: Level = .off, onViolation: OnViolation = .trap, reportPath: String? = nil,
            exitCode: Int32 = Configuration.defaultExitCode, suppressionsPath: String? = nil,
            accessJournalPath: String? = nil, reportDirectory: String? = nil
        ) {
            self.level = level
            self.onViolation = onViolation
            self.reportPath = reportPath
            self.exitCode = exitCode
            self.suppressionsPath = suppressionsPath
            self.accessJournalPath = accessJournalPath
            self.reportDirectory = reportDirectory
        }

        /// The journal used at level 3 when `CTXDEBUG_JOURNAL` is not set:
        /// `$TMPDIR/ctxdebug-<pid>.journal` (`/tmp` when `TMPDIR` is unset).
        public static func defaultJournalPath(environment: [String: String], pid: Int32) -> String {
            var directory = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
            return "\(directory)/ctxdebug-\(pid).journal"
        }

        /// Reads a configuration. Never fails: each value it cannot read gives one
        /// line in `warnings` naming the variable, the value, what is accepted and the
        /// fallback used.
        ///
        /// The level comes from `CTXDEBUG_CONCURRENCY` when it is set, else from Core
        /// Data's own switch: the environment variable `com.apple.CoreData.ConcurrencyDebug`,
        /// then the launch argument `-com.apple.CoreData.ConcurrencyDebug N`. Setting
        /// `CTXDEBUG_JOURNAL` with no level turns on level 3.
        public static func read(
            environment: [String: String], arguments: [String], pid: Int32
        ) -> (configuration: Configuration, warnings: [String]) {
            var configuration = Configuration()
            var reader = Reader(environment: environment)
            let levelWasSet = reader.level(arguments: arguments, into: &configuration)
            if let raw = environment[onViolationVariable] {
                if let mode = EnvironmentValue.choice(raw, among: OnViolation.allCases.map(\.rawValue)).flatMap(OnViolation.init) {
                    configuration.onViolation = mode
                } else {
                    reader.warn(onViolationVariable, raw, accepted: "trap, report, log", fallback: "trap")
                }
            }
            configuration.reportPath = reader.path(reportVariable, accepted: "a file path", fallback: "no JSON report")
            configuration.reportDirectory = reader.path(
                reportDirectoryVariable, accepted: "a directory path", fallback: "no report directory")
            if let raw = environment[exitCodeVariable] {
                if case .integer(let range) = Variable.exitCode.type, let code = EnvironmentValue.integer(raw, in: range) {
                    configuration.exitCode = Int32(code)
                } else {
                    reader.warn(exitCodeVariable, raw, accepted: "an integer from 0 to 255", fallback: "\(defaultExitCode)")
                }
            }
            configuration.suppressionsPath = reader.path(suppressionsVariable, accepted: "a file path", fallback: "no suppressions")
            reader.accessJournal(levelWasSet: levelWasSet, pid: pid, into: &configuration)
            return (configuration, reader.warnings)
        }

        /// Reads values one by one, keeping a warning for each it cannot read.
        private struct Reader {
            let environment: [String: String]
            var warnings: [String] = []

            mutating func warn(_ name: String, _ value: String, accepted: String, fallback: String) {
                warnings.append("ctxdebug: warning: \(name)=\(quoted(value)) is not valid; accepted: \(accepted); using \(fallback).")
            }

            /// A path, or nil: unset, or empty (with a warning).
            mutating func path(_ name: String, accepted: String, fallback: String) -> String? {
                guard let raw = environment[name] else { return nil }
                guard !EnvironmentValue.isBlank(raw) else {
                    warn(name, raw, accepted: accepted, fallback: fallback)
                    return nil
                }
                return raw
            }

            /// The level, from the variable or else the launch argument; whether either was given.
            mutating func level(arguments: [String], into configuration: inout Configuration) -> Bool {
                let name: String
                let raw: String
                if let value = environment[levelVariable] {
                    (name, raw) = (levelVariable, value)
                } else if let value = environment[appleEnvironmentVariable] {
                    (name, raw) = (appleEnvironmentVariable, value)
                } else if let index = arguments.firstIndex(of: launchArgument) {
                    let next = arguments.index(after: index)
                    (name, raw) = ("the launch argument \(launchArgument)", next < arguments.endIndex ? arguments[next] : "")
                } else {
                    return false
                }
                if let level = Level(EnvironmentValue.trimmed(raw)) {
                    configuration.level = level
                } else {
                    configuration.level = .check
                    warn(name, raw, accepted: "0 (off), 1 (check), 2 (also perform queues), 3 (also journal)", fallback: "1")
                }
                return true
            }

            /// The journal: `CTXDEBUG_JOURNAL` (alone, it turns on level 3), or the
            /// default one at level 3; none at level 0.
            mutating func accessJournal(levelWasSet: Bool, pid: Int32, into configuration: inout Configuration) {
                if let raw = environment[accessJournalVariable] {
                    if EnvironmentValue.isBlank(raw) {
                        warn(accessJournalVariable, raw, accepted: "a file path (%p is replaced by the process id)",
                             fallback: configuration.level == .journal ? "the default journal" : "no journal")
                    } else if levelWasSet && configuration.level == .off {
                        warnings.append(
                            "ctxdebug: warning: \(accessJournalVariable) is set but checking is off (level 0); no journal is written.")
                    } else {
                        configuration.accessJournalPath = EnvironmentValue.replacingPercentP(in: raw, with: pid)
                        if !levelWasSet { configuration.level = .journal }
                    }
                }
                if configuration.level == .journal && configuration.accessJournalPath == nil {
                    configuration.accessJournalPath = defaultJournalPath(environment: environment, pid: pid)
                }
                if configuration.level == .off { configuration.accessJournalPath = nil }
            }
        }

        /// The one-line banner printed at the first context when checking is on.
        public var banner: String {
            var text = "ctxdebug: concurrency checking on (level \(level), on violation: \(onViolation)"
            if let accessJournalPath { text += ", journal: \(accessJournalPath)" }
            return text + ")"
        }

        /// The configuration of this process, from its environment and arguments.
        static func fromProcess() -> (configuration: Configuration, warnings: [String]) {
            read(environment: Variable.current(), arguments: CommandLine.arguments, pid: getpid())
        }
    }
}

extension ConcurrencyDebug {
    /// How much the checker does: `CTXDEBUG_CONCURRENCY=N`, or Core Data's launch
    /// argument `-com.apple.CoreData.ConcurrencyDebug N`. Each level does what the one
    /// below does, and more. An integer literal stands for its level (`level: 1`).
    public enum Level: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible, ExpressibleByIntegerLiteral {
        /// Checking off.
        case off = 0
        /// Check every access against the queue that owns it.
        case check = 1
        /// Also assert that each perform block runs on its context's queue.
        case performQueues = 2
        /// Also journal every access (`CTXDEBUG_JOURNAL`).
        case journal = 3

        /// A literal outside 0...3 is a programming error.
        public init(integerLiteral value: Int) {
            guard let level = Level(rawValue: value) else { preconditionFailure("a checking level is 0, 1, 2 or 3, not \(value)") }
            self = level
        }

        /// The level a variable's text names ("2", " 3 "), or nil.
        init?(_ text: Substring) {
            guard let number = Int(text) else { return nil }
            self.init(rawValue: number)
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        /// The number, as `CTXDEBUG_CONCURRENCY` takes it.
        public var description: String { String(rawValue) }
    }

    /// What each checked access does: the C global that the hot path loads
    /// (`ctxdebug_access_mode()`), with the names the C header gives its values.
    struct AccessMode: RawRepresentable, Equatable, Sendable {
        let rawValue: Int32

        /// Not configured yet: the slow path configures.
        static let unconfigured = AccessMode(rawValue: Int32(CTXDEBUG_ACCESS_UNCONFIGURED))
        /// Checking off.
        static let off = AccessMode(rawValue: Int32(CTXDEBUG_ACCESS_OFF))
        /// Compare owners (levels 1 and 2).
        static let check = AccessMode(rawValue: Int32(CTXDEBUG_ACCESS_CHECK))
        /// Compare owners and append to the access journal (level 3, or a journal).
        static let checkAndLog = AccessMode(rawValue: Int32(CTXDEBUG_ACCESS_CHECK_AND_LOG))
        /// Compare owners, always out of line: `check` once a runtime guards an owner
        /// (`ConcurrencyDebug.beginGuarding()`).
        static let checkGuarded = AccessMode(rawValue: Int32(CTXDEBUG_ACCESS_CHECK_GUARDED))

        /// The mode of `level`, with or without an access journal.
        init(level: Level, logging: Bool) {
            self = level == .off ? .off : (logging ? .checkAndLog : .check)
        }

        init(rawValue: Int32) { self.rawValue = rawValue }

        static var current: AccessMode { AccessMode(rawValue: ctxdebug_access_mode()) }
        static func set(_ mode: AccessMode) {
            ctxdebug_set_access_mode(mode.rawValue)
            Guarding.settle()
        }
    }
}

private func quoted(_ value: String) -> String {
    "\"" + EnvironmentValue.replacingAll("\"", in: value, with: "\\\"") + "\""
}
