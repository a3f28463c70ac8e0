import Foundation
import Yams

/// `.ctxdebug-lint.yml` at the linted root, with the keys SwiftLint users know:
///
///     included:          # folders or files to lint when no PATH is given
///       - Sources
///     excluded:          # globs, relative to the root
///       - Sources/Generated
///       - "**/*.generated.swift"
///     disabled_rules:
///       - confinement-type
///     api:               # rows of the API table (APITable), before the built-in ones
///       - callback: fetchFeed
///         receiver: FeedClient.shared
///         queue: background
public struct LintConfiguration: Sendable, Equatable {
    public static let fileName = ".ctxdebug-lint.yml"
    public static let keys = ["included", "excluded", "disabled_rules", "api"]

    public var included: [String] = []
    public var excluded: [String] = []
    public var disabledRules: [String] = []
    /// The configuration's API rows alone; `apiTable` is what the linter reads.
    public var api = APITable()

    /// The built-in API table with this configuration's rows first.
    public var apiTable: APITable { APITable.builtIn.adding(api) }

    public init(included: [String] = [], excluded: [String] = [], disabledRules: [String] = [], api: APITable = APITable()) {
        self.included = included
        self.excluded = excluded
        self.disabledRules = disabledRules
        self.api = api
    }

    /// Reads the file at `path`; an error names the file and the key at fault.
    public init(contentsOf path: String) throws(LintError) {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw LintError(path: path, reason: "cannot be read")
        }
        try self.init(yaml: text, path: path)
    }

    public init(yaml text: String, path: String) throws(LintError) {
        let document: Any?
        do {
            document = try Yams.load(yaml: text)
        } catch {
            throw LintError(path: path, reason: "is not valid YAML (\(error))")
        }
        guard let document else { return }  // An empty file: the defaults.
        guard let table = document as? [String: Any] else {
            throw LintError(path: path, reason: "must be a mapping of \(Self.keys.joined(separator: ", ")) to lists")
        }
        for key in table.keys.sorted() where !Self.keys.contains(key) {
            throw LintError(path: path, reason: "unknown key '\(key)'; the keys are \(Self.keys.joined(separator: ", "))")
        }
        included = try Self.strings(table["included"], key: "included", path: path)
        excluded = try Self.strings(table["excluded"], key: "excluded", path: path)
        disabledRules = try Self.strings(table["disabled_rules"], key: "disabled_rules", path: path)
        api = try APITable(rows: table["api"], source: path)
        for id in disabledRules where RuleCatalog.description(of: id) == nil {
            throw LintError(path: path, reason: "'disabled_rules' names an unknown rule '\(id)'; the rules are \(RuleCatalog.ids.joined(separator: ", "))")
        }
    }

    private static func strings(_ value: Any?, key: String, path: String) throws(LintError) -> [String] {
        guard let value else { return [] }
        if let list = value as? [Any] {
            var strings: [String] = []
            for item in list {
                guard let string = item as? String else {
                    throw LintError(path: path, reason: "'\(key)' must be a list of strings; '\(item)' is not a string")
                }
                strings.append(string)
            }
            return strings
        }
        throw LintError(path: path, reason: "'\(key)' must be a list of strings, not '\(value)'")
    }
}
