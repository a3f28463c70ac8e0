import CoreDataLint
import Foundation
import Reports

// The outputs of `ctxdebug lint`: compiler-style text, JSON, SARIF 2.1.0 and JUnit XML.
// Findings map onto Reports' SARIF and JUnit models, which `ctxdebug check` writes
// too, so CI reads both the same way.

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
    /// Files that could not be parsed as Swift, skipped.
    var skipped: [LintError] = []
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
        if !report.errors.isEmpty { text += "; \(report.errors.count) file\(report.errors.count == 1 ? "" : "s") could not be read" }
        if !report.skipped.isEmpty {
            let names = report.skipped.map { $0.path.split(separator: ":").first.map(String.init) ?? $0.path }
            text += "; skipped \(names.count) file\(names.count == 1 ? "" : "s") that could not be parsed as Swift: \(names.joined(separator: ", "))"
        }
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
    var skipped: [String]

    init(_ report: LintReport) {
        rules = report.rules
        fileCount = report.fileCount
        lineCount = report.lineCount
        baselinedCount = report.baselinedCount
        findings = report.findings.map {
            Entry(rule: $0.ruleID, path: $0.path, line: $0.line, column: $0.column, message: $0.message, fix: $0.fix, fingerprint: $0.fingerprint)
        }
        errors = report.errors.map(\.description)
        skipped = report.skipped.map(\.description)
    }

    func data() throws -> Data {
        try JSONReport.encoder().encode(self)
    }
}

enum LintSARIF {
    /// The tool's version, for `tool.driver.version` and `semanticVersion`: the version
    /// CHANGELOG.md's next release will carry.
    static let version = "0.1.0"

    /// A rule per rule that ran, with its help text; a result per finding, at its line
    /// and column, with the fingerprint a later `--baseline` matches on.
    static func log(_ report: LintReport) -> SARIF.Log {
        let rules = report.rules.compactMap(RuleCatalog.description(of:)).map { rule in
            SARIF.ReportingDescriptor(
                id: rule.id, name: rule.name, short: rule.summary, full: rule.rationale, help: rule.fix,
                level: "warning", tags: ["concurrency", "core-data"])
        }
        let results = report.findings.map { finding in
            SARIF.Result(
                ruleId: finding.ruleID, ruleIndex: report.rules.firstIndex(of: finding.ruleID) ?? 0, level: "warning",
                message: finding.message + ". Fix: " + finding.fix,
                locations: [
                    SARIF.Location(
                        physicalLocation: SARIF.PhysicalLocation(
                            artifactLocation: .file(finding.path, relativeToRoot: !finding.path.hasPrefix("/")),
                            region: SARIF.Region(startLine: finding.line, startColumn: finding.column, snippet: finding.snippet)))
                ],
                partialFingerprints: [Baseline.fingerprintKey: finding.fingerprint])
        }
        return SARIF.Log(
            rules: rules, results: results, root: report.root, commandLine: report.commandLine, exitStatus: report.exitStatus,
            informationURI: "")
    }

    /// The log as JSON, with what Reports' SARIF model does not hold yet: the driver's
    /// `version` and `semanticVersion`, no `informationUri` (the project has no public
    /// page to point at; rules carry no `helpUri` for the same reason), and a tool
    /// notification per file that could not be parsed.
    static func encoded(_ report: LintReport) throws -> Data {
        let data = try log(report).encoded()
        guard var object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            var runs = object["runs"] as? [[String: Any]], var run = runs.first,
            var tool = run["tool"] as? [String: Any], var driver = tool["driver"] as? [String: Any]
        else { return data }
        driver["informationUri"] = nil
        driver["version"] = version
        driver["semanticVersion"] = version
        tool["driver"] = driver
        run["tool"] = tool
        if !report.skipped.isEmpty, var invocations = run["invocations"] as? [[String: Any]], !invocations.isEmpty {
            invocations[0]["toolExecutionNotifications"] = report.skipped.map { file -> [String: Any] in
                let path = file.path.split(separator: ":").first.map(String.init) ?? file.path
                return [
                    "level": "warning",
                    "message": ["text": "\(file.path): \(file.reason); skipped"],
                    "locations": [["physicalLocation": ["artifactLocation": path.hasPrefix("/") ? ["uri": "file://" + path] : ["uri": path, "uriBaseId": SARIF.rootBaseID]]]],
                ]
            }
            run["invocations"] = invocations
        }
        runs[0] = run
        object["runs"] = runs
        return try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }
}

enum LintJUnit {
    /// A failing test case per finding, or one passing case when there is none.
    static func report(_ report: LintReport) -> JUnitReport {
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
