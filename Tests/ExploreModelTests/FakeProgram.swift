import ExploreModel

/// A tiny model of a program under the scheduler: actors that each take a fixed
/// number of steps, all enabled from the start while they have steps left. The
/// default choice follows the contract's FIFO rule: the actor that just ran if it can
/// go on, otherwise the one that became enabled earliest (here: canonical order).
struct FakeProgram {
    var actors: [(key: String, steps: Int)]

    init(_ actors: [(String, Int)]) { self.actors = actors.map { (key: $0.0, steps: $0.1) } }

    /// Two actors of three steps each: the smallest interesting program.
    static let twoByThree = FakeProgram([("driver", 3), ("q1", 3)])

    /// One run under `strategy` (beginRun, choose at every point, endRun).
    /// Returns the trace and whether the strategy has more to try.
    func run(_ strategy: inout some ExplorationStrategy, iteration: Int = 0, seed: UInt64 = 0) -> (trace: [RecordedDecision], goesOn: Bool) {
        strategy.beginRun(iteration: iteration, seed: seed)
        let trace = decisions { strategy.choose($0) }
        return (trace, strategy.endRun(trace))
    }

    /// The decisions of a run whose choices `choose` makes.
    func decisions(_ choose: (SchedulingDecision) -> Int) -> [RecordedDecision] {
        var left = actors.map(\.steps)
        var last: String?
        var trace: [RecordedDecision] = []
        while left.contains(where: { $0 > 0 }) {
            let enabled = actors.indices.filter { left[$0] > 0 }.map { actors[$0].key }
            let defaultIndex = last.flatMap { enabled.firstIndex(of: $0) } ?? 0
            let decision = SchedulingDecision(step: trace.count, enabled: enabled, defaultIndex: defaultIndex)
            let chosen = choose(decision)
            precondition(enabled.indices.contains(chosen), "a strategy chose outside the enabled actors")
            trace.append(RecordedDecision(decision, chosen: chosen))
            left[actors.firstIndex { $0.key == enabled[chosen] }!] -= 1
            last = enabled[chosen]
        }
        return trace
    }

    /// Every interleaving of the actors' steps, as sequences of actor keys (brute force).
    func allInterleavings() -> [[String]] {
        func extend(_ prefix: [String], _ left: [Int]) -> [[String]] {
            if left.allSatisfy({ $0 == 0 }) { return [prefix] }
            return actors.indices.filter { left[$0] > 0 }.flatMap { index in
                var rest = left
                rest[index] -= 1
                return extend(prefix + [actors[index].key], rest)
            }
        }
        return extend([], actors.map(\.steps))
    }

    /// The deviations of a sequence of actor keys under the default rule.
    func deviations(of sequence: [String]) -> Int {
        var index = 0
        return decisions { decision in
            defer { index += 1 }
            return decision.enabled.firstIndex(of: sequence[index])!
        }.count(where: \.isDeviation)
    }
}

extension [RecordedDecision] {
    /// The chosen actors, e.g. "driver q1 q1".
    var actors: [String] { map(\.actor) }
    /// The schedule in letters: the first letter of each chosen actor key ("ddqqqd").
    var letters: String { String(map { $0.actor.first! }) }
}
