/// How this package reads the text of an environment variable, with one trimming
/// rule: whitespace around a value (`Character.isWhitespace`: spaces, tabs, newlines)
/// is not part of it. A number, a level, a mode or a list item is read trimmed; a path
/// is used as given, but one that is only whitespace is empty. For this package's
/// modules (`package`).
package enum EnvironmentValue {
    /// `raw` without the whitespace around it.
    package static func trimmed(_ raw: some StringProtocol) -> Substring { raw.trimmingWhitespace }

    /// True when `raw` is empty once trimmed.
    package static func isBlank(_ raw: some StringProtocol) -> Bool { trimmed(raw).isEmpty }

    /// An integer in `range`, or nil.
    package static func integer(_ raw: String, in range: ClosedRange<Int>) -> Int? {
        guard let value = Int(trimmed(raw)), range.contains(value) else { return nil }
        return value
    }

    /// A finite number of at least `minimum`, or nil.
    package static func number(_ raw: String, atLeast minimum: Double) -> Double? {
        guard let value = Double(trimmed(raw)), value.isFinite, value >= minimum else { return nil }
        return value
    }

    /// The one of `choices` that `raw` names, ignoring case, or nil.
    package static func choice(_ raw: String, among choices: [String]) -> String? {
        let name = trimmed(raw).lowercased()
        return choices.first { $0 == name }
    }

    /// The items of a comma-separated list, trimmed, empty ones left out.
    package static func list(_ raw: String) -> [Substring] {
        raw.split(separator: ",").map { trimmed($0) }.filter { !$0.isEmpty }
    }

    /// `raw` with every `%p` replaced by `pid` (a path per process).
    package static func replacingPercentP(in raw: String, with pid: Int32) -> String {
        replacingAll("%p", in: raw, with: String(pid))
    }

    /// `text` with every `target` replaced, without Foundation.
    package static func replacingAll(_ target: String, in text: String, with replacement: String) -> String {
        guard !target.isEmpty else { return text }
        var result = ""
        var rest = text[...]
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}

extension StringProtocol {
    /// Without the whitespace around it (`Character.isWhitespace`): the one trimming
    /// rule of this package, for environment values and the lines of its own files.
    package var trimmingWhitespace: Substring {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return slice
    }
}
