import SwiftSyntax

/// A finding before its line and column are computed (only files with findings pay
/// for a location converter).
struct PendingFinding {
    var ruleID: String
    var position: AbsolutePosition
    var message: String
    var fix: String
    /// The function or closure it was found in.
    var frameStart: Int
}

/// One finding per bug: the rules that judge where code runs may each see the same
/// wrong access (`entries.forEach { $0.title }` in `DispatchQueue.main.async`: objects
/// across queues, and a use of their private context outside its perform). On one line
/// of one function or closure, the most specific rule's finding stays, and its message
/// names the other rules. Rules that find another kind of bug on the same line
/// (`child-save-not-propagated`: the save never reaches the store) keep their own.
enum OneFindingPerBug {
    /// Most specific first.
    static let queueRules = ["merge-off-queue", "object-across-queues", "main-context-off-main-queue", "context-without-perform"]

    /// `findings` with their lines, in order; the same, with each bug reported once.
    static func merge(_ findings: [(PendingFinding, line: Int)]) -> [(PendingFinding, line: Int)] {
        guard findings.count > 1 else { return findings }
        var groups: [String: [Int]] = [:]
        for (offset, (finding, line)) in findings.enumerated() where queueRules.contains(finding.ruleID) {
            groups["\(line):\(finding.frameStart)", default: []].append(offset)
        }
        var dropped: Set<Int> = []
        var result = findings
        for members in groups.values where Set(members.map { findings[$0].0.ruleID }).count > 1 {
            let rank = { (offset: Int) in queueRules.firstIndex(of: findings[offset].0.ruleID) ?? queueRules.count }
            guard let kept = members.min(by: { (rank($0), $0) < (rank($1), $1) }) else { continue }
            let keptRule = findings[kept].0.ruleID
            let others = members.filter { findings[$0].0.ruleID != keptRule }
            let otherRules = Array(Set(others.map { findings[$0].0.ruleID })).sorted { queueRules.firstIndex(of: $0)! < queueRules.firstIndex(of: $1)! }
            result[kept].0.message += " (one bug, reported once: \(otherRules.joined(separator: " and ")) \(otherRules.count == 1 ? "sees" : "see") it here too)"
            dropped.formUnion(others)
        }
        return result.enumerated().filter { !dropped.contains($0.offset) }.map(\.element)
    }
}
