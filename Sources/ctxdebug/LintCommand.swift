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
            Reads every .swift file under each PATH (default: the current directory, or the \
            `included` list of the configuration file; folders whose name starts with a \
            dot, such as .build and .git, and Pods, Carthage and DerivedData are skipped, \
            as is whatever --exclude or `excluded` names) and reports the bugs `CTXDEBUG_CONCURRENCY=1` stops at run time, in code \
            written against Apple's Core Data (NSManagedObjectContext, NSManagedObject, \
            NSPersistentContainer). A first pass over every file learns which properties \
            and functions hold which kind of context and which methods run on which \
            queue, so a context handed through another file is followed; a finding that \
            rests on such a fact cites it. Swift concurrency is a queue (@MainActor, \
            MainActor.run, nonisolated async functions, actors, Task.detached, \
            TaskGroup.addTask), tests are code (XCTest, Swift Testing), and callbacks whose \
            queue Apple documents are placed (URLSession, NotificationCenter, \
            OperationQueue, loadPersistentStores, a Timer scheduled from the main queue, \
            WCSessionDelegate methods, CKDatabase.save's completion); overloads are told \
            apart by their argument labels; \
            a function called only on a private context's queue, a background queue, or \
            inside a closure a project function runs on a known queue is placed there; \
            NSManagedObjectContext extensions, fetched results controllers, a private \
            context nothing performs on, and objects every call hands a parameter (also \
            through another function's parameter) are followed. It reads the project.pbxproj files under PATH for a default \
            actor isolation. One bug gets one finding. A rule that cannot tell stays silent.

            Configuration: .ctxdebug-lint.yml at the linted root (the one PATH given when \
            it is a folder, else the current directory), or --config FILE, with the keys \
            included, excluded (globs) and disabled_rules, each a list.

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

            --sarif, --junit and --json also write the findings to files (JUnit: one \
            failing test case per finding), whatever --format prints.

            Example, in CI:
              ctxdebug lint Sources --sarif lint.sarif --junit lint.xml

            A file that cannot be parsed as Swift (a template, Swift 2) is skipped with \
            a warning on stderr, named in the summary and in the SARIF; it fails the run \
            only with --strict.

            Exit status:
              0   no findings
              1   findings
              64  usage error: an unknown rule id, a bad format, an output path that cannot be written, a bad configuration file (the key named)
              65  a path, a file or the baseline cannot be read; with --strict, a file cannot be parsed (named on stderr)
              73  a --sarif, --junit or --json file could not be written after the run
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, sarif
    }

    @Argument(help: ArgumentHelp("Swift files or folders to scan (default: .).", valueName: "path"))
    var paths: [String] = []

    @Option(help: "What to print on stdout: text (compiler warnings), json or sarif.")
    var format: Format = .text

    @OptionGroup var reportFiles: ReportFileOptions

    @Option(name: .customLong("rule"), help: ArgumentHelp("Run only this rule (repeat for more).", valueName: "id"))
    var onlyRules: [String] = []

    @Option(name: .customLong("disable"), help: ArgumentHelp("Do not run this rule (repeat for more).", valueName: "id"))
    var disabledRules: [String] = []

    @Option(help: ArgumentHelp("A SARIF file from an earlier run: report only findings not in it.", valueName: "file"))
    var baseline: String?

    @Option(name: .customLong("exclude"), help: ArgumentHelp("Skip the files and folders this glob matches, relative to each PATH (repeat for more).", valueName: "glob"))
    var excluded: [String] = []

    @Option(help: ArgumentHelp("Read this configuration file instead of .ctxdebug-lint.yml at the linted root.", valueName: "file"))
    var config: String?

    @Flag(help: "Fail (exit 65) when a file cannot be parsed as Swift, instead of skipping it with a warning.")
    var strict = false

    static let findingsFound = ExitStatus.findingsFound.code
    static let usage = ExitStatus.usage.code
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
    }

    var enabledRules: [String] {
        (onlyRules.isEmpty ? RuleCatalog.ids : onlyRules).filter { !disabledRules.contains($0) }
    }

    /// The folder whose `.ctxdebug-lint.yml` applies: the one PATH given when it is a
    /// folder, else the current directory.
    var configurationRoot: String {
        var isDirectory: ObjCBool = false
        if paths.count == 1, FileManager.default.fileExists(atPath: paths[0], isDirectory: &isDirectory), isDirectory.boolValue {
            return paths[0]
        }
        return "."
    }

    func loadConfiguration() throws -> LintConfiguration {
        let path = config ?? (configurationRoot as NSString).appendingPathComponent(LintConfiguration.fileName)
        guard config != nil || FileManager.default.fileExists(atPath: path) else { return LintConfiguration() }
        do {
            return try LintConfiguration(contentsOf: path)
        } catch {
            Self.say("ctxdebug lint: error: \(error)")
            throw ExitCode(Self.usage)
        }
    }

    func run() throws {
        let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL.path
        let configuration = try loadConfiguration()
        let rules = enabledRules.filter { !configuration.disabledRules.contains($0) }
        if rules.isEmpty {
            Self.say("ctxdebug lint: error: --rule, --disable and disabled_rules leave no rule to run")
            throw ExitCode(Self.usage)
        }
        let included = configuration.included.map { configurationRoot == "." ? $0 : (configurationRoot as NSString).appendingPathComponent($0) }
        let files: [String], projectFiles: [String]
        do {
            let inputs = try SourceCollector.inputs(
                under: paths.isEmpty ? (included.isEmpty ? ["."] : included) : paths, excluding: excluded + configuration.excluded)
            files = inputs.swiftFiles.map { SourceLocator.relative($0, to: root) ?? $0 }
            projectFiles = inputs.projectFiles
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

        let result = Linter(rules: rules, apiTable: configuration.apiTable).lint(files: files, projectFiles: projectFiles)
        let findings = previous?.newFindings(result.findings) ?? result.findings
        let failsOnSkipped = strict && !result.skipped.isEmpty
        let exit = !result.errors.isEmpty || failsOnSkipped ? Self.cannotRead : (findings.isEmpty ? 0 : Self.findingsFound)
        let commandLine = (["ctxdebug"] + CommandLine.arguments.dropFirst()).joined(separator: " ")
        let report = LintRun.of(
            findings: findings, baselinedCount: result.findings.count - findings.count, rules: rules,
            fileCount: result.fileCount, lineCount: result.lineCount, errors: result.errors, skipped: result.skipped, root: root,
            commandLine: commandLine, exitStatus: exit)

        switch format {
        case .text: FileHandle.standardOutput.write(Data(LintText.render(report).utf8))
        case .json: FileHandle.standardOutput.write(try LintJSON(report).data() + Data("\n".utf8))
        case .sarif: FileHandle.standardOutput.write(try LintSARIF.encoded(report) + Data("\n".utf8))
        }
        let contents = ReportFileOptions.Contents(
            junit: { Data(LintJUnit.report(report).xml().utf8) }, sarif: { try LintSARIF.encoded(report) },
            json: { try LintJSON(report).data() + Data("\n".utf8) })
        // Only failures are told: lint's stderr is its findings' summary.
        let writeFailed = reportFiles.write(contents, command: "lint") { if $0.contains(": error: ") { Self.say($0) } }
        for error in result.errors { Self.say("ctxdebug lint: error: \(error)") }
        for file in result.skipped { Self.say("ctxdebug lint: \(strict ? "error" : "warning"): \(file); skipped") }
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
