/// One run of `ctxdebug lint`, in values only: what its text, JSON, SARIF and JUnit
/// outputs show (Reports renders them; the CLI fills this from CoreDataLint's results).
public struct LintRun: Sendable {
    /// One finding, at its place in a file.
    public struct Finding: Sendable {
        public var ruleID: String
        public var path: String
        public var line: Int
        public var column: Int
        public var message: String
        public var fix: String
        public var snippet: String
        /// Rule, message and source line without its number: what a baseline matches on.
        public var fingerprint: String

        public init(
            ruleID: String, path: String, line: Int, column: Int, message: String, fix: String, snippet: String, fingerprint: String
        ) {
            (self.ruleID, self.path, self.line, self.column) = (ruleID, path, line, column)
            (self.message, self.fix, self.snippet, self.fingerprint) = (message, fix, snippet, fingerprint)
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
