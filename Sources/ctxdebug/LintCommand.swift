import ArgumentParser
import CoreDataLint
import Foundation
import Reports

/// `ctxdebug lint [PATH ...]`: finds the checker's bugs statically, in Swift sources
/// written against Apple's Core Data, and reports them as compiler warnings, JSON,
/// SARIF or JUnit.
struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Find Core Data concurrency bugs in Swift sources, without running them (swift-syntax).",
        discussion: """
            Reads every .swift file under each PATH (default: the current directory; \
            folders whose name starts with a dot, such as .build and .git, are skipped) \
            and reports the bugs `CTXDEBUG_CONCURRENCY=1` stops at run time, in code \
            written against Apple's Core Data (NSManagedObjectContext, NSManagedObject, \
            NSPersistentContainer). A rule that cannot tell stays silent.

            Rules (docs/lint.md has a bug, the finding and the fix for each):
            \(LintCommand.ruleList)

            Findings print in the compiler's shape, so editors and CI annotate them:
              Sources/App/Export.swift:42:31: warning: <what, naming both queues> [rule-id]
                  fix: <what to write instead>

            Silence one line with `// ctxdebug:disable-next-line RULE` above it, or a \
            stretch with `// ctxdebug:disable RULE` ... `// ctxdebug:enable RULE`. \
            --baseline FILE takes the SARIF of an earlier run and reports only the findings \
            not in it (matched on rule, file and a fingerprint of the message and the line, \
            so moved code stays baselined).

            Example, in CI:
              ctxdebug lint Sources --sarif lint.sarif --junit lint.xml

            Exit status:
              0   no findings
              1   findings
              64  usage error: an unknown rule id, a bad format, an output path that cannot be written
              65  a path, a file or the baseline cannot be read, or a file cannot be parsed (named on stderr)
              73  a --sarif or --junit file could not be written after the run
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, sarif
    }

    @Argument(help: ArgumentHelp("Swift files or folders to scan (default: .).", valueName: "path"))
    var paths: [String] = []

    @Option(help: "What to print on stdout: text (compiler warnings), json or sarif.")
    var format: Format = .text

    @Option(help: ArgumentHelp("Also write SARIF 2.1.0 to FILE.", valueName: "file"))
    var sarif: String?

    @Option(help: ArgumentHelp("Also write JUnit XML to FILE: one failing test case per finding.", valueName: "file"))
    var junit: String?

    @Option(name: .customLong("rule"), help: ArgumentHelp("Run only this rule (repeat for more).", valueName: "id"))
    var onlyRules: [String] = []

    @Option(name: .customLong("disable"), help: ArgumentHelp("Do not run this rule (repeat for more).", valueName: "id"))
    var disabledRules: [String] = []

    @Option(help: ArgumentHelp("A SARIF file from an earlier run: report only findings not in it.", valueName: "file"))
    var baseline: String?

    static let findingsFound = ExitStatus.findingsFound.code
    static let cannotRead = ExitStatus.lintInputUnreadable.code

    static var ruleList: String {
        RuleCatalog.all.map { "  \($0.id)\n      \($0.summary)" }.joined(separator: "\n")
    }

    func validate() throws {
        for id in onlyRules + disabledRules where RuleCatalog.description(of: id) == nil {
            throw ValidationError("unknown rule '\(id)'; the rules are: \(RuleCatalog.ids.joined(separator: ", "))")
        }
        if enabledRules.isEmpty {
            throw ValidationError("--rule and --disable leave no rule to run")
        }
        for (flag, path) in [("--sarif", sarif), ("--junit", junit)] {
            if let path, let problem = CheckCommand.writeProblem(path) {
                throw ValidationError("\(flag) \(path): \(problem)")
            }
        }
    }

    var enabledRules: [String] {
        (onlyRules.isEmpty ? RuleCatalog.ids : onlyRules).filter { !disabledRules.contains($0) }
    }

    func run() throws {
        let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL.path
        let files: [String]
        do {
            files = try SourceCollector.swiftFiles(under: paths.isEmpty ? ["."] : paths)
                .map { SourceLocator.relative($0, to: root) ?? $0 }
        } catch {
            Self.say("ctxdebug lint: error: \(error)")
            throw ExitCode(Self.cannotRead)
        }
        let previous: Baseline?
        do {
            previous = try baseline.map { path throws(LintError) in try Self.readBaseline(path) }
        } catch {
            Self.say("ctxdebug lint: error: --baseline \(error)")
            throw ExitCode(Self.cannotRead)
        }

        let result = Linter(rules: enabledRules).lint(files: files)
        let findings = previous?.newFindings(result.findings) ?? result.findings
        let exit = !result.errors.isEmpty ? Self.cannotRead : (findings.isEmpty ? 0 : Self.findingsFound)
        let commandLine = (["ctxdebug"] + CommandLine.arguments.dropFirst()).joined(separator: " ")
        let report = LintReport(
            findings: findings, baselinedCount: result.findings.count - findings.count, rules: enabledRules,
            fileCount: result.fileCount, lineCount: result.lineCount, errors: result.errors, root: root,
            commandLine: commandLine, exitStatus: exit)

        switch format {
        case .text: FileHandle.standardOutput.write(Data(LintText.render(report).utf8))
        case .json: FileHandle.standardOutput.write(try LintJSON(report).data() + Data("\n".utf8))
        case .sarif: FileHandle.standardOutput.write(try LintSARIF.log(report).encoded() + Data("\n".utf8))
        }
        var writeFailed = false
        func write(_ flag: String, _ path: String?, _ make: () throws -> Data) {
            guard let path else { return }
            do {
                try make().write(to: URL(fileURLWithPath: path))
            } catch {
                Self.say("ctxdebug lint: error: could not write \(flag) \(path): \(error.localizedDescription)")
                writeFailed = true
            }
        }
        write("--sarif", sarif) { try LintSARIF.log(report).encoded() }
        write("--junit", junit) { Data(LintJUnit.report(report).xml().utf8) }
        for error in result.errors { Self.say("ctxdebug lint: error: \(error)") }
        Self.say("ctxdebug lint: \(LintText.summary(report))")
        if writeFailed { throw ExitStatus.cannotCreate.exitCode }
        if exit != 0 { throw ExitCode(exit) }
    }

    private static func readBaseline(_ path: String) throws(LintError) -> Baseline {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LintError(path: path, reason: "cannot be read")
        }
        return try Baseline(sarif: data, path: path)
    }

    static func say(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
