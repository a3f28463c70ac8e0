public import ReportFormats
import CtxdebugHelpers
import Dispatch
import Foundation
import SwiftParser
import SwiftSyntax

/// What one run of the linter found.
public struct LintResult: Sendable {
    /// Sorted by path, line and column.
    public var findings: [Finding]
    /// The files linted, and how many lines they hold.
    public var fileCount: Int
    public var lineCount: Int
    /// Files that could not be read; their findings are missing.
    public var errors: [LintError]
    /// Files that could not be parsed as Swift (a template, Swift 2): skipped, their
    /// findings missing.
    public var skipped: [LintError] = []
    /// Files the second pass parsed again: the project's index answered one of the
    /// rules' questions otherwise than the file's own.
    var reparsedFileCount = 0

    /// This run's results and `other`'s, as one run's.
    func adding(_ other: LintResult) -> LintResult {
        var sum = LintResult(
            findings: (findings + other.findings).sorted(), fileCount: fileCount + other.fileCount, lineCount: lineCount + other.lineCount,
            errors: errors + other.errors, skipped: skipped + other.skipped)
        sum.reparsedFileCount = reparsedFileCount + other.reparsedFileCount
        return sum
    }
}

/// A source held in memory, named by `path` in findings.
public struct LintSource: Sendable {
    public var path: String
    public var text: String

    public init(path: String, text: String) {
        self.path = path
        self.text = text
    }
}

/// Lints Swift sources that use Apple's Core Data. Two passes over the files, each in
/// parallel: the first parses every file and keeps only a small summary of it (its
/// types, context properties and functions, assignments, calls, and its text); the
/// second parses each file's text again and runs every enabled rule over it in one
/// walk, with the index the summaries make. No syntax tree outlives its file's turn, so
/// memory stays small.
public struct Linter: Sendable {
    public let enabledRules: [String]
    /// Other people's APIs: the built-in table, with a configuration's rows first.
    public var apiTable = APITable.builtIn
    /// Whether the second pass keeps the first pass's findings where the project's index
    /// agrees (tests turn it off to compare).
    var reusesFirstPass = true

    /// `rules`: the ids to run, every rule when nil. Unknown ids are the caller's to refuse.
    public init(rules: [String]? = nil, apiTable: APITable = .builtIn) {
        enabledRules = rules ?? RuleCatalog.ids
        self.apiTable = apiTable
    }

    /// Lints the files at `paths`, each named in findings as given. `projectFiles`: Xcode
    /// projects' `project.pbxproj` files, read for the build settings that make code
    /// `@MainActor` by default or run nonisolated async functions on their caller's
    /// actor (then an unmarked async function may run on the main queue); a file that
    /// cannot be read is left out.
    ///
    /// Separate projects among `paths` (folders with their own Xcode project, workspace
    /// or `Package.swift`) are linted apart, each with its own index and its own
    /// `projectFiles` (`ProjectGroups`). Inside a project, names are resolved per target
    /// (`ProjectTargets`, `TargetViews`): a target's files see their own declarations first.
    public func lint(files paths: [String], projectFiles: [String] = []) -> LintResult {
        let groups = ProjectGroups.split(paths)
        var merged: LintResult?
        for group in groups {
            let ownProjectFiles = groups.count == 1 ? projectFiles : projectFiles.filter { file in
                let path = URL(fileURLWithPath: file).standardizedFileURL.path
                let root = groups.compactMap(\.root).filter { path.hasPrefix($0 + "/") }.max(by: { $0.count < $1.count })
                return root == group.root
            }
            let settings = ProjectSettings(reading: ownProjectFiles, apiTable: apiTable)
            // Files under no project below what was linted may be in one above it.
            let root = group.root ?? (groups.count == 1 ? ProjectTargets.enclosingProject(of: group.files) : nil)
            let result = lint(group.files.map { path in (path, { () throws(LintError) in try Self.read(path) }) }, settings: settings, root: root)
            merged = merged.map { $0.adding(result) } ?? result
        }
        return merged ?? lint([], settings: ProjectSettings(reading: projectFiles, apiTable: apiTable))
    }

    /// Lints sources held in memory, each named by its path in findings.
    public func lint(sources: [LintSource]) -> LintResult {
        lint(sources.map { source in (source.path, { () throws(LintError) in source.text }) }, settings: ProjectSettings(apiTable: apiTable))
    }

    private typealias Input = (path: String, text: @Sendable () throws(LintError) -> String)

