/// A file the linter could not read or parse. The CLI maps it to exit status 65.
public struct LintError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    /// The file was read but is not Swift the parser understands (a template, Swift 2):
    /// it is skipped with a warning, and fails the run only with `--strict`.
    public var isParseError: Bool

    public init(path: String, reason: String, isParseError: Bool = false) {
        self.path = path
        self.reason = reason
        self.isParseError = isParseError
    }

    public var description: String { "\(path): \(reason)" }
}
