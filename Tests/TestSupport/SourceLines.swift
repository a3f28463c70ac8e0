import Foundation

/// The line number of the only line of `file` that contains `marker` (a comment such
/// as `// VIOLATING-ACCESS` beside the line a report must name). The line that calls
/// `line(of:)` is not counted.
public func line(of marker: String, in file: String = #filePath) -> Int {
    let lines = (try? String(contentsOfFile: file, encoding: .utf8))?.components(separatedBy: "\n") ?? []
    let found = lines.indices.filter { lines[$0].contains(marker) && !lines[$0].contains("line(of:") }
    precondition(found.count == 1, "marker \(marker) must be on exactly one line of \(file), found \(found.count)")
    return found[0] + 1
}

/// True when `text` holds "<fileName>:<line>" as a location (followed by ':', a space,
/// a newline or the end).
public func containsLocation(_ text: String, fileName: String, line: Int) -> Bool {
    let needle = "\(fileName):\(line)"
    var rest = text[...]
    while let range = rest.range(of: needle) {
        let after = rest[range.upperBound...].first
        if after == nil || after == ":" || after == "\n" || after == " " { return true }
        rest = rest[range.upperBound...]
    }
    return false
}

/// How many times `needle` occurs in `text`.
public func occurrences(of needle: String, in text: String) -> Int {
    text.components(separatedBy: needle).count - 1
}
