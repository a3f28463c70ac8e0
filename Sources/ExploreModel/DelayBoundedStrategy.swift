/// `delay:K`: every schedule with at most K deviations from FIFO order, each once, by a
/// depth-first search over the choice tree that keeps no tree: each run replays a
/// forced prefix of choices and then always takes the default; `endRun` reads the run's
/// trace and moves the prefix to the next unexplored branch (at each point the default
/// first, then the other enabled actors in canonical order), deepest point first. When
/// no branch within K deviations is left, `endRun` returns false. Needs no seed. It
/// assumes the program is deterministic under a fixed schedule, as every explored test
/// must be.
public struct DelayBoundedStrategy: ExplorationStrategy {
    public let bound: Int
    /// The choices (actor keys) forced at the first steps of the next run.
    public private(set) var prefix: [String] = []
    /// True once every schedule within the bound has run.
    public private(set) var isExhausted = false
    /// How many runs have ended.
    public private(set) var runsEnded = 0

    public init(bound: Int) {
        precondition(bound >= 0, "delay's bound is at least 0")
        self.bound = bound
    }

    public var runName: String { "delay:\(bound)" }

    public mutating func beginRun(iteration: Int, seed: UInt64) {}

    public mutating func choose(_ decision: SchedulingDecision) -> Int {
        guard decision.step < prefix.count else { return decision.defaultIndex }
        return decision.enabled.firstIndex(of: prefix[decision.step]) ?? decision.defaultIndex
    }

    public mutating func endRun(_ trace: [RecordedDecision]) -> Bool {
        runsEnded += 1
        guard !isExhausted, let next = Self.nextPrefix(after: trace, bound: bound) else {
            isExhausted = true
            prefix = []
            return false
        }
        prefix = next
        return true
    }

    /// The forced prefix of the next schedule after `trace`, or nil when none is left:
    /// the deepest step whose next sibling keeps the deviations within `bound`.
    static func nextPrefix(after trace: [RecordedDecision], bound: Int) -> [String]? {
        var deviationsBefore = [Int](repeating: 0, count: trace.count + 1)
        for (index, decision) in trace.enumerated() {
            deviationsBefore[index + 1] = deviationsBefore[index] + (decision.isDeviation ? 1 : 0)
        }
        for step in trace.indices.reversed() where deviationsBefore[step] + 1 <= bound {
            guard let sibling = nextSibling(of: trace[step]) else { continue }
            return trace[..<step].map(\.actor) + [trace[step].enabled[sibling]]
        }
        return nil
    }

    /// The index after `decision.chosen` in the order default first, then the others by
    /// index; nil when it was the last.
    static func nextSibling(of decision: RecordedDecision) -> Int? {
        let count = decision.enabled.count
        var candidate = decision.chosen == decision.defaultIndex ? 0 : decision.chosen + 1
        if candidate == decision.defaultIndex { candidate += 1 }
        return candidate < count ? candidate : nil
    }
}
