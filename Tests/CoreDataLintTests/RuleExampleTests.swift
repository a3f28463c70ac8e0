import CoreDataLint
import Foundation
import Testing

/// Every rule's own examples, SwiftLint-style: each triggering example must give a
/// finding of that rule at each `↓` and nowhere else; each non-triggering example, none.
@Suite("Rule examples")
struct RuleExampleTests {
    /// The example without its `↓` marks, and where each mark was (1-based line and
    /// column, in UTF-8 bytes as the linter counts them).
    static func marks(in example: String) -> (text: String, marks: [Position]) {
        var text = ""
        var marks: [Position] = []
        var line = 1, column = 1
        for character in example {
            if character == "↓" {
                marks.append(Position(line: line, column: column))
                continue
            }
            text.append(character)
            if character == "\n" {
                line += 1
                column = 1
            } else {
                column += character.utf8.count
            }
        }
        return (text, marks)
    }

    struct Position: Hashable, CustomStringConvertible {
        var line: Int
        var column: Int
        var description: String { "\(line):\(column)" }
    }

    static func findings(of rule: RuleDescription, in text: String) -> [Finding] {
        Linter(rules: [rule.id]).lint(sources: [LintSource(path: "Example.swift", text: text)]).findings
    }

    @Test("Triggering examples: a finding at each ↓, no other", arguments: RuleCatalog.ids)
    func triggering(id: String) throws {
        let rule = try #require(RuleCatalog.description(of: id))
        #expect(!rule.triggeringExamples.isEmpty)
        for example in rule.triggeringExamples {
            let (text, marks) = Self.marks(in: example)
            #expect(!marks.isEmpty, "an example with no ↓: \(example)")
            let found = Self.findings(of: rule, in: text).map { Position(line: $0.line, column: $0.column) }
            #expect(found == marks, "\(rule.id):\n\(example)")
        }
    }

    @Test("Non-triggering examples: no finding", arguments: RuleCatalog.ids)
    func nonTriggering(id: String) throws {
        let rule = try #require(RuleCatalog.description(of: id))
        #expect(!rule.nonTriggeringExamples.isEmpty)
        for example in rule.nonTriggeringExamples {
            let findings = Self.findings(of: rule, in: example)
            #expect(findings.isEmpty, "\(rule.id): \(findings.map(\.message))\n\(example)")
        }
    }
}

/// docs/lint.md documents every rule: a section headed with its id.
@Suite("Rule docs")
struct RuleDocsTests {
    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/lint.md")

    @Test("docs/lint.md has a section per rule, in the catalog's order")
    func sections() throws {
        let text = try String(contentsOf: Self.docs, encoding: .utf8)
        let headings = text.components(separatedBy: "\n").filter { $0.hasPrefix("### `") }
            .map { $0.dropFirst(5).prefix { $0 != "`" } }.map(String.init)
        #expect(headings == RuleCatalog.ids)
    }
}
