import CoreDataLint
import Foundation
import Testing

/// The fixture projects under Tests/Fixtures/Lint: apps written as apps are, each bug
/// next to its correct twin. Every line ending in `// expect: RULE[, RULE]` must get
/// exactly those findings, and no other line any.
@Suite("Fixture projects")
struct FixtureTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Lint")

    static let projects: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: fixtures.path)) ?? []
        return names.filter { name in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: fixtures.appendingPathComponent(name).path, isDirectory: &isDirectory) && isDirectory.boolValue
        }.sorted()
    }()

    struct Mark: Hashable, Comparable, CustomStringConvertible {
        var file: String
        var line: Int
        var rule: String
        var description: String { "\(file):\(line) \(rule)" }
        static func < (a: Mark, b: Mark) -> Bool { (a.file, a.line, a.rule) < (b.file, b.line, b.rule) }
    }

    /// The `// expect:` marks of a file.
    static func expectedMarks(in path: String) throws -> [Mark] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var marks: [Mark] = []
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            guard let range = line.range(of: "// expect: ") else { continue }
            for rule in line[range.upperBound...].split(separator: ",") {
                marks.append(Mark(file: path, line: index + 1, rule: rule.trimmingCharacters(in: .whitespaces)))
            }
        }
        return marks
    }

    @Test("There are fixture projects, and every rule is marked in them")
    func everyRuleIsCovered() throws {
        #expect(Self.projects.count >= 2, "\(Self.projects)")
        var marked: Set<String> = []
        for project in Self.projects {
            let files = try SourceCollector.swiftFiles(under: [Self.fixtures.appendingPathComponent(project).path])
            for file in files { marked.formUnion(try Self.expectedMarks(in: file).map(\.rule)) }
        }
        #expect(marked == Set(RuleCatalog.ids), "rules with no marked bug: \(Set(RuleCatalog.ids).subtracting(marked).sorted())")
    }

    @Test("Findings are exactly the marks", arguments: projects)
    func findingsMatchMarks(project: String) throws {
        let (files, projectFiles) = try SourceCollector.inputs(under: [Self.fixtures.appendingPathComponent(project).path])
        try #require(!files.isEmpty)
        let result = Linter().lint(files: files, projectFiles: projectFiles)
        #expect(result.errors.isEmpty, "\(result.errors)")
        let expected = try files.flatMap(Self.expectedMarks).sorted()
        let found = result.findings.map { Mark(file: $0.path, line: $0.line, rule: $0.ruleID) }.sorted()
        let missing = expected.filter { !found.contains($0) }
        let unexpected = result.findings.filter { !expected.contains(Mark(file: $0.path, line: $0.line, rule: $0.ruleID)) }
        #expect(missing.isEmpty, "expected, not found:\n\(missing.map(\.description).joined(separator: "\n"))")
        #expect(unexpected.isEmpty, "found, not marked:\n\(unexpected.map { "\($0.path):\($0.line): \($0.message) [\($0.ruleID)]" }.joined(separator: "\n"))")
        #expect(found == expected)
    }

    @Test("Every message names the rule's contexts or queues and comes with a fix")
    func messagesNameBothSides() throws {
        // Each project linted on its own, as a user would: together, their same-named
        // properties (`mainContext` in several stacks) would make each other unknown.
        let findings = try Self.projects.flatMap { project in
            Linter().lint(files: try SourceCollector.swiftFiles(under: [Self.fixtures.appendingPathComponent(project).path])).findings
        }
        for finding in findings {
            #expect(!finding.fix.isEmpty)
            let uncited = Finding.withoutCitedLines(finding.message)
            #expect(!uncited.contains("\(finding.line)"), "no line number in a message but cited places' (baselines match moved code): \(finding.message)")
            if finding.ruleID != "confinement-type" {
                #expect(finding.message.contains("context") && finding.message.contains("queue") || finding.message.contains("thread"), "\(finding.message)")
            }
        }
    }
}