    /// `root`: the project's folder, whose manifest or Xcode layout tells its targets
    /// (`ProjectTargets`); nil for files under no project, one target.
    private func lint(_ inputs: [Input], settings: ProjectSettings, root: String? = nil) -> LintResult {
        let enabled = Set(enabledRules)
        let shared = SharedNames(settings: settings.facts, apiTable: apiTable)
        let summaries = Self.parallelMap(inputs) { input in
            FileSummary.read(input.path, input.text, rules: enabled, shared: shared)
        }
        
        var errors: [LintError] = [], skipped: [LintError] = [], files: [(Input, FileSummary)] = []
        for (input, summary) in zip(inputs, summaries) {
            switch summary {
            case .success(let summary): files.append((input, summary))
            case .failure(let error) where error.isParseError: skipped.append(error)
            case .failure(let error): errors.append(error)
            }
        }
        // One index per target that declares a name another target declares too; one
        // for all the others (and for a project of one target).
        let targets = ProjectTargets.names(of: files.map(\.0.path), root: root)
        var indexes: [(index: ProjectIndex, agrees: [Bool])] = []
        var indexOfFile = [Int](repeating: 0, count: files.count)
        for view in TargetViews(files: files.map(\.1.facts), targets: targets).views {
            let index = ProjectIndex(files: view.facts + [settings.facts], apiTable: apiTable)
            if let filter = ProcessInfo.processInfo.environment["CTXDEBUG_LINT_FACTS"] { index.dumpContexts(matching: filter) }
            for file in view.files { indexOfFile[file] = indexes.count }
            indexes.append((index, shared.answers.agreement(with: index)))
        }
        let reuses = reusesFirstPass
        let perFile = indexOfFile.map { indexes[$0] }
        let findings = Self.parallelMap(Array(zip(files, perFile))) { file, view -> (findings: [Finding], reparsed: Bool) in
            let (input, summary) = file
            let (index, agrees) = view
            // The rules ran in the first pass against the file's own index: their
            // findings stand when the project's index answers every question they asked
            // the same way. Otherwise the file is parsed again, as the index saw it.
            if reuses, let early = summary.early, early.answers.allSatisfy({ agrees[Int($0)] }) { return (early.findings, false) }
            let findings = ParsedFile(path: input.path, text: summary.text)
                .findings(rules: RuleCatalog.makeRules(enabled), index: IndexView(index))
            return (findings, true)
        }
        var result = LintResult(
            findings: findings.flatMap(\.findings).sorted(), fileCount: files.count,
            lineCount: files.reduce(0) { $0 + $1.1.lineCount }, errors: errors, skipped: skipped)
        result.reparsedFileCount = findings.count(where: \.reparsed)
        return result
    }

    private static func read(_ path: String) throws(LintError) -> String {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw LintError(path: path, reason: "cannot be read (\((error as NSError).localizedDescription))")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw LintError(path: path, reason: "is not UTF-8 text")
        }
        return text
    }

    /// `transform` over `items` on every core, results in order.
    static func parallelMap<Item: Sendable, Output: Sendable>(_ items: [Item], _ transform: @Sendable (Item) -> Output) -> [Output] {
        let results = LockedValue<[Output?]>(Array(repeating: nil, count: items.count))
        DispatchQueue.concurrentPerform(iterations: items.count) { index in
            let output = transform(items[index])
            results.withLock { $0[index] = output }
        }
        return results.withLock { $0.map { $0! } }
    }
}

/// What the first pass keeps of a file: its facts, its size, its text (a few dozen
/// bytes a line, against kilobytes for its tree), and what the rules found in it against
/// an index of the file alone, with every question they asked that index: not its tree.
struct FileSummary: Sendable {
    var facts: FileFacts
    var lineCount: Int
    var text: String
    var early: (findings: [Finding], answers: [Int32])?

