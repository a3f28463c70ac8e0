/// One run of `ctxdebug lint`, in values only: what its text, JSON, SARIF and JUnit
/// outputs show (Reports renders them; the CLI fills this from CoreDataLint's results).
public struct LintRun: Sendable {
    /// One finding, at its place in a file: what `ctxdebug lint` found (CoreDataLint
    /// names this type `Finding`) and what every output shows. One type, so no field is
    /// copied by hand between the linter and its reports.
    public struct Finding: Sendable, Hashable {
        public var ruleID: String
        /// The file as the linter was given it (relative to the current directory when under it).
        public var path: String
        public var line: Int
        public var column: Int
        /// What is wrong, naming both contexts or queues. The only line numbers it holds
        /// are those of facts cited from other places ("(CoreDataStack.swift:48)"), which
        /// the fingerprint leaves out, so a baseline still matches when the code moves.
        public var message: String
        /// What to write instead.
        public var fix: String
        /// The source line, trimmed: part of the fingerprint.
        public var snippet: String

        public init(ruleID: String, path: String, line: Int, column: Int, message: String, fix: String, snippet: String) {
            (self.ruleID, self.path, self.line, self.column) = (ruleID, path, line, column)
            (self.message, self.fix, self.snippet) = (message, fix, snippet)
        }

        /// Stable across runs, machines and moves of the code: the rule, the message and
        /// the trimmed source line, hashed (FNV-1a, 64 bits, hex). What a baseline matches on.
        public var fingerprint: String {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in "\(ruleID)\u{1}\(Self.withoutCitedLines(message))\u{1}\(snippet)".utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
            return String(hash, radix: 16)
        }

        /// The message without the line numbers of cited places: "(Stack.swift:48)" reads
        /// "(Stack.swift)", "at Stack.swift:48," reads "at Stack.swift,".
        public static func withoutCitedLines(_ message: String) -> String {
            var result = Substring()
            var rest = Substring(message)
            while let range = rest.range(of: ".swift:") {
                result += rest[..<range.lowerBound] + ".swift"
                rest = rest[range.upperBound...]
                let digits = rest.prefix { $0.isASCII && $0.isNumber }
                rest = digits.isEmpty ? Substring(":") + rest : rest.dropFirst(digits.count)
            }
            return String(result + rest)
        }
    }

    /// A rule that ran, as SARIF describes it.
    public struct Rule: Sendable {
        public var id: String
        public var name: String
        public var summary: String
        public var rationale: String
        public var fix: String

        public init(id: String, name: String, summary: String, rationale: String, fix: String) {
            (self.id, self.name, self.summary, self.rationale, self.fix) = (id, name, summary, rationale, fix)
        }
    }

    /// A file that could not be read, or parsed as Swift.
    public struct Problem: Sendable, CustomStringConvertible {
        public var path: String
        public var reason: String

        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }

        public var description: String { "\(path): \(reason)" }
    }

    /// The findings to report: new ones only when a baseline was given.
    public var findings: [Finding]
    /// Findings left out because the baseline holds them.
    public var baselinedCount: Int
    /// The rules that ran, in order.
    public var rules: [Rule]
    public var fileCount: Int
    public var lineCount: Int
    public var errors: [Problem]
    /// Files that could not be parsed as Swift, skipped.
    public var skipped: [Problem]
    /// Paths in findings are relative to this directory when under it.
    public var root: String
    public var commandLine: String
    public var exitStatus: Int32

    public init(
        findings: [Finding], baselinedCount: Int, rules: [Rule], fileCount: Int, lineCount: Int, errors: [Problem],
        skipped: [Problem] = [], root: String, commandLine: String, exitStatus: Int32
    ) {
        (self.findings, self.baselinedCount, self.rules, self.fileCount, self.lineCount) = (findings, baselinedCount, rules, fileCount, lineCount)
        (self.errors, self.skipped, self.root, self.commandLine, self.exitStatus) = (errors, skipped, root, commandLine, exitStatus)
    }
}

extension LintRun.Finding: Comparable {
    /// By path, line, column and rule: the order findings are reported in.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.path, lhs.line, lhs.column, lhs.ruleID) < (rhs.path, rhs.line, rhs.column, rhs.ruleID)
    }
}
