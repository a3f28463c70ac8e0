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

    /// A repository of many apps (a book's materials: cdt-materials holds the starter,
    /// final and challenge SurfJournal among 24 Xcode projects) linted in one run: each app,
    /// in a folder with its own Xcode project or Package.swift, gets the findings it gets
    /// alone. With one index over all of them, the final app's export (called from a
    /// background context) hid the starter's main-queue export.
    @Test("Many projects in one run: each finds what it finds alone")
    func manyProjectsInOneRun() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("lint-many-projects-\(getpid())")
        try? FileManager.default.removeItem(at: root)
        defer { try? FileManager.default.removeItem(at: root) }
        for project in Self.projects {
            let copy = root.appendingPathComponent(project)
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent(project), to: copy)
            if !ProjectGroupsProbe.holdsProject(copy.path) {
                let marker = copy.appendingPathComponent("\(project).xcodeproj")
                try FileManager.default.createDirectory(at: marker, withIntermediateDirectories: true)
                try Data().write(to: marker.appendingPathComponent("project.pbxproj"))
            }
        }
        func marks(_ result: LintResult) -> Set<String> {
            Set(result.findings.map { "\($0.path.replacingOccurrences(of: root.path + "/", with: "")):\($0.line) \($0.ruleID)" })
        }
        let (files, projectFiles) = try SourceCollector.inputs(under: [root.path])
        let together = marks(Linter().lint(files: files, projectFiles: projectFiles))
        var alone: Set<String> = []
        for project in Self.projects {
            let (files, projectFiles) = try SourceCollector.inputs(under: [root.appendingPathComponent(project).path])
            alone.formUnion(marks(Linter().lint(files: files, projectFiles: projectFiles)))
        }
        #expect(together == alone, "only together: \(together.subtracting(alone).sorted()); only alone: \(alone.subtracting(together).sorted())")
        #expect(together.contains { $0.hasPrefix("SurfJournalStarter/JournalListViewController.swift:") && $0.hasSuffix(" main-queue-fetch-all") })
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

/// What makes a folder a project for `ProjectGroups` (which is internal): an Xcode
/// project or workspace, or a Package.swift.
enum ProjectGroupsProbe {
    static func holdsProject(_ folder: String) -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.contains { $0 == "Package.swift" || $0.hasSuffix(".xcodeproj") || $0.hasSuffix(".xcworkspace") }
    }
}