    static func read(_ path: String, _ text: () throws(LintError) -> String, rules: Set<String>, shared: SharedNames) -> Result<FileSummary, LintError> {
        do {
            let text = try text()
            let tree = Parser.parse(source: text)
            if tree.hasError, let error = ParseErrorLocator.firstError(in: tree) {
                return .failure(
                    LintError(path: "\(path):\(error.line):\(error.column)", reason: "cannot be parsed as Swift (\(error.text))", isParseError: true))
            }
            let lines = LineTable(text)
            let fileName = path.split(separator: "/").last.map(String.init) ?? path
            let facts = FileFacts(tree, lines: lines, fileName: fileName, text: text, apiTable: shared.apiTable)
            let own = ProjectIndex(files: [facts, shared.settings], declaredElsewhere: shared.declare(facts), apiTable: shared.apiTable)
            shared.addHeldKinds(of: own)
            let view = IndexView(own, recording: true, extraManagedObjectClasses: shared.isManagedObjectClass, heldElsewhere: shared.holdsAny)
            let parsed = ParsedFile(path: path, text: text, tree: tree, lines: lines)
            let findings = parsed.findings(rules: RuleCatalog.makeRules(rules), index: view)
            shared.addManagedObjectClasses(own.managedObjectClasses)
            let answers = shared.answers.numbers(of: view.answers ?? [:])
            return .success(FileSummary(facts: facts, lineCount: lines.newlineCount, text: text, early: (findings, answers)))
        } catch {
            return .failure(error)
        }
    }
}

/// What the first pass learns as it goes, for the index each file is first linted
/// against: the functions other files declare, their `NSManagedObject` subclasses, and
/// the kinds of fact their own indexes hold any of.
/// Only a guess of the project's index: the second pass checks every answer.
final class SharedNames: Sendable {
    /// What the Xcode projects' build settings tell, as facts of no file.
    let settings: FileFacts
    let apiTable: APITable
    private let functions = LockedValue<Set<String>>([])
    private let managedObjectClasses = LockedValue<Set<String>>([])
    /// The questions of `IndexQuestion.holdsAnyKinds` some file's own index answered yes.
    private let heldKinds = LockedValue<Set<IndexQuestion>>([])
    /// The questions the rules asked of each file's own index, and the answers.
    let answers = AnswerTable()

    init(settings: FileFacts = FileFacts(), apiTable: APITable = .builtIn) {
        self.settings = settings
        self.apiTable = apiTable
    }

    /// Adds the file's functions; returns those another file declared first.
    func declare(_ facts: FileFacts) -> Set<String> {
        let names = Set(facts.functions.map(\.name))
        return functions.withLock { known in
            let elsewhere = names.intersection(known)
            known.formUnion(names)
            return elsewhere
        }
    }

    /// Whether some file's own index answered yes to `question`, one of
    /// `IndexQuestion.holdsAnyKinds`.
    func holdsAny(_ question: IndexQuestion) -> Bool {
        heldKinds.withLock { $0.contains(question) }
    }

    /// Notes the kinds of fact `index`, a file's own, holds any of.
    func addHeldKinds(of index: ProjectIndex) {
        let held = IndexQuestion.holdsAnyKinds.filter { index.answer($0) == .flag(true) }
        guard !held.isEmpty else { return }
        heldKinds.withLock { $0.formUnion(held) }
    }

    func isManagedObjectClass(_ name: String) -> Bool {
        managedObjectClasses.withLock { $0.contains(name) }
    }

    func addManagedObjectClasses(_ names: Set<String>) {
        managedObjectClasses.withLock { $0.formUnion(names) }
    }
}

/// One file, parsed for the second pass.
struct ParsedFile {
    var path: String
    var text: String
    var tree: SourceFileSyntax
    var lines: LineTable?

    init(path: String, text: String, tree: SourceFileSyntax? = nil, lines: LineTable? = nil) {
        self.path = path
        self.text = text
        self.tree = tree ?? Parser.parse(source: text)
        self.lines = lines
    }

    func findings(rules: [any LintRule], index: IndexView) -> [Finding] {
        let fileName = path.split(separator: "/").last.map(String.init) ?? path
        let pending = SemanticWalker(index: index, rules: rules, fileName: fileName).run(tree)
        guard !pending.isEmpty else { return [] }
        let lines = self.lines ?? LineTable(text)
        let suppressions = Suppressions(text: text)
        // Suppressed findings go first: a rule silenced on a line leaves the bug to the other.
        let located = pending.map { ($0, line: lines.line(of: $0.position.utf8Offset)) }.filter { !suppressions.isSuppressed($0.0.ruleID, line: $0.line) }
        return OneFindingPerBug.merge(located).map { finding, line in
            let offset = finding.position.utf8Offset
            let lineStart = lines.start(ofLine: line)
            return Finding(
                ruleID: finding.ruleID, path: path, line: line, column: offset - lineStart + 1,
                message: finding.message, fix: finding.fix, snippet: sourceLine(startingAt: lineStart))
        }
    }

