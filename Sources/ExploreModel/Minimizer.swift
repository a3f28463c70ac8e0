/// Reduces a failing schedule's deviations from FIFO order (step → actor) to a
/// 1-minimal set: one that still fails, and fails no more when any single deviation
/// is taken out. Delta debugging (Zeller and Hildebrandt, "Simplifying and Isolating
/// Failure-Inducing Input", TSE 2002): try halves, then complements, at finer and
/// finer grain; ends with every single deviation tried out. `stillFails` re-runs the
/// schedule with only the given deviations (`DeviationStrategy`) and says whether it
/// fails the same way; it is never asked twice about the same set. The empty set is
/// tried first: a failure that needs no deviation minimizes to none. `deviations`
/// itself is taken to fail.
public func minimizeDeviations(_ deviations: [Int: String], stillFails: ([Int: String]) throws -> Bool) rethrows -> [Int: String] {
    var tried: [Set<Int>: Bool] = [:]
    func fails(_ steps: [Int]) throws -> Bool {
        let key = Set(steps)
        if let known = tried[key] { return known }
        let verdict = try stillFails(deviations.filter { key.contains($0.key) })
        tried[key] = verdict
        return verdict
    }
    if deviations.isEmpty { return [:] }
    if try fails([]) { return [:] }
    var current = deviations.keys.sorted()
    var granularity = 2
    while current.count >= 2 {
        let chunks = split(current, into: granularity)
        if let chunk = try chunks.first(where: { try fails($0) }) {
            current = chunk
            granularity = 2
            continue
        }
        let complements = chunks.indices.map { index in chunks.enumerated().filter { $0.offset != index }.flatMap(\.element) }
        if granularity > 2, let complement = try complements.first(where: { try fails($0) }) {
            current = complement
            granularity = max(granularity - 1, 2)
            continue
        }
        if granularity >= current.count { break }
        granularity = min(granularity * 2, current.count)
    }
    return deviations.filter { current.contains($0.key) }
}

/// `items` in `count` contiguous chunks of sizes differing by at most one.
private func split(_ items: [Int], into count: Int) -> [[Int]] {
    let count = min(count, items.count)
    var chunks: [[Int]] = []
    var start = 0
    for index in 0..<count {
        let size = (items.count - start) / (count - index)
        chunks.append(Array(items[start..<start + size]))
        start += size
    }
    return chunks
}
