import Dispatch
import Foundation
import SwiftParser
import SwiftSyntax
import Synchronization

/// What one run of the linter found.
public struct LintResult: Sendable {
    /// Sorted by path, line and column.
    public var findings: [Finding]
    /// The files read, and how many lines they hold.
    public var fileCount: Int
    public var lineCount: Int
    /// Files that could not be read or parsed; their findings are missing.
    public var errors: [LintError]
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
/// parallel: the first parses every file and learns the project's `NSManagedObject`
/// subclasses and context properties; the second runs every enabled rule over each
/// file in one walk.
public struct Linter: Sendable {
    public let enabledRules: [String]

    /// `rules`: the ids to run, every rule when nil. Unknown ids are the caller's to refuse.
    public init(rules: [String]? = nil) {
        enabledRules = rules ?? RuleCatalog.ids
    }

    /// Lints the files at `paths`, each named in findings as given.
    public func lint(files paths: [String]) -> LintResult {
        lint(Self.parallelMap(paths) { path in Self.parse(path) { () throws(LintError) in try Self.read(path) } })
    }

    /// Lints sources held in memory, each named by its path in findings.
    public func lint(sources: [LintSource]) -> LintResult {
        lint(Self.parallelMap(sources) { source in Self.parse(source.path) { source.text } })
    }

    private static func parse(_ path: String, _ text: () throws(LintError) -> String) -> Result<ParsedFile, LintError> {
        do {
            return .success(try ParsedFile(path: path, text: text()))
        } catch {
            return .failure(error)
        }
    }

    private func lint(_ sources: [Result<ParsedFile, LintError>]) -> LintResult {
        let parsed = sources.compactMap { try? $0.get() }
        let errors = sources.compactMap { result -> LintError? in
            if case .failure(let error) = result { return error }
            return nil
        }
        let index = ProjectIndex(files: parsed.map(\.facts))
        let enabled = Set(enabledRules)
        let findings = Self.parallelMap(parsed) { file in
            file.findings(rules: RuleCatalog.makeRules(enabled), index: index)
        }
        return LintResult(
            findings: findings.flatMap { $0 }.sorted(), fileCount: parsed.count,
            lineCount: parsed.reduce(0) { $0 + $1.lineCount }, errors: errors)
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
        let results = Mutex<[Output?]>(Array(repeating: nil, count: items.count))
        DispatchQueue.concurrentPerform(iterations: items.count) { index in
            let output = transform(items[index])
            results.withLock { $0[index] = output }
        }
        return results.withLock { $0.map { $0! } }
    }
}

/// One file, parsed, with what the first pass learned from it.
struct ParsedFile: Sendable {
    var path: String
    var text: String
    var tree: SourceFileSyntax
    var facts: FileFacts
    var lineCount: Int

    init(path: String, text: String) throws(LintError) {
        self.path = path
        self.text = text
        tree = Parser.parse(source: text)
        if tree.hasError, let error = ParseErrorLocator.firstError(in: tree) {
            throw LintError(path: "\(path):\(error.line):\(error.column)", reason: "cannot be parsed as Swift (\(error.text))")
        }
        facts = FileFacts(tree, text: text)
        lineCount = text.utf8.reduce(into: 0) { count, byte in if byte == UInt8(ascii: "\n") { count += 1 } }
    }

    func findings(rules: [any LintRule], index: ProjectIndex) -> [Finding] {
        let pending = SemanticWalker(index: index, rules: rules).run(tree)
        guard !pending.isEmpty else { return [] }
        let converter = SourceLocationConverter(fileName: path, tree: tree)
        let suppressions = Suppressions(text: text)
        return pending.compactMap { finding in
            let location = converter.location(for: finding.position)
            guard !suppressions.isSuppressed(finding.ruleID, line: location.line) else { return nil }
            return Finding(
                ruleID: finding.ruleID, path: path, line: location.line, column: location.column,
                message: finding.message, fix: finding.fix, snippet: sourceLine(startingAt: converter.position(ofLine: location.line, column: 1)))
        }
    }

    /// The line that starts at `start`, trimmed.
    private func sourceLine(startingAt start: AbsolutePosition) -> String {
        let bytes = text.utf8.dropFirst(start.utf8Offset)
        let line = bytes.prefix { $0 != UInt8(ascii: "\n") }
        return String(Substring(line)).trimmingCharacters(in: .whitespacesAndNewlines)
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
