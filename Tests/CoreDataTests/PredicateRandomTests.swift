import Foundation
import Testing
@testable import CoreData
import TestSupport

/// Random well-formed predicates of the supported language, from a seeded generator:
/// each must give the same objects in SQL over the saved store, in memory over the
/// unsaved inserts, and by `evaluate(with:)` (PredicateHarness checks all three).
/// `CTXDEBUG_PREDICATE_RANDOM_COUNT` runs more of them (300 by default, about a second).
@Suite struct PredicateRandomTests {
    struct Generator {
        var rng: SplitMix
        var args: [Any] = []

        mutating func pick<T>(_ items: [T]) -> T { items[Int(rng.next() % UInt64(items.count))] }
        mutating func chance(_ percent: UInt64) -> Bool { rng.next() % 100 < percent }

        mutating func option() -> String { pick(["", "", "[c]", "[d]", "[cd]"]) }

        mutating func stringConstant() -> String {
            let text = pick(["a", "A", "alpha", "ALPHA REPORT", "beta", "Notes", "café", "CAFE", "gamma", "Work", "work", "urgent", "", "é", "100% done"])
            if chance(50) {
                args.append(text)
                return "%@"
            }
            return "'" + text.replacingOccurrences(of: "%", with: "%%") + "'"
        }

        mutating func stringComparison(_ key: String) -> String {
            switch rng.next() % 8 {
            case 0: return "\(key) \(pick(["==", "!=", "<", ">=", "BEGINSWITH", "ENDSWITH", "CONTAINS"]))\(option()) \(stringConstant())"
            case 1: return "\(key) LIKE\(option()) '\(pick(["*a*", "?amma", "*é", "A*", "*", "b?ta*", "*NOTES", "w*"]))'"
            case 2: return "\(key) MATCHES\(option()) '\(pick([".*a.*", "[A-Z].*", "b.*", "G[a-z]+", "(?i)alpha.*"]))'"
            case 3: return "\(key) IN\(option()) {\(stringConstant()), \(stringConstant())}"
            case 4: return "\(key) BETWEEN\(option()) {\(stringConstant()), \(stringConstant())}"
            case 5: return "\(key) \(pick(["==", "!="])) nil"
            default: return "\(key) \(pick(["BEGINSWITH", "CONTAINS", "ENDSWITH", "=="]))\(option()) \(stringConstant())"
            }
        }

        mutating func numberComparison(_ key: String, _ values: [Int]) -> String {
            let op = pick(["==", "!=", "<", "<=", ">", ">=", "=<", "=>", "<>"])
            switch rng.next() % 5 {
            case 0:
                args.append(pick(values))
                return "\(key) \(op) %d"
            case 1: return "\(key) BETWEEN {\(pick(values)), \(pick(values))}"
            case 2: return "\(key) IN {\(pick(values)), \(pick(values)), \(pick(values))}"
            default: return "\(key) \(op) \(pick(values))"
            }
        }

        /// A comparison on a Note.
        mutating func leaf() -> String {
            switch rng.next() % 14 {
            case 0, 1: return numberComparison("rating", [0, 1, 3, 4, 5, 6])
            case 2:
                args.append(pick([0.5, 1.0, 2.0, 4.5, 9.75, 10.0]))
                return "score \(pick(["<", ">=", "==", "!="])) %f"
            case 3: return stringComparison("title")
            case 4: return stringComparison("body")
            case 5: return "done == \(pick(["YES", "NO", "nil", "TRUE", "FALSE"]))"
            case 6:
                args.append(pick([day0, day1, day2]))
                return "created \(pick(["<", "<=", ">", "==", "!="])) %@"
            case 7: return stringComparison("folder.name")
            case 8: return "\(pick(["ANY", "ALL", "NONE", "SOME"])) " + stringComparison("tags.label")
            case 9: return "\(pick(["ANY", "ALL", "NONE"])) " + numberComparison("tags.weight", [0, 1, 2, 3, 5])
            case 10: return numberComparison("tags.@count", [0, 1, 2, 3])
            case 11: return "SUBQUERY(tags, $t, $t.weight \(pick([">", "<=", "=="])) \(pick([0, 1, 3])) AND $t.label \(pick(["BEGINSWITH", "CONTAINS", "=="]))\(option()) '\(pick(["u", "q", "draft", "MISC"]))').@count \(pick(["> 0", "== 0", "== 1", ">= 2"]))"
            case 12: return "folder \(pick(["==", "!="])) nil"
            default: return pick(["TRUEPREDICATE", "FALSEPREDICATE"])
            }
        }

        mutating func predicate(depth: Int) -> String {
            guard depth > 0, chance(60) else { return leaf() }
            switch rng.next() % 4 {
            case 0: return "(\(predicate(depth: depth - 1))) \(pick(["AND", "&&", "and"])) (\(predicate(depth: depth - 1)))"
            case 1: return "(\(predicate(depth: depth - 1))) \(pick(["OR", "||", "or"])) (\(predicate(depth: depth - 1)))"
            case 2: return "\(pick(["NOT", "!"])) (\(predicate(depth: depth - 1)))"
            default: return "\(predicate(depth: depth - 1)) AND \(leaf())"
            }
        }
    }

    @Test func randomPredicatesAgreeInSQLInMemoryAndEvaluate() throws {
        let h = try PredicateHarness()
        let count = ProcessInfo.processInfo.environment["CTXDEBUG_PREDICATE_RANDOM_COUNT"].flatMap(Int.init) ?? 300
        var rng = SplitMix(seed: 0x5EED_35)
        var matchedSome = 0, matchedNone = 0
        for _ in 0..<count {
            var g = Generator(rng: rng)
            let format = g.predicate(depth: 3)
            rng = g.rng
            let keys = try h.keys("Note", NSPredicate(format: format, argumentArray: g.args))
            if keys.isEmpty { matchedNone += 1 } else { matchedSome += 1 }
        }
        // The generator is not degenerate: predicates both match and miss.
        #expect(matchedSome > count / 5 && matchedNone > count / 10)
    }
}
