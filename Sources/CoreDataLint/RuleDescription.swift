/// What a rule is, for `--help`, SARIF rule metadata and docs/lint.md, with the
/// examples the generic rule test runs: `↓` marks where a finding must be reported.
public struct RuleDescription: Sendable {
    /// The id used in output, `--rule`, `--disable` and suppression comments.
    public var id: String
    /// A PascalCase name, for SARIF.
    public var name: String
    /// One line: what the rule finds.
    public var summary: String
    /// Why it is a bug, in a few sentences.
    public var rationale: String
    /// What to write instead.
    public var fix: String
    /// Code with a `↓` at each place a finding must be reported.
    public var triggeringExamples: [String]
    /// Code that must produce no finding.
    public var nonTriggeringExamples: [String]

    /// The rule's section in docs/lint.md.
    public var documentationAnchor: String { "docs/lint.md#\(id)" }
}
