import CoreDataLint
import ReportFormats

// The outputs of `ctxdebug lint` are rendered by Reports (LintText, LintJSON, LintSARIF,
// LintJUnit) from values; this is where CoreDataLint's results become those values.

extension LintRun {
    /// The run as its outputs show it: `rules` by id, in the order they ran.
    static func of(
        findings: [CoreDataLint.Finding], baselinedCount: Int, rules: [String], fileCount: Int, lineCount: Int, errors: [LintError],
        skipped: [LintError] = [], root: String, commandLine: String, exitStatus: Int32
    ) -> LintRun {
        LintRun(
            findings: findings, baselinedCount: baselinedCount,
            rules: rules.compactMap(RuleCatalog.description(of:)).map(LintRun.Rule.init), fileCount: fileCount,
            lineCount: lineCount, errors: errors.map(LintRun.Problem.init), skipped: skipped.map(LintRun.Problem.init), root: root,
            commandLine: commandLine, exitStatus: exitStatus)
    }
}

extension LintRun.Rule {
    init(_ rule: RuleDescription) {
        self.init(id: rule.id, name: rule.name, summary: rule.summary, rationale: rule.rationale, fix: rule.fix)
    }
}

extension LintRun.Problem {
    init(_ error: LintError) {
        self.init(path: error.path, reason: error.reason)
    }
}
