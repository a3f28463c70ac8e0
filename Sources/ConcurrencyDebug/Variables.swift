import CtxdebugHelpers
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ConcurrencyDebug {
    /// One environment variable of the one configuration: its name, the type of its
    /// value, its default and range, and the line `ctxdebug --help` prints for it.
    /// `Variable.all` is the table of every `CTXDEBUG_*` variable of the configuration (not
    /// `CTXDEBUG_DISPATCH_COST`, explore's cost file, which DispatchControl+Cost.swift reads
    /// with getenv; the preload library reads `CTXDEBUG_EXPLORE_SOCKET` itself); the checker, the
    /// diagnostics and the symbolizer read their values through it (`current`), the CLI
    /// and the tests build child environments from it (`environment(_:)`), and a test
    /// checks that README.md and docs/concurrency-debug.md list exactly these.
    package struct Variable: Sendable, Hashable, CustomStringConvertible {
        /// What a value is, and how it is read. Every value is read with the helpers'
        /// one trimming rule (`EnvironmentValue`): a number, level, mode or list item
        /// without the whitespace around it; a path as given (only whitespace: empty).
        package enum ValueType: Sendable, Hashable {
            /// A checking level, `0` to `3`.
            case level
            /// One of these words, in any case.
            case choice([String])
            /// A file or directory path.
            case path
            /// An integer in the range.
            case integer(ClosedRange<Int>)
            /// A finite number of at least the minimum.
            case number(atLeast: Double)
            /// A comma-separated list of names.
            case list
            /// A program's path, or `none`.
            case program
        }

        package let name: String
        package let type: ValueType
        /// The default, as the docs say it ("none" when unset means nothing).
        package let defaultValue: String
        /// What `--help` shows after `=`: `FILE`, `MODE`, `0..3`.
        package let placeholder: String
        /// One line for `--help` (short: with the longest name it fits 80 columns).
        package let help: String

        package var description: String { name }

        /// The value of this variable in `environment`, untouched (nil when unset).
        package func value(in environment: [String: String]) -> String? { environment[name] }

        /// The default as a number, for the thresholds.
        package var defaultNumber: Double { Double(defaultValue) ?? 0 }
    }
}

extension ConcurrencyDebug.Variable {
    package static let concurrency = Self(
        name: "CTXDEBUG_CONCURRENCY", type: .level, defaultValue: "0", placeholder: "0..3",
        help: "off, check, +perform queues, +journal")
    package static let onViolation = Self(
        name: "CTXDEBUG_ON_VIOLATION", type: .choice(["trap", "report", "log"]), defaultValue: "trap", placeholder: "MODE",
        help: "trap (default), report, log")
    package static let report = Self(
        name: "CTXDEBUG_REPORT", type: .path, defaultValue: "none", placeholder: "FILE",
        help: "JSON report; report mode exits 66")
    package static let exitCode = Self(
        name: "CTXDEBUG_EXITCODE", type: .integer(0...255), defaultValue: "66", placeholder: "N",
        help: "exit status in report mode (default 66)")
    package static let reportDirectory = Self(
        name: "CTXDEBUG_REPORT_DIR", type: .path, defaultValue: "none", placeholder: "DIR",
        help: "also a JSON report per process there")
    package static let suppressions = Self(
        name: "CTXDEBUG_SUPPRESSIONS", type: .path, defaultValue: "none", placeholder: "FILE",
        help: "frame patterns to ignore")
    package static let symbolizer = Self(
        name: "CTXDEBUG_SYMBOLIZER", type: .program, defaultValue: "found next to swift", placeholder: "PATH",
        help: "llvm-symbolizer to use, or none")
    package static let journal = Self(
        name: "CTXDEBUG_JOURNAL", type: .path, defaultValue: "none", placeholder: "FILE",
        help: "access journal (%p: the process id)")
    package static let diagnostics = Self(
        name: "CTXDEBUG_DIAGNOSTICS", type: .list, defaultValue: "default", placeholder: "LIST",
        help: "kinds beyond queues (docs/diagnostics.md)")
    package static let missingMergeGrace = Self(
        name: "CTXDEBUG_MISSING_MERGE_GRACE_MS", type: .number(atLeast: 0), defaultValue: "250", placeholder: "MS",
        help: "missing-merge: how old a save must be")
    package static let mainQueueWait = Self(
        name: "CTXDEBUG_MAIN_QUEUE_WAIT_MS", type: .number(atLeast: 0), defaultValue: "100", placeholder: "MS",
        help: "main-queue-wait: the longest wait")
    package static let mainQueueIORows = Self(
        name: "CTXDEBUG_MAIN_QUEUE_IO_ROWS", type: .number(atLeast: 0), defaultValue: "1000", placeholder: "ROWS",
        help: "main-queue-io: most rows per fetch/save")
    package static let mainQueueIOTime = Self(
        name: "CTXDEBUG_MAIN_QUEUE_IO_MS", type: .number(atLeast: 0), defaultValue: "16", placeholder: "MS",
        help: "main-queue-io: longest fetch or save")
    // Set by `ctxdebug explore` for the processes it runs (docs/explore.md).
    package static let exploreSocket = Self(
        name: "CTXDEBUG_EXPLORE_SOCKET", type: .path, defaultValue: "none", placeholder: "PATH",
        help: "explored: the parent's decisions")
    package static let exploreGranularity = Self(
        name: "CTXDEBUG_EXPLORE_GRANULARITY", type: .choice(["coarse", "fine"]), defaultValue: "coarse", placeholder: "G",
        help: "explored: coarse, or fine (+faults)")
    package static let exploreHangTimeout = Self(
        name: "CTXDEBUG_EXPLORE_HANG_TIMEOUT", type: .number(atLeast: 0), defaultValue: "2", placeholder: "S",
        help: "explored: seconds without a decision")
    package static let exploreAllowUncontrolled = Self(
        name: "CTXDEBUG_EXPLORE_ALLOW_UNCONTROLLED", type: .choice(["0", "1"]), defaultValue: "0", placeholder: "0|1",
        help: "explored: let stray threads run")
    package static let exploreSites = Self(
        name: "CTXDEBUG_EXPLORE_SITES", type: .choice(["0", "1"]), defaultValue: "0", placeholder: "0|1",
        help: "explored: send source sites at exit")

