import CoreDataLint
import Foundation
import Testing

/// The development set under Tests/Fixtures/Lint/devset: Core Data concurrency bugs that
/// public projects found and fixed, each written again in our own words as a buggy
/// version (`bug/*.swift.txt`, the lines the bug makes wrong marked `// expect: RULE`,
/// several ids being alternatives) and the fixed
/// shape as its twin (`fixed/*.swift`), the source named in the buggy file's header.
///
/// The linter is not expected to find every bug, so this suite does not require every
/// mark, as FixtureTests does: it requires every fixed twin to be silent, every finding
/// in a buggy version to be on a marked line with a rule the mark allows, and the number
/// of bugs found (at least one marked line reported) not to fall below `minimumFound`.
/// It prints the recall and, for each bug, how many marked lines were reported.
///
/// The buggy versions end in `.txt` because FixtureTests lints every `.swift` file under
/// Tests/Fixtures/Lint and requires exactly its marks; the fixed twins stay `.swift`, so
/// that suite also checks them silent linted together.
@Suite("Development set of real fixed bugs")
struct DevSetRecallTests {
    static let devset = FixtureTests.fixtures.appendingPathComponent("devset")

    /// How many of the bugs the linter finds today (docs/lint.md, "Development set").
    /// Raise it when the linter finds more; a change that finds fewer fails here.
    static let minimumFound = 23

