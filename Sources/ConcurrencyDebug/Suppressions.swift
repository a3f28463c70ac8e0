#if canImport(Glibc)
import CtxdebugHelpers
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Frame patterns for code you don't own (`CTXDEBUG_SUPPRESSIONS`). A violation whose
/// stack has a frame matching any pattern is not reported.
///
/// The file has one pattern per line; blank lines and lines starting with `#` are
/// ignored, as is anything after ` #`. A pattern is a shell glob (`*` any run of
/// characters, `?` one character, `[abc]` a set; matched with fnmatch(3) over the whole
/// text) with an optional prefix that says what it matches:
///
///     fun:<glob>    the demangled function name of a frame
///     src:<glob>    the source file path of a frame (needs debug info)
///     obj:<glob>    the path of the binary or library of a frame
///     <glob>        the function name or the source file path
///
/// For example `fun:ThirdPartySDK.*`, `src:*/Vendor/*`, `obj:*/libLegacy.so`.
public struct Suppressions: Sendable, Equatable {
    /// What of a frame a pattern matches: its prefix in the file (`fun:`, `src:`,
    /// `obj:`), or `any` for a pattern without one.
    public enum Field: String, Sendable, Equatable {
        /// `fun:`: the demangled function name; `src:`: the source file's path;
        /// `obj:`: the binary's or library's path; no prefix: the function or the file.
        case function = "fun", source = "src", object = "obj", any
    }

    /// One line of the file: a glob and what of a frame it is matched against.
    public struct Rule: Sendable, Equatable, CustomStringConvertible {
        /// What of a frame the pattern is matched against.
        public var field: Field
        /// The glob, without its prefix.
        public var pattern: String
        /// The line of the file it came from.
        public var line: Int

        public var description: String {
            field == .any ? pattern : field.rawValue + ":" + pattern
        }

        /// Whether the frame's field (its function, source file or binary; the function
        /// or the file for `any`) matches the glob; a frame without that field does not.
        public func matches(_ frame: StackFrame) -> Bool {
            switch field {
            case .function: return frame.function.map(glob) ?? false
            case .source: return frame.file.map(glob) ?? false
            case .object: return frame.module.map(glob) ?? false
            case .any: return (frame.function.map(glob) ?? false) || (frame.file.map(glob) ?? false)
            }
        }

        private func glob(_ text: String) -> Bool {
            fnmatch(pattern, text, 0) == 0
        }
    }

    /// The patterns, in the file's order.
    public var rules: [Rule]

    /// Suppressions with these rules (none by default: every violation is reported).
    public init(rules: [Rule] = []) { self.rules = rules }

    /// True when there is no rule: nothing is suppressed.
    public var isEmpty: Bool { rules.isEmpty }

    /// Parses the text of a suppressions file. Lines it cannot read become warnings
    /// naming `source` and the line number; they are skipped.
    public static func parse(_ text: String, source: String) -> (suppressions: Suppressions, warnings: [String]) {
        var rules: [Rule] = []
        var warnings: [String] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = Substring(rawLine)
            if let comment = line.firstRange(of: " #") { line = line[..<comment.lowerBound] }
            let trimmed = String(line.trimmingWhitespace)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            var field = Field.any
            var pattern = String(trimmed)
            if let colon = trimmed.firstIndex(of: ":") {
                let prefix = String(trimmed[..<colon])
                if let known = Field(rawValue: prefix), known != .any {
                    field = known
                    pattern = String(trimmed[trimmed.index(after: colon)...].trimmingWhitespace)
                } else if prefix.allSatisfy({ $0.isLetter }) && prefix.count <= 8 {
                    warnings.append(
                        "ctxdebug: warning: \(source):\(index + 1): unknown prefix \"\(prefix):\"; accepted: fun:, src:, obj:, or none; skipping the line."
                    )
                    continue
                }
            }
            if pattern.isEmpty {
                warnings.append("ctxdebug: warning: \(source):\(index + 1): empty pattern; skipping the line.")
                continue
            }
            rules.append(Rule(field: field, pattern: pattern, line: index + 1))
        }
        return (Suppressions(rules: rules), warnings)
    }

    /// Loads a suppressions file. A file it cannot read gives a warning and no rules.
    public static func load(path: String) -> (suppressions: Suppressions, warnings: [String]) {
        guard let text = WholeFile.readText(path) else {
            let reason = String(cString: strerror(errno))
            return (
                Suppressions(),
                ["ctxdebug: warning: CTXDEBUG_SUPPRESSIONS=\"\(path)\" cannot be read (\(reason)); using no suppressions."]
            )
        }
        return parse(text, source: path)
    }

    /// The first rule that matches a frame of `frames`, if any.
    public func match(_ frames: [StackFrame]) -> Rule? {
        for rule in rules where frames.contains(where: rule.matches) { return rule }
        return nil
    }
}