    /// The line that starts at UTF-8 offset `start`, trimmed.
    private func sourceLine(startingAt start: Int) -> String {
        let bytes = text.utf8.dropFirst(start)
        var line = bytes.prefix { $0 != UInt8(ascii: "\n") }
        // ASCII spaces, tabs and line breaks off both ends on the bytes (the indentation
        // of nearly every line); what is left goes to Foundation's trimming only when an
        // end is not ASCII (a Unicode space), which then trims as it would have: 0.9% of a
        // run went to trimming every finding's line there.
        while let first = line.first, Self.isASCIISpace(first) { line = line.dropFirst() }
        while let last = line.last, Self.isASCIISpace(last) { line = line.dropLast() }
        let trimmed = String(Substring(line))
        guard let first = line.first, let last = line.last, first >= 0x80 || last >= 0x80 else { return trimmed }
        return trimmed.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A space, a tab or a line break (U+0009 to U+000D): the ASCII members of
    /// `CharacterSet.whitespacesAndNewlines`.
    private static func isASCIISpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || (byte >= 0x09 && byte <= 0x0D)
    }
}

/// Where the first syntax error of a tree is, and what the parser expected there.
enum ParseErrorLocator {
    static func firstError(in tree: SourceFileSyntax) -> (line: Int, column: Int, text: String)? {
        let converter = SourceLocationConverter(fileName: "", tree: tree)
        for token in tree.tokens(viewMode: .all) where token.presence == .missing || token.parent?.is(UnexpectedNodesSyntax.self) == true {
            let location = converter.location(for: token.positionAfterSkippingLeadingTrivia)
            let text = token.presence == .missing ? "expected \(describeMissing(token))" : "unexpected '\(token.text)'"
            return (location.line, location.column, text)
        }
        return nil
    }

    /// "')'", or "an expression" for the parser's `<#expression#>` placeholder.
    private static func describeMissing(_ token: TokenSyntax) -> String {
        let text = token.text
        guard text.hasPrefix("<#"), text.hasSuffix("#>") else { return "'\(text)'" }
        let name = text.dropFirst(2).dropLast(2)
        return (name.first.map { "aeiou".contains($0) } == true ? "an " : "a ") + name
    }
}

/// The build settings of the Xcode projects linted with the sources: Xcode 26's
/// `SWIFT_DEFAULT_ACTOR_ISOLATION = MainActor` makes unmarked code `@MainActor`, and
/// `SWIFT_APPROACHABLE_CONCURRENCY = YES` (or the upcoming feature itself) runs
/// nonisolated async functions on their caller's actor.
struct ProjectSettings {
    var facts = FileFacts()

    /// `apiTable`: its context rows are facts of no file, as a project's declarations are.
    init(reading projectFiles: [String] = [], apiTable: APITable = .builtIn) {
        facts.contextDeclarations = apiTable.declarations
        for path in projectFiles {
            guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else { continue }
            if SourceCollector.isModelContents(path) {
                facts.entityClasses.formUnion(Self.entityClasses(inModel: text))
            } else if Self.changesDefaultIsolation(text) {
                facts.changesDefaultIsolation = true
            }
        }
    }

    /// The classes of a Core Data model's entities: each `<entity>`'s
    /// `representedClassName`, without a module prefix (`App.Note`, `.Note`). An entity
    /// without one is a plain `NSManagedObject`, no class of its own.
    static func entityClasses(inModel text: String) -> Set<String> {
        var classes: Set<String> = []
        var rest = text[...]
        while let start = rest.range(of: "<entity ") {
            let tag = rest[start.upperBound...].prefix { $0 != ">" }
            rest = rest[start.upperBound...]
            guard let attribute = tag.range(of: "representedClassName=\"") else { continue }
            let value = tag[attribute.upperBound...].prefix { $0 != "\"" }
            let name = value.split(separator: ".").last.map(String.init) ?? ""
            if let first = name.first, first.isLetter || first == "_" { classes.insert(name) }
        }
        return classes
    }

    static func changesDefaultIsolation(_ text: String) -> Bool {
        text.contains("SWIFT_DEFAULT_ACTOR_ISOLATION = MainActor") || text.contains("SWIFT_APPROACHABLE_CONCURRENCY = YES")
            || text.contains("NonisolatedNonsendingByDefault") || text.contains("NONISOLATED_NONSENDING_BY_DEFAULT = YES")
    }
}