    /// One bug: its buggy version and the fixed twin, each linted on its own.
    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var bug: [LintSource]
        var fixed: [LintSource]
        var description: String { name }
    }

    static let caseNames: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: devset.path)) ?? []
        return names.filter { name in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: devset.appendingPathComponent(name).path, isDirectory: &isDirectory) && isDirectory.boolValue
        }.sorted()
    }()

    /// The sources of `folder` whose names end in `suffix`, each named by its path
    /// without the `.txt` a buggy version carries, as the linter would see the file.
    static func sources(in folder: URL, suffix: String) throws -> [LintSource] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(suffix) }.sorted()
        return try names.map { name in
            let path = folder.appendingPathComponent(name).path
            let swiftPath = path.hasSuffix(".txt") ? String(path.dropLast(4)) : path
            return LintSource(path: swiftPath, text: try String(contentsOfFile: path, encoding: .utf8))
        }
    }

    static func loadCase(_ name: String) throws -> Case {
        let folder = devset.appendingPathComponent(name)
        return Case(
            name: name,
            bug: try sources(in: folder.appendingPathComponent("bug"), suffix: ".swift.txt"),
            fixed: try sources(in: folder.appendingPathComponent("fixed"), suffix: ".swift"))
    }

    /// A marked line of a buggy version: a line the bug makes wrong, and the rules a
    /// finding there may have. Unlike FixtureTests' marks, several ids are alternatives
    /// (the linter reports one finding per bug, under the rule it finds most specific).
    struct Mark: Hashable, CustomStringConvertible {
        var file: String
        var line: Int
        var rules: [String]
        var description: String { "\(URL(fileURLWithPath: file).lastPathComponent):\(line) \(rules.joined(separator: " or "))" }

        func matches(_ finding: Finding) -> Bool {
            finding.path == file && finding.line == line && rules.contains(finding.ruleID)
        }
    }

    /// The `// expect:` marks of a case's buggy version.
    static func marks(of bugCase: Case) -> [Mark] {
        bugCase.bug.flatMap { source in
            source.text.components(separatedBy: "\n").enumerated().compactMap { index, line -> Mark? in
                guard let range = line.range(of: "// expect: ") else { return nil }
                let rules = line[range.upperBound...].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                return Mark(file: source.path, line: index + 1, rules: rules)
            }
        }
    }

    /// What the linter makes of a case's buggy version: the marked lines it reports,
    /// and findings on no marked line (with a rule the mark does not allow).
    struct Outcome {
        var marks: [Mark]
        var reported: [Mark]
        var unmarked: [Finding]
        /// Found: the linter reports at least one line the bug makes wrong, which is
        /// enough to lead a developer to it.
        var isFound: Bool { !reported.isEmpty }
    }

    static func outcome(of bugCase: Case) -> Outcome {
        let findings = Linter().lint(sources: bugCase.bug).findings
        let marks = marks(of: bugCase)
        return Outcome(
            marks: marks,
            reported: marks.filter { mark in findings.contains(where: mark.matches) },
            unmarked: findings.filter { finding in !marks.contains { $0.matches(finding) } })
    }

    @Test("At least 20 bugs, each with a named source, a marked bug line, and a fixed twin of the same files")
    func casesAreWellFormed() throws {
        #expect(Self.caseNames.count >= 20, "\(Self.caseNames)")
        for name in Self.caseNames {
            let bugCase = try Self.loadCase(name)
            #expect(!bugCase.bug.isEmpty, "\(name): no bug/*.swift.txt")
            #expect(bugCase.bug.map { URL(fileURLWithPath: $0.path).lastPathComponent }
                == bugCase.fixed.map { URL(fileURLWithPath: $0.path).lastPathComponent }, "\(name): bug/ and fixed/ hold different files")
            #expect(bugCase.bug.contains { $0.text.hasPrefix("// Source: ") }, "\(name): the buggy version's header must name its source ('// Source: repository, pull request or commit')")
            #expect(!Self.marks(of: bugCase).isEmpty, "\(name): no '// expect: RULE' mark on the bug line")
            for mark in Self.marks(of: bugCase) {
                #expect(!mark.rules.isEmpty && mark.rules.allSatisfy(RuleCatalog.ids.contains), "\(name): \(mark): not a rule id")
            }
            for source in bugCase.fixed {
                #expect(!source.text.contains("// expect: "), "\(source.path): a fixed twin has no marks")
            }
        }
    }

    @Test("Every fixed twin is silent", arguments: caseNames)
    func fixedTwinIsSilent(name: String) throws {
        let bugCase = try Self.loadCase(name)
        let result = Linter().lint(sources: bugCase.fixed)
        #expect(result.errors.isEmpty && result.skipped.isEmpty, "\(result.errors) \(result.skipped)")
        #expect(result.findings.isEmpty, "false alarms on the fixed twin:\n\(result.findings.map { "\($0.path):\($0.line): \($0.message) [\($0.ruleID)]" }.joined(separator: "\n"))")
    }

    @Test("A finding in a buggy version is on its marked bug line", arguments: caseNames)
    func buggyVersionHasNoOtherFinding(name: String) throws {
        let bugCase = try Self.loadCase(name)
        let result = Linter().lint(sources: bugCase.bug)
        #expect(result.errors.isEmpty && result.skipped.isEmpty, "\(result.errors) \(result.skipped)")
        let unmarked = Self.outcome(of: bugCase).unmarked
        #expect(unmarked.isEmpty, "found, not marked:\n\(unmarked.map { "\($0.path):\($0.line): \($0.message) [\($0.ruleID)]" }.joined(separator: "\n"))")
    }

    @Test("Recall on the development set does not fall below what the linter finds today")
    func recall() throws {
        let cases = try Self.caseNames.map(Self.loadCase)
        let outcomes = cases.map { ($0, Self.outcome(of: $0)) }
        let found = outcomes.filter { $0.1.isFound }
        let percent = cases.isEmpty ? 0 : found.count * 100 / cases.count
        var report = "devset recall: \(found.count) of \(cases.count) bugs found (\(percent)%)\n"
        for (bugCase, outcome) in outcomes {
            let lines = "\(outcome.reported.count) of \(outcome.marks.count) marked lines reported"
            report += "  \(outcome.isFound ? "found " : "missed") \(bugCase.name) (\(lines))\n"
        }
        print(report, terminator: "")
        #expect(found.count >= Self.minimumFound, "recall fell: \(found.count) found, at least \(Self.minimumFound) before\n\(report)")
    }
}
