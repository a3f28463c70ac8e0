import Foundation
import Testing
import TestSupport

/// `ctxdebug check`, end to end: builds the sample package in Tests/Fixtures/CheckSample
/// (one test with a seeded violation, one clean, one that fails on request) once, then
/// runs the BUILT `ctxdebug check --junit --sarif -- swift test` on it and checks the
/// exit status, the summary and both files, and reads the files back with independent
/// libraries (Scripts/check-report-readers: PyPI's sarif-tools and junitparser).
@Suite("ctxdebug check (built binary, sample package)", .serialized)
struct CheckCommandTests {
    static let packageRoot = CLI.packageRoot
    static let fixture = packageRoot.appendingPathComponent("Tests/Fixtures/CheckSample")
    /// The fixture's own scratch path under the temp dir, so it never touches .build;
    /// kept between runs so a rebuild is incremental.
    static let scratch: String = {
        var hash: UInt32 = 2_166_136_261
        for byte in packageRoot.path.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return NSTemporaryDirectory() + "/ctxdebug-fixture-CheckSample-\(String(hash, radix: 16))"
    }()

    /// The TMPDIR of the fixture's `swift` runs, inside its scratch path: SwiftPM leaves
    /// a `TemporaryDirectory.*` behind in TMPDIR at each run.
    static let swiftEnvironment: [String: String] = {
        let temporary = scratch + "/tmp"
        try? FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        if let leftovers = try? FileManager.default.contentsOfDirectory(atPath: temporary) {
            for name in leftovers { try? FileManager.default.removeItem(atPath: temporary + "/" + name) }
        }
        return ["TMPDIR": temporary]
    }()

    /// Builds the fixture once per test run: `swift build --build-tests` into its scratch path.
    static let fixtureBuild: Result<String, BuildFailure> = {
        guard let swift = CLI.which("swift") else { return .failure(BuildFailure(text: "swift is not on PATH")) }
        do {
            let build = try CLI.run(
                swift, ["build", "--build-tests", "--scratch-path", scratch], environment: swiftEnvironment, in: fixture, timeout: nil)
            guard build.status == 0 else {
                return .failure(BuildFailure(text: "building the fixture failed (\(build.status)):\n\(build.output.suffix(4000))"))
            }
            return .success(swift)
        } catch {
            return .failure(BuildFailure(text: "cannot run swift: \(error)"))
        }
    }()

    struct BuildFailure: Error, CustomStringConvertible { var text: String; var description: String { text } }

    struct Check: Sendable {
        var run: CommandRun
        var junit: String
        var sarif: String
        var json: String
    }

