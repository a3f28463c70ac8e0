import CoreDataLint
import Foundation
import Testing

@Suite("Suppression comments and baselines")
struct SuppressionAndBaselineTests {
    /// Two confinement contexts, lines 2 and 3, with `prefix` above them.
    static func source(_ prefix: String = "", between: String = "") -> String {
        "\(prefix)\nlet a = NSManagedObjectContext()\n\(between)let b = NSManagedObjectContext()\n"
    }

    static func lint(_ text: String, rules: [String]? = nil) -> [Finding] {
        Linter(rules: rules).lint(sources: [LintSource(path: "App.swift", text: text)]).findings
    }

    @Test("Without comments, both lines are found")
    func control() {
        #expect(Self.lint(Self.source()).map(\.line) == [2, 3])
    }

    @Test("disable-next-line silences the next line only, for the rule named")
    func disableNextLine() {
        #expect(Self.lint(Self.source("// ctxdebug:disable-next-line confinement-type")).map(\.line) == [3])
        #expect(Self.lint(Self.source("// ctxdebug:disable-next-line merge-off-queue")).map(\.line) == [2, 3])
        #expect(Self.lint(Self.source("// ctxdebug:disable-next-line merge-off-queue, confinement-type")).map(\.line) == [3])
    }

    @Test("disable … enable silences the lines between; disable alone, to the end")
    func disableEnable() {
        let between = Self.source("// ctxdebug:disable confinement-type", between: "// ctxdebug:enable confinement-type\n")
        #expect(Self.lint(between).map(\.line) == [4])
        #expect(Self.lint(Self.source("// ctxdebug:disable all")).isEmpty)
        #expect(Self.lint(Self.source("let x = 1 // ctxdebug:disable confinement-type")).isEmpty)
    }

    /// A SARIF log holding `findings` the way `ctxdebug lint --sarif` writes them.
    static func sarif(_ findings: [Finding]) throws -> Data {
        let results: [[String: Any]] = findings.map { finding in
            [
                "ruleId": finding.ruleID,
                "locations": [["physicalLocation": ["artifactLocation": ["uri": finding.path, "uriBaseId": "%SRCROOT%"], "region": ["startLine": finding.line]]]],
                "partialFingerprints": [Baseline.fingerprintKey: finding.fingerprint],
            ]
        }
        return try JSONSerialization.data(withJSONObject: ["version": "2.1.0", "runs": [["results": results]]])
    }

    @Test("A baseline keeps old findings out, also when the code moved, and lets new ones through")
    func baseline() throws {
        let old = Self.lint(Self.source())
        let baseline = try Baseline(sarif: Self.sarif(old), path: "old.sarif")
        #expect(baseline.count == 2)
        let moved = Self.lint(Self.source("import CoreData\n\n// moved down by two lines"))
        #expect(moved.map(\.line) == [4, 5])
        #expect(baseline.newFindings(moved).isEmpty)
        // A third, new confinement context: the same rule and message, another line of code.
        let grown = Self.lint(Self.source() + "let c = NSManagedObjectContext()\n")
        #expect(baseline.newFindings(grown).map(\.snippet) == ["let c = NSManagedObjectContext()"])
        // The same line twice more than the baseline holds: one is new.
        let doubled = Self.lint(Self.source() + "let b = NSManagedObjectContext()\n")
        #expect(baseline.newFindings(doubled).count == 1)
    }

    @Test("A baseline that is not SARIF is refused, naming the file")
    func badBaseline() {
        for text in ["[1, 2]", "not json"] {
            let error = #expect(throws: LintError.self) { try Baseline(sarif: Data(text.utf8), path: "bad.sarif") }
            #expect(error?.description.hasPrefix("bad.sarif: ") == true)
        }
    }
}
