/// One scheduling point as the scheduler hands it to a strategy: which actors may run
/// next, and which of them FIFO order (no preemption) would run; and, for the schedule
/// and its step log, who reached which point and what each candidate would do.
///
/// An *actor* is the driver (the test's own thread, `"driver"`), the main queue
/// (`"main"`), or the N-th private queue the scheduler met in this run (`"q1"`, `"q2"`,
/// ... in first-use order). See `ActorKey`.
///
/// The same value is what the runtime's scheduler asks its chooser, what a child of
/// `ctxdebug explore` sends its parent (`ExploreMessage.decision`), and what a strategy
/// is asked.
public struct SchedulingDecision: Codable, Sendable, Equatable {
    /// What an enabled actor does if it is chosen: the point it goes on from, and the
    /// queue (context name or queue label) it concerns.
    public struct Candidate: Codable, Sendable, Equatable {
        public var point: SchedulingPoint
        public var context: String?

        public init(point: SchedulingPoint, context: String? = nil) {
            self.point = point
            self.context = context
        }
    }

    /// 0-based index of this decision in the run.
    public var step: Int
    /// The actor keys that may run next, in canonical order (`ActorKey.canonicallyOrdered`).
    public var enabled: [String]
    /// The index in `enabled` of the default choice: the actor that just reached the
    /// point if it can go on, otherwise the one that became enabled earliest.
    public var defaultIndex: Int
    /// The actor that reached the point.
    public var actor: String
    /// The point it reached, and the queue that point concerns.
    public var point: SchedulingPoint
    public var context: String?
    /// What each of `enabled` does if chosen, in the same order; empty when the
    /// scheduler was not asked to describe them.
    public var candidates: [Candidate]

    public init(
        step: Int, enabled: [String], defaultIndex: Int, actor: String = ActorKey.driver, point: SchedulingPoint = .blockStart,
        context: String? = nil, candidates: [Candidate] = []
    ) {
        self.step = step
        self.enabled = enabled
        self.defaultIndex = defaultIndex
        self.actor = actor
        self.point = point
        self.context = context
        self.candidates = candidates
    }

    /// The step of the schedule when `enabled[chosen]` runs: the chosen candidate's
    /// point and queue when candidates are described; else the reacher's own when it is
    /// the one chosen; else a block's start.
    public func step(choosing chosen: Int, site: String? = nil) -> ScheduleStep {
        let candidate = candidates.indices.contains(chosen) ? candidates[chosen] : nil
        let reacher = enabled.indices.contains(chosen) && enabled[chosen] == actor
        return ScheduleStep(
            step: step, actor: enabled[chosen], point: candidate?.point ?? (reacher ? point : .blockStart),
            queue: candidate != nil ? candidate?.context : (reacher ? context : nil), site: site, enabled: enabled,
            defaultIndex: defaultIndex, chosen: chosen)
    }
}

/// A chooser's answer to a `SchedulingDecision`: the runtime's scheduler takes it from
/// its strategy, and a child of `ctxdebug explore` from its parent.
public enum SchedulingAnswer: Codable, Sendable, Equatable {
    /// Run `enabled[index]`.
    case run(Int)
    /// A replayed schedule does not fit this run (the code changed): why.
    case diverged(String)

    enum CodingKeys: String, CodingKey { case run, diverged }

    /// `{"run":1}` or `{"diverged":"why"}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let index = try container.decodeIfPresent(Int.self, forKey: .run) {
            self = .run(index)
        } else if let why = try container.decodeIfPresent(String.self, forKey: .diverged) {
            self = .diverged(why)
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "an answer has `run` or `diverged`"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .run(let index): try container.encode(index, forKey: .run)
        case .diverged(let why): try container.encode(why, forKey: .diverged)
        }
    }
}

/// A decision with what was chosen: the trace a strategy reads after a run.
public struct RecordedDecision: Codable, Sendable, Equatable {
    public var step: Int
    public var enabled: [String]
    public var defaultIndex: Int
    /// The index in `enabled` that ran.
    public var chosen: Int

    public init(step: Int, enabled: [String], defaultIndex: Int, chosen: Int) {
        self.step = step
        self.enabled = enabled
        self.defaultIndex = defaultIndex
        self.chosen = chosen
    }

    public init(_ decision: SchedulingDecision, chosen: Int) {
        self.init(step: decision.step, enabled: decision.enabled, defaultIndex: decision.defaultIndex, chosen: chosen)
    }

    /// The actor that ran.
    public var actor: String { enabled[chosen] }
    /// The actor FIFO order would have run.
    public var defaultActor: String { enabled[defaultIndex] }
    /// True when the choice was not the default: a deviation from FIFO order.
    public var isDeviation: Bool { chosen != defaultIndex }
}

/// The keys of actors, and their canonical order: `"driver"`, then `"main"`, then
/// `"q1"`, `"q2"`, ... by number.
public enum ActorKey {
    public static let driver = "driver"
    public static let main = "main"

    /// The key of the N-th private queue met in a run (N from 1).
    public static func queue(_ number: Int) -> String { "q\(number)" }

    /// The sort rank of a key: driver 0, main 1, qN N+1; unknown keys after all of them.
    public static func rank(_ key: String) -> Int {
        switch key {
        case driver: return 0
        case main: return 1
        default:
            if key.first == "q", let number = Int(key.dropFirst()), number >= 1 { return number + 1 }
            return Int.max
        }
    }

    /// True when `a` comes before `b` in canonical order (unknown keys by text).
    public static func precedes(_ a: String, _ b: String) -> Bool {
        let (ra, rb) = (rank(a), rank(b))
        return ra != rb ? ra < rb : a < b
    }

    /// `keys` in canonical order.
    public static func canonicallyOrdered(_ keys: [String]) -> [String] { keys.sorted(by: precedes) }
}

/// What chooses who runs next at each scheduling point. A value type, one per
/// exploration: `beginRun` before each run (schedule), `choose` at each point,
/// `endRun` after it with the run's trace.
public protocol ExplorationStrategy: Sendable {
    /// Called before each run: iteration `iteration` of the exploration, with its own
    /// seed (`ExplorationSeeds.seed(base:iteration:)`).
    mutating func beginRun(iteration: Int, seed: UInt64)
    /// Which index of `decision.enabled` runs next. Deterministic from the seed and the
    /// decisions seen so far in this run.
    mutating func choose(_ decision: SchedulingDecision) -> Int
    /// After a run: what it saw (for delay:K's search and pct's step estimate).
    /// Returns false when the strategy has nothing left to try (delay:K exhausted).
    mutating func endRun(_ trace: [RecordedDecision]) -> Bool
    /// The spec of what chose in the current run (`"pct:3"`; a portfolio names its
    /// member), for the schedule file's `strategy`.
    var runName: String { get }
    /// Set by a replay whose forced choice was not enabled: the scheduler stops the run
    /// and reports "diverged at step i". Nil for every other strategy.
    var divergence: ReplayDivergence? { get }
}

extension ExplorationStrategy {
    public var divergence: ReplayDivergence? { nil }
}