    /// Every `CTXDEBUG_*` variable of the configuration, in the order `--help` and the docs list them.
    package static let all: [Self] = [
        concurrency, onViolation, report, exitCode, reportDirectory, suppressions, symbolizer, journal,
        diagnostics, missingMergeGrace, mainQueueWait, mainQueueIORows, mainQueueIOTime,
        exploreSocket, exploreGranularity, exploreHangTimeout, exploreAllowUncontrolled, exploreSites,
    ]

    /// The one place the configuration reads the process's environment: every variable of the table
    /// that is set, Core Data's own switch (`com.apple.CoreData.ConcurrencyDebug`, which
    /// the configuration reads when `CTXDEBUG_CONCURRENCY` is unset), and `TMPDIR` (for
    /// the default journal's directory).
    package static func current() -> [String: String] {
        var environment: [String: String] = [:]
        for name in all.map(\.name) + [ConcurrencyDebug.Configuration.appleEnvironmentVariable, "TMPDIR"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return environment
    }

    /// `base` with `values` set and `removing` taken out: the environment of a child
    /// process (with `base` empty, the variables to add to one).
    package static func environment(
        _ values: [Self: String], removing: [Self] = [], base: [String: String] = [:]
    ) -> [String: String] {
        var environment = base
        for variable in removing { environment.removeValue(forKey: variable.name) }
        for (variable, value) in values { environment[variable.name] = value }
        return environment
    }

    /// Sets this variable in this process's own environment, for the configuration to
    /// read at the first context: the CLI's `--inject-bug`, and a test's child process
    /// (an exit test) before its first context.
    package func set(_ value: String) { setenv(name, value, 1) }

    /// Takes this variable out of this process's own environment.
    package func unset() { unsetenv(name) }

    /// Sets each of `values` in this process's own environment (`set(_:)`).
    package static func set(_ values: [Self: String]) {
        for (variable, value) in values { variable.set(value) }
    }

    /// The table as `--help` prints it: one line a variable, the help aligned.
    package static var helpText: String {
        let names = all.map { "\($0.name)=\($0.placeholder)" }
        // Aligned for the names that leave the help room in 80 columns; a longer name
        // (one of explore's, whose help is short) takes its own two spaces.
        let width = names.filter { $0.count <= 34 }.map(\.count).max() ?? 0
        return zip(names, all).map { name, variable in
            "  " + name + String(repeating: " ", count: max(0, width - name.count) + 2) + variable.help
        }.joined(separator: "\n")
    }
}
