public import Foundation
public import ReportFormats

// The outputs of `ctxdebug lint`: compiler-style text, JSON, SARIF 2.1.0 and JUnit XML.
// Findings map onto the SARIF and JUnit models, which `ctxdebug check` writes
// too, so CI reads both the same way.

public enum LintText {
    /// `path:line:col: warning: message [rule-id]`, then the fix, indented.
    public static func render(_ report: LintRun) -> String {
        report.findings.map { finding in
            "\(finding.path):\(finding.line):\(finding.column): warning: \(finding.message) [\(finding.ruleID)]\n    fix: \(finding.fix)\n"
        }.joined()
    }

    /// "3 findings in 12 files (1,204 lines); 2 more in the baseline".
    public static func summary(_ report: LintRun) -> String {
        let n = report.findings.count
        var text = "\(n == 0 ? "no" : String(n)) finding\(n == 1 ? "" : "s") in \(report.fileCount) file\(report.fileCount == 1 ? "" : "s")"
        text += " (\(TextReport.grouped(report.lineCount)) line\(report.lineCount == 1 ? "" : "s"))"
        if report.baselinedCount > 0 { text += "; \(report.baselinedCount) more in the baseline" }
        if !report.errors.isEmpty { text += "; \(report.errors.count) file\(report.errors.count == 1 ? "" : "s") could not be read" }
        if !report.skipped.isEmpty {
            let names = report.skipped.map { $0.path.split(separator: ":").first.map(String.init) ?? $0.path }
            text += "; skipped \(names.count) file\(names.count == 1 ? "" : "s") that could not be parsed as Swift: \(names.joined(separator: ", "))"
        }
        return text
    }
}

public struct LintJSON: Encodable {
    struct Entry: Encodable {
        var rule: String
        var path: String
        var line: Int
        var column: Int
        var message: String
        var fix: String
        var fingerprint: String
    }

    var tool = "ctxdebug lint"
    var formatVersion = 1
    var rules: [String]
    var fileCount: Int
    var lineCount: Int
    var baselinedCount: Int
    var findings: [Entry]
    var errors: [String]
    var skipped: [String]

    public init(_ report: LintRun) {
        rules = report.rules.map(\.id)
        fileCount = report.fileCount
        lineCount = report.lineCount
        baselinedCount = report.baselinedCount
        findings = report.findings.map {
            Entry(rule: $0.ruleID, path: $0.path, line: $0.line, column: $0.column, message: $0.message, fix: $0.fix, fingerprint: $0.fingerprint)
        }
        errors = report.errors.map(\.description)
        skipped = report.skipped.map(\.description)
    }

    public func data() throws -> Data {
        try JSONReport.encoder().encode(self)
    }
}

public enum LintSARIF {
    /// The tool's version, for `tool.driver.version` and `semanticVersion`: the version
    /// CHANGELOG.md's next release will carry.
    public static let version = "0.1.0"

    /// A rule per rule that ran, with its help text; a result per finding, at its line
    /// and column, with the fingerprint a later `--baseline` matches on.
    public static func log(_ report: LintRun) -> SARIF.Log {
        let rules = report.rules.map { rule in
            SARIF.ReportingDescriptor(
                id: rule.id, name: rule.name, short: rule.summary, full: rule.rationale, help: rule.fix,
                level: "warning", tags: ["concurrency", "core-data"])
        }
        let results = report.findings.map { finding in
            SARIF.Result(
                ruleId: finding.ruleID, ruleIndex: report.rules.firstIndex { $0.id == finding.ruleID } ?? 0, level: "warning",
                message: finding.message + ". Fix: " + finding.fix,
                locations: [
                    SARIF.Location(
                        physicalLocation: SARIF.PhysicalLocation(
                            artifactLocation: .file(finding.path, relativeToRoot: !finding.path.hasPrefix("/")),
                            region: SARIF.Region(startLine: finding.line, startColumn: finding.column, snippet: finding.snippet)))
                ],
                partialFingerprints: [SARIF.lintFingerprintKey: finding.fingerprint])
        }
        // No informationUri and no helpUri: the project has no public page to point at.
        return SARIF.Log(
            rules: rules, results: results, root: report.root, commandLine: report.commandLine, exitStatus: report.exitStatus,
            informationURI: nil, toolVersion: version, notifications: report.skipped.isEmpty ? nil : report.skipped.map(notification))
    }

    /// A file that could not be parsed: a warning about the run, at the file.
    static func notification(_ file: LintRun.Problem) -> SARIF.Notification {
        let path = file.path.split(separator: ":").first.map(String.init) ?? file.path
        return SARIF.Notification(
            level: "warning", message: "\(file.path): \(file.reason); skipped",
            locations: [
                SARIF.Location(physicalLocation: SARIF.PhysicalLocation(artifactLocation: .file(path, relativeToRoot: !path.hasPrefix("/")), region: nil))
            ])
    }

    /// The log as ctxdebug writes it.
    public static func encoded(_ report: LintRun) throws -> Data {
        try log(report).encoded()
    }
}

public enum LintJUnit {
    /// A failing test case per finding, or one passing case when there is none.
    public static func report(_ report: LintRun) -> JUnitReport {
        var cases = report.findings.map { finding in
            let place = "\(finding.path):\(finding.line):\(finding.column)"
            return JUnitReport.TestCase(
                classname: "ctxdebug.lint.\(finding.ruleID)", name: place, file: finding.path, line: finding.line,
                failure: JUnitReport.Failure(
                    type: finding.ruleID, message: finding.message,
                    text: "\(place): \(finding.message)\nfix: \(finding.fix)\n\n    \(finding.snippet)"))
        }
        if cases.isEmpty {
            cases = [JUnitReport.TestCase(classname: "ctxdebug.lint", name: "no findings in \(report.fileCount) files")]
        }
        return JUnitReport(name: "ctxdebug lint", suiteName: "ctxdebug.lint", cases: cases)
    }
}
