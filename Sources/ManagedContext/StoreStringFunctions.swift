import CtxdebugHelpers
import Foundation
import Synchronization

/// The string operators and folding, shared by the in-memory evaluation and the
/// functions registered with every store connection, so both give the same answer.
package enum StoreStringFunctions {
    /// A value with `[c]`/`[d]` applied: text folded, anything else as it is.
    package static func fold(_ v: StoredValue, _ options: StringComparisonOptions) -> StoredValue {
        guard !options.isEmpty, case .text(let s) = v else { return v }
        return .text(fold(s, options))
    }

    package static func fold(_ s: String, _ options: StringComparisonOptions) -> String {
        var o: String.CompareOptions = []
        if options.contains(.caseInsensitive) { o.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { o.insert(.diacriticInsensitive) }
        return o.isEmpty ? s : s.folding(options: o, locale: nil)
    }

    /// `a op b` for two values, as SQL compares them after folding (NULL only
    /// equals NULL; an order with NULL is false).
    static func compare(_ a: StoredValue, _ op: StoreOperator, _ b: StoredValue, _ options: StringComparisonOptions) -> Bool {
        if op.isStringOperator {
            guard case .text(let x) = a, case .text(let y) = b else { return false }
            return stringOperator(op, options, x, y)
        }
        let a = fold(a, options), b = fold(b, options)
        switch op {
        case .equal: return a.isNull ? b.isNull : StoredValue.sqlEquals(a, b)
        case .notEqual: return a.isNull ? !b.isNull : (b.isNull || !StoredValue.sqlEquals(a, b))
        default:
            if a.isNull || b.isNull { return false }
            let c = StoredValue.compare(a, b)
            switch op {
            case .less: return c < 0
            case .lessOrEqual: return c <= 0
            case .greater: return c > 0
            case .greaterOrEqual: return c >= 0
            default: return false
            }
        }
    }

    package static func stringOperator(_ op: StoreOperator, _ options: StringComparisonOptions, _ text: String, _ pattern: String) -> Bool {
        switch op {
        case .matches:
            return RegexCache.shared.matches(pattern, text, options)
        case .like:
            return like(Array(fold(text, options).unicodeScalars), Array(fold(pattern, options).unicodeScalars))
        default:
            let x = Array(fold(text, options).utf8), y = Array(fold(pattern, options).utf8)
            switch op {
            case .beginsWith: return x.starts(with: y)
            case .endsWith: return x.count >= y.count && x[(x.count - y.count)...].elementsEqual(y)
            case .contains:
                if y.isEmpty { return true }
                guard y.count <= x.count else { return false }
                for start in 0...(x.count - y.count) where x[start..<(start + y.count)].elementsEqual(y) { return true }
                return false
            default: return false
            }
        }
    }

    /// Core Data's LIKE: `*` matches any run of characters, `?` one character, `\`
    /// escapes the next; the whole text must match.
    package static func like(_ text: [Unicode.Scalar], _ pattern: [Unicode.Scalar]) -> Bool {
        var t = 0, p = 0
        var starP = -1, starT = 0
        while t < text.count {
            if p < pattern.count {
                let c = pattern[p]
                if c == "*" { starP = p; starT = t; p += 1; continue }
                if c == "?" { t += 1; p += 1; continue }
                let literal: Unicode.Scalar
                var width = 1
                if c == "\\", p + 1 < pattern.count { literal = pattern[p + 1]; width = 2 } else { literal = c }
                if literal == text[t] { t += 1; p += width; continue }
            }
            guard starP >= 0 else { return false }
            starT += 1
            t = starT
            p = starP + 1
        }
        while p < pattern.count && pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}

/// Compiled regular expressions for MATCHES, by pattern and options. Guarded by a
/// lock: store connections call it from their own threads.
final class RegexCache: Sendable {
    static let shared = RegexCache()
    /// `@unchecked Sendable`: `NSRegularExpression` is immutable once made and safe
    /// to use from any thread (Foundation documents it as thread-safe).
    private struct Entry: @unchecked Sendable { let regex: NSRegularExpression? }
    private let cache = LockedCache<String, Entry>(limit: 256)

    /// MATCHES: the whole text matches the ICU regular expression `pattern`. An
    /// invalid pattern matches nothing.
    func matches(_ pattern: String, _ text: String, _ options: StringComparisonOptions) -> Bool {
        let key = "\(options.rawValue):\(pattern)"
        let entry = cache.value(for: key) {
            var o: NSRegularExpression.Options = []
            if options.contains(.caseInsensitive) { o.insert(.caseInsensitive) }
            return Entry(regex: try? NSRegularExpression(pattern: "^(?:" + pattern + ")$", options: o))
        }
        guard let regex = entry.regex else { return false }
        let subject = options.contains(.diacriticInsensitive) ? StoreStringFunctions.fold(text, .diacriticInsensitive) : text
        return regex.firstMatch(in: subject, range: NSRange(subject.startIndex..., in: subject)) != nil
    }
}

/// A small bounded cache behind a lock (cleared whole when full).
final class LockedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let storage = LockedValue<[Key: Value]>([:])
    private let limit: Int
    init(limit: Int) { self.limit = limit }

    func value(for key: Key, make: () -> Value) -> Value {
        if let found = storage.withLock({ $0[key] }) { return found }
        let made = make()
        storage.withLock {
            if $0.count >= limit { $0.removeAll(keepingCapacity: true) }
            $0[key] = made
        }
        return made
    }
}
