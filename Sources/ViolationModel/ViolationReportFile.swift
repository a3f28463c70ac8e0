import Foundation

/// The JSON that report mode writes to `CTXDEBUG_REPORT`.
public struct ViolationReportFile: Codable, Sendable {
    public var tool = "ctxdebug"
    public var formatVersion = 1
    public var pid: Int32
    public var executable: String
    public var arguments: [String]
    /// Distinct violations (by kind and stack).
    public var distinctCount: Int
    /// All occurrences.
    public var totalCount: Int
    public var violations: [Violation]

    public init(violations: [Violation]) {
        self.pid = getpid()
        self.executable = CommandLine.arguments.first ?? ""
        self.arguments = Array(CommandLine.arguments.dropFirst())
        self.distinctCount = violations.count
        self.totalCount = violations.reduce(0) { $0 + $1.count }
        self.violations = violations
    }

    public func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path))
    }
}
