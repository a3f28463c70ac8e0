import Foundation
import Testing
import TestSupport

/// `ctxdebug lint`, through the built binary, on a copy of the SurfJournal fixture
/// project (Tests/Fixtures/Lint/SurfJournal): exit statuses, the compiler-shaped text,
/// JSON, SARIF and JUnit read back by independent libraries, and baselines.
@Suite("ctxdebug lint (built binary)")
struct LintCommandTests {

    static let fixture = CLI.packageRoot.appendingPathComponent("Tests/Fixtures/Lint/SurfJournal")

    /// A fresh copy of the fixture project, to run in and to change.
    static func project() throws -> URL {
        let directory = try temporaryDirectory("lint")
        let copy = directory.appendingPathComponent("SurfJournal")
        try FileManager.default.copyItem(at: fixture, to: copy)
        return copy
    }

    /// The Swift files of the project, relative to it.
    static func swiftFiles(in project: URL) -> [String] {
        (FileManager.default.enumerator(atPath: project.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []).sorted()
    }

    /// The `// expect:` marks of the project, as "path:line rule", paths relative to it.
    static func marks(in project: URL) throws -> [String] {
        var marks: [String] = []
        for file in swiftFiles(in: project) {
            let lines = try String(contentsOf: project.appendingPathComponent(file), encoding: .utf8).components(separatedBy: "\n")
            for (index, line) in lines.enumerated() {
                guard let range = line.range(of: "// expect: ") else { continue }
                for rule in line[range.upperBound...].split(separator: ",") {
                    marks.append("\(file):\(index + 1) \(rule.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        return marks.sorted()
    }

    static func lint(_ arguments: [String], in project: URL) throws -> CommandRun {
        try CLI.ctxdebug(["lint"] + arguments, in: project)
    }

    @Test("Findings: exit 1, `path:line:col: warning: message [rule]` then the fix, exactly the marked lines")
    func textShape() throws {
        let project = try Self.project()
        let run = try Self.lint([], in: project)
        #expect(run.status == 1, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        let warning = /^([A-Za-z\/]+\.swift):(\d+):(\d+): warning: (.+) \[([a-z-]+)\]$/
        var found: [String] = []
        for (index, line) in lines.enumerated() where index % 2 == 0 {
            let match = try #require(line.wholeMatch(of: warning), "not a compiler warning: \(line)")
            found.append("\(match.1):\(match.2) \(match.5)")
            #expect(lines[index + 1].hasPrefix("    fix: "), "\(lines[index + 1])")
        }
        #expect(found.sorted() == (try Self.marks(in: project)))
        let export = try #require(lines.first { $0.contains("[main-queue-fetch-all]") && $0.hasPrefix("ViewControllers/") })
        #expect(export.contains("exportCSVFile() fetches every JournalEntry on the main-queue context 'mainContext'"), "\(export)")
        #expect(run.stderr.contains("ctxdebug lint: \(found.count) findings in \(Self.swiftFiles(in: project).count) files ("), "\(run.stderr)")
    }

    @Test("No findings: exit 0, nothing on stdout")
    func clean() throws {
        let project = try Self.project()
        let run = try Self.lint(["Model", "--rule", "confinement-type"], in: project)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("ctxdebug lint: no findings in 2 files"))
        let disabled = try Self.lint(["--disable", "object-across-queues", "ViewControllers/JournalEntryViewController.swift"], in: project)
        #expect(disabled.status == 0, "\(disabled.stdout)")
    }

    @Test("Bad flags: an unknown rule, a bad format, no rule left, an unwritable report: exit 64")
    func badFlags() throws {
        let project = try Self.project()
        let unknown = try Self.lint(["--rule", "object-accross-queues"], in: project)
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("unknown rule 'object-accross-queues'; the rules are: object-across-queues,"), "\(unknown.stderr)")
        let format = try Self.lint(["--format", "xml"], in: project)
        #expect(format.status == 64)
        #expect(format.stderr.contains("'xml' is invalid for '--format"), "\(format.stderr)")
        let none = try Self.lint(["--rule", "merge-off-queue", "--disable", "merge-off-queue"], in: project)
        #expect(none.status == 64)
        #expect(none.stderr.contains("leave no rule to run"))
        let unwritable = try Self.lint(["--sarif", "/nonexistent-dir/out.sarif"], in: project)
        #expect(unwritable.status == 64)
        #expect(unwritable.stderr.contains("--sarif /nonexistent-dir/out.sarif: the directory /nonexistent-dir does not exist"))
    }

    @Test("A file that cannot be read, or a missing path: exit 65, naming it")
    func unreadable() throws {
        let project = try Self.project()
        try FileManager.default.createSymbolicLink(atPath: project.appendingPathComponent("Broken.swift").path, withDestinationPath: "/nonexistent/Broken.swift")
        let broken = try Self.lint([], in: project)
        #expect(broken.status == 65, "\(broken.stderr)")
        #expect(broken.stderr.contains("ctxdebug lint: error: Broken.swift: cannot be read"), "\(broken.stderr)")
        #expect(broken.stdout.contains("[main-queue-fetch-all]"), "the other files are still linted")
        try FileManager.default.removeItem(at: project.appendingPathComponent("Broken.swift"))

        try Data([0x6c, 0x65, 0x74, 0x20, 0xff, 0xfe, 0x0a]).write(to: project.appendingPathComponent("Binary.swift"))
        let binary = try Self.lint(["Binary.swift"], in: project)
        #expect(binary.status == 65)
        #expect(binary.stderr.contains("Binary.swift: is not UTF-8 text"), "\(binary.stderr)")

        let missing = try Self.lint(["NoSuchFolder"], in: project)
        #expect(missing.status == 65)
        #expect(missing.stderr.contains("NoSuchFolder: no such file or directory"))
    }

    @Test("A file that cannot be parsed: a warning, named in the summary and the SARIF; exit 65 only with --strict")
    func unparsable() throws {
        let project = try Self.project()
        try "func broken( {\n".write(to: project.appendingPathComponent("Syntax.swift"), atomically: true, encoding: .utf8)
        let lenient = try Self.lint(["--sarif", "lint.sarif"], in: project)
        #expect(lenient.status == 1, "the other files' findings: \(lenient.stderr)")
        #expect(lenient.stderr.contains("ctxdebug lint: warning: Syntax.swift:1:"), "\(lenient.stderr)")
        #expect(lenient.stderr.contains("cannot be parsed as Swift"), "\(lenient.stderr)")
        #expect(lenient.stderr.contains("skipped 1 file that could not be parsed as Swift: Syntax.swift"), "\(lenient.stderr)")
        let log = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: project.appendingPathComponent("lint.sarif"))) as? [String: Any])
        let invocation = try #require(((log["runs"] as? [[String: Any]])?.first?["invocations"] as? [[String: Any]])?.first)
        let notifications = try #require(invocation["toolExecutionNotifications"] as? [[String: Any]])
        #expect(notifications.count == 1)
        #expect((notifications.first?["message"] as? [String: Any])?["text"] as? String == "\(lenient.stderr.components(separatedBy: "warning: ")[1].components(separatedBy: "\n")[0])")

        let strict = try Self.lint(["--strict", "Syntax.swift"], in: project)
        #expect(strict.status == 65, "\(strict.stderr)")
        #expect(strict.stderr.contains("ctxdebug lint: error: Syntax.swift:1:"), "\(strict.stderr)")
        let clean = try Self.lint(["Syntax.swift"], in: project)
        #expect(clean.status == 0, "\(clean.stderr)")
    }

