import CtxdebugHelpers

/// The suppression comments of one file:
///
///     // ctxdebug:disable-next-line object-across-queues
///     // ctxdebug:disable merge-off-queue
///     ...
///     // ctxdebug:enable merge-off-queue
///
/// Several rule ids may follow, separated by spaces or commas; `all` names every rule.
/// A `disable` with no `enable` lasts to the end of the file.
struct Suppressions {
    static let marker = "ctxdebug:"

    /// Lines (1-based) on which each rule id is off.
    private var ranges: [(rule: String, lines: ClosedRange<Int>)] = []

    /// Reads the comments of a file.
    init(text: String) {
        guard TextSearch.contains(Self.marker, in: text) else { return }
        var openSince: [String: Int] = [:]
        let lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Substring.init)
        for (index, line) in lines.enumerated() {
            guard let comment = TextSearch.text(after: "//", in: line), TextSearch.contains(Self.marker, in: comment) else { continue }
            let lineNumber = index + 1
            let words = comment.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" || $0 == "\r" })
            guard let command = words.first, command.hasPrefix(Self.marker) else { continue }
            let rules = words.dropFirst().map(String.init)
            switch command.dropFirst(Self.marker.count) {
            case "disable-next-line":
                ranges += rules.map { ($0, (lineNumber + 1)...(lineNumber + 1)) }
            case "disable":
                for rule in rules where openSince[rule] == nil { openSince[rule] = lineNumber }
            case "enable":
                for rule in rules {
                    if let start = openSince.removeValue(forKey: rule) { ranges.append((rule, start...lineNumber)) }
                }
            default:
                continue
            }
        }
        ranges += openSince.map { ($0.key, $0.value...Int.max) }
    }

    func isSuppressed(_ rule: String, line: Int) -> Bool {
        ranges.contains { ($0.rule == rule || $0.rule == "all") && $0.lines.contains(line) }
    }
}
