/// The result of exploring one test (one `explore { }` call, or one COMMAND of
/// `ctxdebug explore`): how many schedules ran, how fast, and the first failure with
/// its minimized schedule, in words, and how to replay it. Reports renders it as text,
/// JSON, JUnit and SARIF.
public struct ExplorationReport: Codable, Sendable, Equatable {
    public static let format = "ctxdebug-explore-report"
    public static let version = 1

    public var format = ExplorationReport.format
    public var version = ExplorationReport.version
    /// The explored test: its name, or the command.
    public var name: String
    /// The strategy spec of the exploration (`portfolio`, `pct:3`, `delay:1`).
    public var strategy: String
    public var seed: UInt64
    public var granularity: ExploreGranularity
    public var schedulesRun: Int
    public var elapsedSeconds: Double
    /// True when a `delay:K` search ran every schedule within its bound.
    public var exhausted: Bool
    public var failure: Failure?
    /// Runs that failed but are not the program's failures (explore's limit reached, a
    /// schedule libdispatch cannot produce): counted, never reported as bugs. In JSON
    /// only when there are some.
    public var setAside: [SetAsideRuns] = []

    public var schedulesPerSecond: Double { elapsedSeconds > 0 ? Double(schedulesRun) / elapsedSeconds : 0 }

    /// The first failure found.
    public struct Failure: Codable, Sendable, Equatable {
        public var kind: FailureKind
        public var message: String
        public var detail: String?
        /// The schedule that fails, minimized (its strategy is the one that found it).
        public var schedule: ScheduleFile
        /// How many deviations from FIFO the schedule had before it was minimized.
        public var deviationsBeforeMinimizing: Int
        /// The minimized schedule's deviations, in words.
        public var deviationsInWords: [String]
        /// Replays that failed the same way, of `replaysAttempted`.
        public var replaysConfirmed: Int
        public var replaysAttempted: Int
        /// False when uncontrolled work ran (`--allow-uncontrolled`) or a replay did not confirm it.
        public var reproducible: Bool
        /// Where the schedule file was written.
        public var schedulePath: String?
        /// The one line that replays it, e.g. `ctxdebug explore --replay F -- swift test --filter X`.
        public var replayCommand: String?

        public init(
            kind: FailureKind, message: String, detail: String? = nil, schedule: ScheduleFile, deviationsBeforeMinimizing: Int,
            deviationsInWords: [String]? = nil, replaysConfirmed: Int, replaysAttempted: Int, reproducible: Bool,
            schedulePath: String? = nil, replayCommand: String? = nil
        ) {
            self.kind = kind
            self.message = message
            self.detail = detail
            self.schedule = schedule
            self.deviationsBeforeMinimizing = deviationsBeforeMinimizing
            self.deviationsInWords = deviationsInWords ?? schedule.deviationsInWords
            self.replaysConfirmed = replaysConfirmed
            self.replaysAttempted = replaysAttempted
            self.reproducible = reproducible
            self.schedulePath = schedulePath
            self.replayCommand = replayCommand
        }

        /// "3 of 3".
        public var replaysText: String { "\(replaysConfirmed) of \(replaysAttempted)" }
    }

    public init(
        name: String, strategy: String, seed: UInt64, granularity: ExploreGranularity = .coarse, schedulesRun: Int, elapsedSeconds: Double,
        exhausted: Bool = false, failure: Failure? = nil
    ) {
        self.name = name
        self.strategy = strategy
        self.seed = seed
        self.granularity = granularity
        self.schedulesRun = schedulesRun
        self.elapsedSeconds = elapsedSeconds
        self.exhausted = exhausted
        self.failure = failure
    }

    enum CodingKeys: String, CodingKey {
        case format, version, name, strategy, seed, granularity, schedulesRun, elapsedSeconds, schedulesPerSecond, exhausted, failure, setAside
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        format = try container.decode(String.self, forKey: .format)
        version = try container.decode(Int.self, forKey: .version)
        name = try container.decode(String.self, forKey: .name)
        strategy = try container.decode(String.self, forKey: .strategy)
        seed = try container.decode(UInt64.self, forKey: .seed)
        granularity = try container.decode(ExploreGranularity.self, forKey: .granularity)
        schedulesRun = try container.decode(Int.self, forKey: .schedulesRun)
        elapsedSeconds = try container.decode(Double.self, forKey: .elapsedSeconds)
        exhausted = try container.decode(Bool.self, forKey: .exhausted)
        failure = try container.decodeIfPresent(Failure.self, forKey: .failure)
        setAside = try container.decodeIfPresent([SetAsideRuns].self, forKey: .setAside) ?? []
    }

    /// Every key, `schedulesPerSecond` included and `failure` as `null` when none.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format, forKey: .format)
        try container.encode(version, forKey: .version)
        try container.encode(name, forKey: .name)
        try container.encode(strategy, forKey: .strategy)
        try container.encode(seed, forKey: .seed)
        try container.encode(granularity, forKey: .granularity)
        try container.encode(schedulesRun, forKey: .schedulesRun)
        try container.encode(elapsedSeconds, forKey: .elapsedSeconds)
        try container.encode(schedulesPerSecond, forKey: .schedulesPerSecond)
        try container.encode(exhausted, forKey: .exhausted)
        if let failure { try container.encode(failure, forKey: .failure) } else { try container.encodeNil(forKey: .failure) }
        if !setAside.isEmpty { try container.encode(setAside, forKey: .setAside) }
    }
}
