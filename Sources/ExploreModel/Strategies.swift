import CtxdebugHelpers

/// `random`: each point picks uniformly among the enabled actors.
public struct RandomStrategy: ExplorationStrategy {
    private var generator = SplitMix(seed: 0)

    public init() {}

    public var runName: String { "random" }

    public mutating func beginRun(iteration: Int, seed: UInt64) { generator = SplitMix(seed: seed) }

    public mutating func choose(_ decision: SchedulingDecision) -> Int {
        decision.enabled.count <= 1 ? 0 : generator.uniform(below: decision.enabled.count)
    }

    public mutating func endRun(_ trace: [RecordedDecision]) -> Bool { true }
}

/// `pct:D`: probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi and
/// Nagarakatte, "A Randomized Scheduler with Probabilistic Guarantees of Finding Bugs",
/// ASPLOS 2010). Each actor gets a random distinct priority when it first appears (it
/// is inserted at a uniformly drawn place among the actors not yet lowered); D-1 change
/// points are drawn, distinct, uniformly in `[0, k)`, k being the longest run seen so
/// far (64 before the first run ends). At every point the highest-priority enabled
/// actor runs; at a change point the actor that would run is first lowered below all
/// others (the latest lowered is the lowest), so the change point is a preemption
/// there, as in Coyote's PCT. A bug of depth d among n actors and k steps is hit with
/// probability at least 1/(n·k^(d-1)) per run.
public struct PCTStrategy: ExplorationStrategy {
    public let depth: Int
    /// The estimate of a run's length k that change points are drawn under.
    public private(set) var estimatedSteps = 64
    /// This run's change points, ascending.
    public private(set) var changePoints: [Int] = []
    private var sawARun = false
    private var generator = SplitMix(seed: 0)
    /// Highest priority first: the actors not lowered, then the lowered ones (each
    /// lowering appends, so the latest lowered is last).
    private var ranked: [String] = []
    private var loweredCount = 0
    private var nextChangePoint = 0

    public init(depth: Int = 3) {
        precondition(depth >= 1, "pct's depth is at least 1")
        self.depth = depth
    }

    public var runName: String { "pct:\(depth)" }

    /// The actors by priority, highest first (for tests and reports).
    public var priorityOrder: [String] { ranked }

    public mutating func beginRun(iteration: Int, seed: UInt64) {
        generator = SplitMix(seed: seed)
        ranked.removeAll(keepingCapacity: true)
        loweredCount = 0
        nextChangePoint = 0
        changePoints = Self.distinctDraws(count: depth - 1, below: estimatedSteps, using: &generator)
    }

    public mutating func choose(_ decision: SchedulingDecision) -> Int {
        for actor in decision.enabled where !ranked.contains(actor) {
            let place = generator.uniform(below: ranked.count - loweredCount + 1)
            ranked.insert(actor, at: place)
        }
        var best = highestEnabled(decision.enabled)
        while nextChangePoint < changePoints.count, changePoints[nextChangePoint] <= decision.step {
            let isHere = changePoints[nextChangePoint] == decision.step
            nextChangePoint += 1
            guard isHere else { continue }
            lower(decision.enabled[best])
            best = highestEnabled(decision.enabled)
        }
        return best
    }

    public mutating func endRun(_ trace: [RecordedDecision]) -> Bool {
        observe(runLength: trace.count)
        return true
    }

    /// Takes a run's length into the estimate k (a portfolio tells every PCT member).
    public mutating func observe(runLength: Int) {
        estimatedSteps = sawARun ? max(estimatedSteps, runLength) : max(1, runLength)
        sawARun = true
    }

    private func highestEnabled(_ enabled: [String]) -> Int {
        var bestIndex = 0
        var bestRank = Int.max
        for (index, actor) in enabled.enumerated() {
            let rank = ranked.firstIndex(of: actor) ?? Int.max
            if rank < bestRank { (bestIndex, bestRank) = (index, rank) }
        }
        return bestIndex
    }

    private mutating func lower(_ actor: String) {
        guard let index = ranked.firstIndex(of: actor) else { return }
        ranked.remove(at: index)
        ranked.append(actor)
        if index < ranked.count - loweredCount { loweredCount += 1 }
    }

    /// `count` distinct integers drawn uniformly in `0..<bound` (all of them when there
    /// are not enough), ascending.
    static func distinctDraws(count: Int, below bound: Int, using generator: inout SplitMix) -> [Int] {
        guard count < bound else { return Array(0..<bound) }
        var chosen: Set<Int> = []
        while chosen.count < count { chosen.insert(generator.uniform(below: bound)) }
        return chosen.sorted()
    }
}
