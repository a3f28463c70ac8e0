/// One problem found in a source file: where, which rule, what is wrong and how to fix it.
public struct Finding: Sendable, Hashable {
    public var ruleID: String
    /// The file as the linter was given it (relative to the current directory when under it).
    public var path: String
    public var line: Int
    public var column: Int
    /// What is wrong, naming both contexts or queues. The only line numbers it holds
    /// are those of facts cited from other places ("(CoreDataStack.swift:48)"), which
    /// the fingerprint leaves out, so a baseline still matches when the code moves.
    public var message: String
    /// What to write instead.
    public var fix: String
    /// The source line, trimmed: part of the fingerprint.
    public var snippet: String

    public init(ruleID: String, path: String, line: Int, column: Int, message: String, fix: String, snippet: String) {
        self.ruleID = ruleID
        self.path = path
        self.line = line
        self.column = column
        self.message = message
        self.fix = fix
        self.snippet = snippet
    }

    /// Stable across runs, machines and moves of the code: the rule, the message and the
    /// trimmed source line, hashed (FNV-1a, 64 bits, hex).
    public var fingerprint: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(ruleID)\u{1}\(Self.withoutCitedLines(message))\u{1}\(snippet)".utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}

extension Finding {
    /// The message without the line numbers of cited places: "(Stack.swift:48)" reads
    /// "(Stack.swift)", "at Stack.swift:48," reads "at Stack.swift,".
    public static func withoutCitedLines(_ message: String) -> String {
        var result = Substring()
        var rest = Substring(message)
        while let range = rest.range(of: ".swift:") {
            result += rest[..<range.lowerBound] + ".swift"
            rest = rest[range.upperBound...]
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            rest = digits.isEmpty ? Substring(":") + rest : rest.dropFirst(digits.count)
        }
        return String(result + rest)
    }
}

extension Finding: Comparable {
    public static func < (lhs: Finding, rhs: Finding) -> Bool {
        (lhs.path, lhs.line, lhs.column, lhs.ruleID) < (rhs.path, rhs.line, rhs.column, rhs.ruleID)
    }
}
