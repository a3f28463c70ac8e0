import CoreDataLint
import Foundation
import Reports

// The outputs of `ctxdebug lint`: compiler-style text, JSON, SARIF 2.1.0 and JUnit XML.
// SARIF and JUnit share their envelope and escaping with `ctxdebug check`
// (CheckReports.swift), so CI reads both the same way.

/// One run of the linter, as every output shows it.
struct LintReport {
    /// The findings to report: new ones only when a baseline was given.
    var findings: [Finding]
    /// Findings left out because the baseline holds them.
    var baselinedCount: Int
    /// The ids of the rules that ran.
    var rules: [String]
    var fileCount: Int
    var lineCount: Int
    var errors: [LintError]
    /// Paths in findings are relative to this directory when under it.
    var root: String
    var commandLine: String
    var exitStatus: Int32
}

enum LintText {
    /// `path:line:col: warning: message [rule-id]`, then the fix, indented.
    static func render(_ report: LintReport) -> String {
        report.findings.map { finding in
            "\(finding.path):\(finding.line):\(finding.column): warning: \(finding.message) [\(finding.ruleID)]\n    fix: \(finding.fix)\n"
        }.joined()
    }

    /// "3 findings in 12 files (1,204 lines); 2 more in the baseline".
    static func summary(_ report: LintReport) -> String {
        let n = report.findings.count
        var text = "\(n == 0 ? "no" : String(n)) finding\(n == 1 ? "" : "s") in \(report.fileCount) file\(report.fileCount == 1 ? "" : "s")"
        text += " (\(TextReport.grouped(report.lineCount)) line\(report.lineCount == 1 ? "" : "s"))"
        if report.baselinedCount > 0 { text += "; \(report.baselinedCount) more in the baseline" }
        if !report.errors.isEmpty { text += "; \(report.errors.count) file\(report.errors.count == 1 ? "" : "s") could not be read or parsed" }
        return text
    }
}

struct LintJSON: Encodable {
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

    init(_ report: LintReport) {
        rules = report.rules
        fileCount = report.fileCount
        lineCount = report.lineCount
        baselinedCount = report.baselinedCount
        findings = report.findings.map {
            Entry(rule: $0.ruleID, path: $0.path, line: $0.line, column: $0.column, message: $0.message, fix: $0.fix, fingerprint: $0.fingerprint)
        }
        errors = report.errors.map(\.description)
    }

    func data() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

enum LintSARIF {
    static let documentation = "https://github.com/ctxdebug/ctxdebug/blob/main/docs/lint.md"

    /// A rule per rule that ran, with its help text; a result per finding, at its line
    /// and column, with the fingerprint a later `--baseline` matches on.
    static func render(_ report: LintReport) throws -> Data {
        let rules: [[String: Any]] = report.rules.compactMap(RuleCatalog.description(of:)).map { rule in
            [
                "id": rule.id,
                "name": rule.name,
                "shortDescription": ["text": rule.summary],
                "fullDescription": ["text": rule.rationale],
                "help": ["text": rule.fix],
                "helpUri": "\(documentation)#\(rule.id)",
                "defaultConfiguration": ["level": "warning"],
                "properties": ["tags": ["concurrency", "core-data"]],
            ]
        }
        let results: [[String: Any]] = report.findings.map { finding in
            var artifact: [String: Any] = ["uri": SARIFRenderer.percentEncoded(finding.path), "uriBaseId": SARIFRenderer.rootBase]
            if finding.path.hasPrefix("/") { artifact = ["uri": URL(fileURLWithPath: finding.path).absoluteString] }
            return [
                "ruleId": finding.ruleID,
                "ruleIndex": report.rules.firstIndex(of: finding.ruleID) ?? 0,
                "level": "warning",
                "message": ["text": finding.message + ". Fix: " + finding.fix],
                "locations": [[
                    "physicalLocation": [
                        "artifactLocation": artifact,
                        "region": ["startLine": finding.line, "startColumn": finding.column, "snippet": ["text": finding.snippet]],
                    ]
                ]],
                "partialFingerprints": [Baseline.fingerprintKey: finding.fingerprint],
            ]
        }
        return try SARIFRenderer.log(
            rules: rules, results: results, root: report.root, commandLine: report.commandLine, exitStatus: report.exitStatus,
            informationURI: documentation)
    }
}

enum LintJUnit {
    /// A failing test case per finding, or one passing case when there is none.
    static func render(_ report: LintReport) -> String {
        let escape = JUnitRenderer.escape
        let failures = report.findings.count
        let tests = max(failures, 1)
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml += #"<testsuites name="ctxdebug lint" tests="\#(tests)" failures="\#(failures)" errors="0">"# + "\n"
        xml += #"  <testsuite name="ctxdebug.lint" tests="\#(tests)" failures="\#(failures)" errors="0" skipped="0" time="0">"# + "\n"
        if report.findings.isEmpty {
            xml += #"    <testcase classname="ctxdebug.lint" name="no findings in \#(report.fileCount) files" time="0"/>"# + "\n"
        }
        for finding in report.findings {
            let place = "\(finding.path):\(finding.line):\(finding.column)"
            xml += #"    <testcase classname="ctxdebug.lint.\#(escape(finding.ruleID))" name="\#(escape(place))" file="\#(escape(finding.path))" line="\#(finding.line)" time="0">"# + "\n"
            xml += #"      <failure type="\#(escape(finding.ruleID))" message="\#(escape(finding.message))">"#
            xml += escape("\(place): \(finding.message)\nfix: \(finding.fix)\n\n    \(finding.snippet)")
            xml += "</failure>\n    </testcase>\n"
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }
}
