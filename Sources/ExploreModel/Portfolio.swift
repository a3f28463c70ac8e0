/// `portfolio` (the default): iteration i runs the member `i % members.count` of
/// random, pct:2, pct:3, delay:1 and pos; delay:1 leaves the rotation once its search is
/// exhausted. Every PCT member learns each run's length, whichever member ran it.
public struct PortfolioStrategy: ExplorationStrategy {
    public private(set) var members: [any ExplorationStrategy]
    private var current = 0

    public init() {
        members = [RandomStrategy(), PCTStrategy(depth: 2), PCTStrategy(depth: 3), DelayBoundedStrategy(bound: 1), POSStrategy()]
    }

    public var runName: String { members[current].runName }

    /// The member names in rotation order.
    public var memberNames: [String] { members.map(\.runName) }

    public mutating func beginRun(iteration: Int, seed: UInt64) {
        current = iteration % members.count
        members[current].beginRun(iteration: iteration, seed: seed)
    }

    public mutating func choose(_ decision: SchedulingDecision) -> Int {
        members[current].choose(decision)
    }

    public mutating func endRun(_ trace: [RecordedDecision]) -> Bool {
        let goesOn = members[current].endRun(trace)
        for index in members.indices where index != current {
            guard var pct = members[index] as? PCTStrategy else { continue }
            pct.observe(runLength: trace.count)
            members[index] = pct
        }
        if !goesOn, members.count > 1 { members.remove(at: current) }
        current = min(current, members.count - 1)
        return goesOn || members.count > 1
    }
}

/// `replay(choices)`: the choice of step i is forced to `choices[i]`; after the list,
/// the default. When the forced actor is not enabled (the code changed since the
/// schedule was recorded), `divergence` is set: the scheduler stops the run and reports
/// "diverged at step i" rather than going on (or hanging) on another schedule.
public struct ReplayStrategy: ExplorationStrategy {
    public let choices: [String]
    public private(set) var divergence: ReplayDivergence?

    public init(choices: [String]) { self.choices = choices }

    public var runName: String { "replay" }
    /// The step where the run left the recorded schedule, if it did.
    public var divergedAt: Int? { divergence?.step }

    public mutating func beginRun(iteration: Int, seed: UInt64) { divergence = nil }

    public mutating func choose(_ decision: SchedulingDecision) -> Int {
        guard decision.step < choices.count else { return decision.defaultIndex }
        let wanted = choices[decision.step]
        if let index = decision.enabled.firstIndex(of: wanted) { return index }
        if divergence == nil { divergence = ReplayDivergence(step: decision.step, expected: wanted, enabled: decision.enabled) }
        return decision.defaultIndex
    }

    public mutating func endRun(_ trace: [RecordedDecision]) -> Bool { true }
}

/// A replay left its schedule: at `step` the schedule chose `expected`, which was not
/// among `enabled`.
public struct ReplayDivergence: Error, Codable, Sendable, Equatable, CustomStringConvertible {
    public var step: Int
    public var expected: String
    public var enabled: [String]

    public init(step: Int, expected: String, enabled: [String]) {
        self.step = step
        self.expected = expected
        self.enabled = enabled
    }

    public var description: String {
        "diverged at step \(step): the schedule runs \(expected) there, but only \(enabled.joined(separator: ", ")) could run"
            + " (the code changed since the schedule was recorded, or the test is not deterministic)"
    }
}

/// `deviations([step: actor])`, for the minimizer: at a listed step the listed actor
/// runs if it is enabled; every other choice is the default.
public struct DeviationStrategy: ExplorationStrategy {
    public let deviations: [Int: String]

    public init(_ deviations: [Int: String]) { self.deviations = deviations }

    public var runName: String { "deviations" }

    public mutating func beginRun(iteration: Int, seed: UInt64) {}

    public mutating func choose(_ decision: SchedulingDecision) -> Int {
        guard let actor = deviations[decision.step] else { return decision.defaultIndex }
        return decision.enabled.firstIndex(of: actor) ?? decision.defaultIndex
    }

    public mutating func endRun(_ trace: [RecordedDecision]) -> Bool { true }
}