    /// `ctxdebug check --junit --sarif --json -- swift test --skip-build ...` on the fixture.
    /// `command`, when given, replaces `swift test ...`; it is passed `swift` and the
    /// scratch path as its last two arguments.
    static func check(_ testArguments: [String] = [], sourceRoot: String? = nil, environment: [String: String] = [:],
                      command: [String]? = nil) throws -> Check {
        _ = try CLI.ctxdebugPath()  // before the fixture's build, which takes minutes
        let swift = try fixtureBuild.get()
        let run = command.map { $0 + [swift, scratch] } ?? ([swift, "test", "--skip-build", "--scratch-path", scratch] + testArguments)
        let directory = NSTemporaryDirectory() + "/ctxdebug-check-test-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let check = Check(run: CommandRun(status: 0, signaled: false, stdout: "", stderr: ""), junit: "\(directory)/report.xml",
                          sarif: "\(directory)/report.sarif", json: "\(directory)/report.json")
        var result = check
        result.run = try CLI.ctxdebug(
            ["check", "--junit", check.junit, "--sarif", check.sarif, "--json", check.json]
                + (sourceRoot.map { ["--source-root", $0] } ?? [])
                + ["--"] + run,
            environment: Self.swiftEnvironment.merging(environment) { $1 }, in: fixture, timeout: nil)
        return result
    }

    /// The seeded run, shared by the tests below (one `swift test` for all of them).
    /// Its source root is this repository, so the runtime's own sources are under it
    /// too, and the reports must skip their frames to find the user's line.
    static let seeded: Result<Check, any Error> = Result { try check(sourceRoot: packageRoot.path) }

    /// The line of `marker` in a fixture file.
    static func line(of marker: String, in relativePath: String) -> Int {
        TestSupport.line(of: marker, in: fixture.appendingPathComponent(relativePath).path)
    }

    static let inboxPath = "Sources/CheckSample/Inbox.swift"
    static let testsPath = "Tests/CheckSampleTests/InboxTests.swift"
    /// The same, relative to the seeded run's source root (this repository).
    static let inboxFromRoot = "Tests/Fixtures/CheckSample/" + inboxPath
    static let testsFromRoot = "Tests/Fixtures/CheckSample/" + testsPath

    @Test("A seeded violation: exit 66, a summary grouped by stack, the command's output passed through")
    func seededStatusAndSummary() throws {
        let check = try Self.seeded.get()
        let run = check.run
        #expect(run.status == 66, "\(run.output.suffix(3000))")
        let access = Self.line(of: "OFFENDING-ACCESS", in: Self.inboxPath)
        let seeded = Self.line(of: "SEEDED-VIOLATION", in: Self.testsPath)
        // The test run's own closing line, passed through.
        #expect(run.output.contains("Test run with 3 tests"), "\(run.output.suffix(2000))")
        #expect(run.stderr.contains("ctxdebug check: 1 distinct concurrency violation (1 in all) in 1 process, most frequent first"))
        #expect(run.stderr.contains("[1/1] 1 time, wrong-queue at \(Self.inboxFromRoot):\(access), in 1 process"), "\(run.stderr.suffix(3000))")
        #expect(run.stderr.contains("must happen on queue 'sample.inbox-queue', but it happened on queue 'sample.worker'"))
        #expect(run.stderr.contains("InboxTests.swift:\(seeded):"), "the stack reaches the test's line")
        #expect(run.stderr.contains("ctxdebug check: FAILED: 1 distinct concurrency violation (1 in all);"))
        #expect(run.stderr.hasSuffix("exiting with status 66\n"))
        // The merged JSON agrees.
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: check.json))) as? [String: Any])
        #expect(json["distinctCount"] as? Int == 1)
        #expect(json["commandExitStatus"] as? Int == 0)
        let violation = try #require((json["violations"] as? [[String: Any]])?.first)
        let location = try #require(violation["location"] as? [String: Any])
        #expect(location["file"] as? String == Self.inboxFromRoot)
        #expect(location["line"] as? Int == access)
    }

    /// CoreDataMigrationRevised-Example's tests empty `NSTemporaryDirectory()` between
    /// tests; when the report directory was in the command's TMPDIR, its reports went
    /// with it and check failed with "cannot list the report directory".
    @Test("A command that empties its TMPDIR keeps its reports: the command gets a TMPDIR of its own")
    func commandEmptyingItsTemporaryDirectory() throws {
        let script = #"swift=$1; scratch=$2; "$swift" test --skip-build --scratch-path "$scratch"; status=$?; "#
            + #"find "${TMPDIR:?}" -mindepth 1 -delete; exit $status"#
        let check = try Self.check(command: ["/bin/sh", "-c", script, "sh"])
        let run = check.run
        #expect(run.status == 66, "\(run.output.suffix(3000))")
        #expect(!run.stderr.contains("cannot list the report directory"), "\(run.stderr.suffix(2000))")
        #expect(run.stderr.contains("ctxdebug check: FAILED: 1 distinct concurrency violation (1 in all);"), "\(run.stderr.suffix(2000))")
        #expect(FileManager.default.fileExists(atPath: Self.scratch + "/debug"), "the fixture's build is outside the emptied TMPDIR")
    }

    @Test("JUnit: one failing test case per distinct violation, with its stack")
    func seededJUnit() throws {
        let check = try Self.seeded.get()
        let xml = try String(contentsOfFile: check.junit, encoding: .utf8)
        let access = Self.line(of: "OFFENDING-ACCESS", in: Self.inboxPath)
        let seeded = Self.line(of: "SEEDED-VIOLATION", in: Self.testsPath)
        #expect(xml.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"#))
        #expect(xml.contains(#"<testsuites name="ctxdebug check" tests="1" failures="1" errors="0">"#))
        #expect(occurrences(of: "<testcase ", in: xml) == 1)
        #expect(occurrences(of: "<failure ", in: xml) == 1)
        #expect(xml.contains(##"classname="ctxdebug.wrong-queue" name="#1 get of QueueConfined&lt;Array&lt;String&gt;&gt; at \##(Self.inboxFromRoot):\##(access)""##), "\(xml.prefix(1500))")
        #expect(xml.contains(#"<failure type="wrong-queue" message="BUG DETECTED: get of QueueConfined"#))
        #expect(xml.contains("  stack:\n"))
        #expect(xml.contains("InboxTests.swift:\(seeded):"))
    }

    @Test("SARIF 2.1.0: a rule per kind, the result at the user's line, the stack as a code flow, relative paths")
    func seededSARIF() throws {
        let check = try Self.seeded.get()
        let access = Self.line(of: "OFFENDING-ACCESS", in: Self.inboxPath)
        let seeded = Self.line(of: "SEEDED-VIOLATION", in: Self.testsPath)
        let log = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: check.sarif))) as? [String: Any])
        #expect(log["version"] as? String == "2.1.0")
        #expect((log["$schema"] as? String)?.contains("sarif-2.1.0") == true)
        let run = try #require((log["runs"] as? [[String: Any]])?.first)
        let driver = try #require((run["tool"] as? [String: Any])?["driver"] as? [String: Any])
        #expect(driver["name"] as? String == "ctxdebug")
        let rules = try #require(driver["rules"] as? [[String: Any]])
        #expect(rules.map { $0["id"] as? String } == ["wrong-queue"])
        let base = try #require((run["originalUriBaseIds"] as? [String: Any])?["%SRCROOT%"] as? [String: Any])
        #expect(base["uri"] as? String == "file://" + Self.packageRoot.standardizedFileURL.path + "/")
        let results = try #require(run["results"] as? [[String: Any]])
        try #require(results.count == 1)
        let result = results[0]
        #expect(result["ruleId"] as? String == "wrong-queue")
        #expect(result["level"] as? String == "error")
        let physical = try #require(((result["locations"] as? [[String: Any]])?.first?["physicalLocation"]) as? [String: Any])
        let artifact = try #require(physical["artifactLocation"] as? [String: Any])
        #expect(artifact["uri"] as? String == Self.inboxFromRoot, "relative to the source root; the runtime's frame above it is skipped")
        #expect(artifact["uriBaseId"] as? String == "%SRCROOT%")
        #expect((physical["region"] as? [String: Any])?["startLine"] as? Int == access)
        // The stack, outermost first, passes through the test's line and ends at the access.
        let flow = try #require((result["codeFlows"] as? [[String: Any]])?.first)
        let steps = try #require(((flow["threadFlows"] as? [[String: Any]])?.first?["locations"]) as? [[String: Any]])
        let places: [(String, Int)] = steps.compactMap { step in
            guard let location = step["location"] as? [String: Any],
                let physical = location["physicalLocation"] as? [String: Any],
                let uri = (physical["artifactLocation"] as? [String: Any])?["uri"] as? String,
                let line = (physical["region"] as? [String: Any])?["startLine"] as? Int
            else { return nil }
            return (uri, line)
        }
        #expect(places.contains { $0 == (Self.testsFromRoot, seeded) }, "\(places)")
        #expect(places.last?.0 == "Sources/ConcurrencyDebug/QueueConfined.swift", "innermost last: \(places.suffix(2))")
        #expect(!places.contains { $0.0.hasPrefix("/") }, "paths are relative or file: URIs")
    }

    static let python: String? = CLI.which("python3")

    @Test("SARIF and JUnit read back by sarif-tools and junitparser", .enabled(if: python != nil, "python3 not found: skipping the independent readers"))
    func independentReaders() throws {
        let check = try Self.seeded.get()
        let script = Self.packageRoot.appendingPathComponent("Scripts/check-report-readers").path
        let read = try CLI.run(script, [check.sarif, check.junit], in: Self.packageRoot)
        try #require(read.status == 0, "\(read.stderr)")
        let values = try #require(try JSONSerialization.jsonObject(with: Data(read.stdout.utf8)) as? [String: Any])
        let access = Self.line(of: "OFFENDING-ACCESS", in: Self.inboxPath)
        let seeded = Self.line(of: "SEEDED-VIOLATION", in: Self.testsPath)
        let ours = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: check.json))) as? [String: Any])
        let message = try #require((ours["violations"] as? [[String: Any]])?.first?["message"] as? String)

        let sarif = try #require(values["sarif"] as? [String: Any])
        #expect(sarif["version"] as? String == "2.1.0")
        #expect(sarif["tools"] as? [String] == ["ctxdebug"])
        #expect(sarif["resultCount"] as? Int == 1)
        #expect(sarif["ruleIds"] as? [String] == ["wrong-queue"])
        let record = try #require((sarif["records"] as? [[String: Any]])?.first)
        #expect(record["location"] as? String == Self.inboxFromRoot)
        #expect(record["line"] as? Int == access)
        #expect(record["code"] as? String == "wrong-queue")
        #expect(record["severity"] as? String == "error")
        #expect((record["description"] as? String)?.hasPrefix(message) == true)
        let flow = try #require((sarif["codeFlows"] as? [[String: Any]])?.first)
        #expect((flow["uris"] as? [String])?.contains(Self.testsFromRoot) == true)
        #expect(flow["lastUri"] as? String == "Sources/ConcurrencyDebug/QueueConfined.swift")

        let junit = try #require(values["junit"] as? [String: Any])
        #expect(junit["tests"] as? Int == 1)
        #expect(junit["failures"] as? Int == 1)
        #expect(junit["errors"] as? Int == 0)
        let testCase = try #require((junit["cases"] as? [[String: Any]])?.first)
        #expect(testCase["classname"] as? String == "ctxdebug.wrong-queue")
        #expect(testCase["name"] as? String == "#1 get of QueueConfined<Array<String>> at \(Self.inboxFromRoot):\(access)")
        #expect(testCase["passed"] as? Bool == false)
        let failure = try #require((testCase["results"] as? [[String: Any]])?.first)
        #expect(failure["kind"] as? String == "failure")
        #expect(failure["type"] as? String == "wrong-queue")
        #expect(failure["message"] as? String == message)
        #expect((failure["text"] as? String)?.contains("InboxTests.swift:\(seeded):") == true)
    }

    @Test("The command's own failure wins: its status, and the violation still reported")
    func failingCommandStatusWins() throws {
        let check = try Self.check(environment: ["CHECKSAMPLE_FAIL": "1"])
        #expect(check.run.status == 1, "\(check.run.output.suffix(3000))")
        #expect(check.run.stderr.contains("ctxdebug check: 1 distinct concurrency violation"))
        #expect(check.run.stderr.contains("FAILED: `"))
        #expect(check.run.stderr.contains("exited with status 1; exiting with its status 1 (and 1 distinct concurrency violation found)"))
        let xml = try String(contentsOfFile: check.junit, encoding: .utf8)
        #expect(xml.contains(#"failures="1""#))
        // With no --source-root, paths are relative to the current directory (the fixture).
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: check.json))) as? [String: Any])
        #expect(json["commandExitStatus"] as? Int == 1)
        let location = (json["violations"] as? [[String: Any]])?.first?["location"] as? [String: Any]
        #expect(location?["file"] as? String == Self.inboxPath)
    }

    @Test("A clean run exits 0 with empty reports")
    func cleanRun() throws {
        let check = try Self.check(["--filter", "postsOnItsOwnQueue"])
        #expect(check.run.status == 0, "\(check.run.output.suffix(3000))")
        #expect(check.run.stderr.contains("ctxdebug check: no concurrency violations (level 1)."))
        #expect(check.run.stderr.contains("ctxdebug check: passed:"))
        let xml = try String(contentsOfFile: check.junit, encoding: .utf8)
        #expect(xml.contains(#"tests="1" failures="0""#))
        #expect(xml.contains(#"<testcase classname="ctxdebug.concurrency" name="no concurrency violations" time="0"/>"#))
        let log = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: check.sarif))) as? [String: Any])
        let results = (log["runs"] as? [[String: Any]])?.first?["results"] as? [Any]
        #expect(results?.isEmpty == true)
    }

    @Test("Usage errors: no command, a bad level, an output path that cannot be written, a command not found")
    func usageErrors() throws {
        let here = Self.packageRoot
        let noCommand = try CLI.ctxdebug(["check"], in: here)
        #expect(noCommand.status == 64)
        #expect(noCommand.stderr.contains("missing the command to run"), "\(noCommand.stderr)")

        let badLevel = try CLI.ctxdebug(["check", "--level", "0", "--", "true"], in: here)
        #expect(badLevel.status == 64)
        #expect(badLevel.stderr.contains("--level must be 1, 2 or 3"))

        let marker = NSTemporaryDirectory() + "/ctxdebug-check-marker-\(getpid())"
        let unwritable = try CLI.ctxdebug(["check", "--sarif", "/nonexistent-dir/out.sarif", "--", "touch", marker], in: here)
        #expect(unwritable.status == 64)
        #expect(unwritable.stderr.contains("--sarif /nonexistent-dir/out.sarif: the directory /nonexistent-dir does not exist"), "\(unwritable.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker), "the command did not run")

        let missing = try CLI.ctxdebug(["check", "--", "ctxdebug-no-such-command"], in: here)
        #expect(missing.status == 127)
        #expect(missing.stderr.contains("cannot run ctxdebug-no-such-command"))

        let plain = try CLI.ctxdebug(["check", "--", "sh", "-c", "echo passthrough; exit 3"], in: here)
        #expect(plain.status == 3)
        #expect(plain.stdout.contains("passthrough"))
    }
}
