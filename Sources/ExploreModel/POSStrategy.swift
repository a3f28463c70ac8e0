import CtxdebugHelpers

/// `pos`: partial order sampling (Yuan, Yang and Gu, "Partial Order Aware Concurrency
/// Sampling", CAV 2018), in its basic form, the one Fray found strongest on its
/// benchmarks. Each actor's pending step gets a random priority the first time it is
/// enabled; at every point the enabled step with the highest priority runs, and only the
/// actor that ran draws a new priority for its next step. The others keep theirs, so a
/// step that lost once is not re-rolled at every point as under `random`: the orders of
/// independent steps are sampled far more evenly, and a step that must come late (a
/// timer's, a waiter's) is reached as easily as an early one.
///
/// The scheduler does not tell the strategy which steps race (the full POS re-draws
/// those too), so this is BasicPOS over actors.
public struct POSStrategy: ExplorationStrategy {
    private var generator = SplitMix(seed: 0)
    /// The priority of each actor's pending step; an actor that ran has none until it is
    /// enabled again.
    private var priorities: [String: UInt64] = [:]

    public init() {}

    public var runName: String { "pos" }

    public mutating func beginRun(iteration: Int, seed: UInt64) {
        generator = SplitMix(seed: seed)
        priorities.removeAll(keepingCapacity: true)
    }

    public mutating func choose(_ decision: SchedulingDecision) -> Int {
        var best = 0
        var bestPriority: UInt64 = 0
        for (index, actor) in decision.enabled.enumerated() {
            let priority = priorities[actor] ?? generator.next()
            priorities[actor] = priority
            if index == 0 || priority > bestPriority { (best, bestPriority) = (index, priority) }
        }
        priorities[decision.enabled[best]] = nil  // its next step draws a new priority
        return best
    }

    public mutating func endRun(_ trace: [RecordedDecision]) -> Bool { true }
}