    @Test("--exclude GLOB (repeatable), and Pods, Carthage, .build, DerivedData skipped by default")
    func exclude() throws {
        let project = try Self.project()
        let all = try Self.lint([], in: project)
        #expect(all.stdout.contains("Views/ExportView.swift:"))
        let excluded = try Self.lint(["--exclude", "Views", "--exclude", "*/Entry*.swift"], in: project)
        #expect(excluded.status == 1)
        #expect(!excluded.stdout.contains("Views/"), "\(excluded.stdout)")
        #expect(!excluded.stdout.contains("EntryEditor.swift"), "\(excluded.stdout)")
        #expect(excluded.stdout.contains("ViewControllers/JournalListViewController.swift:"))

        let folders = ["Pods/Alamofire", "Carthage/Checkouts/Lib", ".build/checkouts/Lib", "DerivedData/App"]
        for folder in folders {
            let directory = project.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: project.appendingPathComponent("Views/ExportView.swift"), to: directory.appendingPathComponent("ExportView.swift"))
        }
        let skipping = try Self.lint(["--format", "json"], in: project)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(skipping.stdout.utf8)) as? [String: Any])
        #expect(object["fileCount"] as? Int == Self.swiftFiles(in: project).count - folders.count, "\(Self.swiftFiles(in: project))")
    }

    @Test(".ctxdebug-lint.yml: included, excluded, disabled_rules; a bad file is an error naming the key")
    func configuration() throws {
        let project = try Self.project()
        let file = project.appendingPathComponent(".ctxdebug-lint.yml")
        try "included:\n  - Model\n  - ViewControllers\n  - Views\nexcluded:\n  - Views/ExportView.swift\ndisabled_rules:\n  - object-across-queues\n"
            .write(to: file, atomically: true, encoding: .utf8)
        let run = try Self.lint([], in: project)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stdout.contains("ViewControllers/JournalListViewController.swift:"), "\(run.stdout)")
        #expect(!run.stdout.contains("Views/"), "\(run.stdout)")
        #expect(!run.stdout.contains("[object-across-queues]"), "\(run.stdout)")
        #expect(run.stderr.contains("in 4 files"), "\(run.stderr)")
        // Given as the one PATH, the folder's configuration file applies too.
        let parent = try Self.lint([project.lastPathComponent], in: project.deletingLastPathComponent())
        #expect(!parent.stdout.contains("[object-across-queues]"), "\(parent.stdout)")

        for (yaml, key) in [
            ("disabled_rules: object-across-queues\n", "'disabled_rules' must be a list of strings"),
            ("disabled_rules:\n  - no-such-rule\n", "'disabled_rules' names an unknown rule 'no-such-rule'"),
            ("exclude:\n  - Views\n", "unknown key 'exclude'; the keys are included, excluded, disabled_rules, api"),
            ("excluded: [Views\n", "is not valid YAML"),
        ] {
            try yaml.write(to: file, atomically: true, encoding: .utf8)
            let bad = try Self.lint([], in: project)
            #expect(bad.status == 64, "\(yaml): \(bad.stderr)")
            #expect(bad.stderr.contains("ctxdebug lint: error: ./.ctxdebug-lint.yml: \(key)"), "\(yaml): \(bad.stderr)")
        }
    }

    @Test("--format json: every finding with its rule, place, message, fix and fingerprint")
    func json() throws {
        let project = try Self.project()
        let run = try Self.lint(["--format", "json"], in: project)
        #expect(run.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let findings = try #require(object["findings"] as? [[String: Any]])
        #expect(findings.map { "\($0["path"]!):\($0["line"]!) \($0["rule"]!)" }.sorted() == (try Self.marks(in: project)))
        #expect(findings.allSatisfy { ($0["fix"] as? String)?.isEmpty == false && ($0["fingerprint"] as? String)?.isEmpty == false })
        #expect(object["fileCount"] as? Int == Self.swiftFiles(in: project).count)
    }

    @Test("--json FILE writes what --format json prints (the report-file option group check and explore take too)")
    func jsonFile() throws {
        let project = try Self.project()
        let run = try Self.lint(["--json", "lint.json", "--format", "json"], in: project)
        #expect(run.status == 1, "\(run)")
        let file = try String(contentsOf: project.appendingPathComponent("lint.json"), encoding: .utf8)
        #expect(!run.stdout.isEmpty && file == run.stdout)
    }

    @Test("SARIF and JUnit, read back by sarif-tools and junitparser", .enabled(if: CLI.which("python3") != nil, "python3 not found"))
    func reports() throws {
        let project = try Self.project()
        let run = try Self.lint(["--sarif", "lint.sarif", "--junit", "lint.xml", "--format", "sarif"], in: project)
        #expect(run.status == 1)
        let marks = try Self.marks(in: project)

        // Our own reading: rules with help, relative paths, stdout the same log.
        let log = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: project.appendingPathComponent("lint.sarif"))) as? [String: Any])
        #expect(log["version"] as? String == "2.1.0")
        let runObject = try #require((log["runs"] as? [[String: Any]])?.first)
        let driver = try #require((runObject["tool"] as? [String: Any])?["driver"] as? [String: Any])
        let rules = try #require(driver["rules"] as? [[String: Any]])
        #expect(rules.count == 8)
        #expect(rules.allSatisfy { (($0["help"] as? [String: Any])?["text"] as? String)?.isEmpty == false })
        // No invented URLs: the project has no public page for a link to point at.
        #expect(rules.allSatisfy { $0["helpUri"] == nil })
        #expect(driver["informationUri"] == nil)
        let version = try #require(driver["version"] as? String)
        #expect(driver["semanticVersion"] as? String == version)
        #expect(version.wholeMatch(of: /\d+\.\d+\.\d+/) != nil, "\(version)")
        let stdoutLog = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(((stdoutLog["runs"] as? [[String: Any]])?.first?["results"] as? [Any])?.count == marks.count)

        let script = CLI.packageRoot.appendingPathComponent("Scripts/check-report-readers").path
        let read = try CLI.run(script, ["lint.sarif", "lint.xml"], in: project)
        try #require(read.status == 0, "\(read.stderr)")
        let values = try #require(try JSONSerialization.jsonObject(with: Data(read.stdout.utf8)) as? [String: Any])
        let sarif = try #require(values["sarif"] as? [String: Any])
        #expect(sarif["version"] as? String == "2.1.0")
        #expect(sarif["tools"] as? [String] == ["ctxdebug"])
        #expect(sarif["resultCount"] as? Int == marks.count)
        #expect(sarif["ruleIds"] as? [String] == Array(Set(marks.map { String($0.split(separator: " ")[1]) })).sorted())
        let records = try #require(sarif["records"] as? [[String: Any]])
        #expect(records.map { "\($0["location"]!):\($0["line"]!) \($0["code"]!)" }.sorted() == marks)
        #expect(records.allSatisfy { $0["severity"] as? String == "warning" })

        let junit = try #require(values["junit"] as? [String: Any])
        #expect(junit["tests"] as? Int == marks.count)
        #expect(junit["failures"] as? Int == marks.count)
        let cases = try #require(junit["cases"] as? [[String: Any]])
        #expect(cases.allSatisfy { ($0["classname"] as? String)?.hasPrefix("ctxdebug.lint.") == true && $0["passed"] as? Bool == false })
    }

    @Test("--baseline: old findings stay out when the code moves, new ones come through")
    func baseline() throws {
        let project = try Self.project()
        let first = try Self.lint(["--sarif", "baseline.sarif"], in: project)
        #expect(first.status == 1)
        let count = try Self.marks(in: project).count

        let file = project.appendingPathComponent("Services/EntryEditor.swift")
        let text = try String(contentsOf: file, encoding: .utf8)
        try ("// A header that moves every line down.\n\n" + text).write(to: file, atomically: true, encoding: .utf8)
        let moved = try Self.lint(["--baseline", "baseline.sarif"], in: project)
        #expect(moved.status == 0, "\(moved.stdout)")
        #expect(moved.stdout.isEmpty)
        #expect(moved.stderr.contains("no findings in \(Self.swiftFiles(in: project).count) files"))
        #expect(moved.stderr.contains("; \(count) more in the baseline"), "\(moved.stderr)")

        try "import CoreData\nlet legacy = NSManagedObjectContext()\n".write(
            to: project.appendingPathComponent("Services/Legacy.swift"), atomically: true, encoding: .utf8)
        let grown = try Self.lint(["--baseline", "baseline.sarif"], in: project)
        #expect(grown.status == 1)
        #expect(grown.stdout.hasPrefix("Services/Legacy.swift:2:14: warning: NSManagedObjectContext() makes a confinement context"), "\(grown.stdout)")
        #expect(grown.stdout.split(separator: "\n").count == 2)

        let missing = try Self.lint(["--baseline", "none.sarif"], in: project)
        #expect(missing.status == 65)
        #expect(missing.stderr.contains("--baseline none.sarif: cannot be read"))
    }

    @Test("--help lists every rule and shows an example")
    func help() throws {
        let run = try CLI.ctxdebug(["lint", "--help"])
        #expect(run.status == 0)
        for rule in ["object-across-queues", "context-without-perform", "main-context-off-main-queue", "merge-off-queue", "main-queue-fetch-all", "temporary-id-handoff", "child-save-not-propagated", "confinement-type"] {
            #expect(run.stdout.contains("  \(rule)\n"), "\(rule)")
        }
        #expect(run.stdout.contains("ctxdebug lint Sources --sarif lint.sarif --junit lint.xml"))
        #expect(run.stdout.contains("ctxdebug:disable-next-line"))
    }
}
