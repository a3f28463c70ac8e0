/// One SQLite pragma a store runs on each connection as it opens: Core Data's
/// `NSSQLitePragmasOption` entries. Made only from a name that is an SQL identifier and a
/// value that is a number, an identifier or a string (quoted here), so no text of the
/// caller's reaches SQL unchecked.
public struct SQLitePragma: Sendable, Hashable {
    public let name: String
    let value: String

    /// Nil for a name that is not an identifier.
    public init?(name: String, number: Double) {
        guard Self.isIdentifier(name), number.isFinite else { return nil }
        self.name = name
        self.value = number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }

    /// A value that is an identifier (`FULL`, `NORMAL`) is written as it is; any other is
    /// a quoted string. Nil for a name that is not an identifier.
    public init?(name: String, text: String) {
        guard Self.isIdentifier(name) else { return nil }
        self.name = name
        self.value = Self.isIdentifier(text) ? text : "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    var sql: String { "PRAGMA \(name) = \(value)" }

    static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else { return false }
        return text.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }
}
