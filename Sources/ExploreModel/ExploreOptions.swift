public import Foundation

/// How an exploration runs, beyond its strategy and budget: one type for both ways in,
/// the in-process `explore(options:)` and `ctxdebug explore`'s flags (`--granularity`,
/// `--allow-uncontrolled`, `--hang-timeout`, `--schedule-dir`, `--no-minimize`).
public struct ExploreOptions: Sendable, Equatable {
    /// `.fine` also stops at fault fires and refreshes. Nil: coarse, and a replayed
    /// schedule file's own granularity when replaying one.
    public var granularity: ExploreGranularity?
    /// Let calls from threads the scheduler does not control run (their schedules are
    /// then marked not reproducible) instead of failing the exploration.
    public var allowUncontrolled: Bool
    /// A unit that reaches no scheduling point for this long is hung.
    public var hangTimeout: Double
    /// Where a failing schedule's file is written (default: a `ctxdebug-explore`
    /// directory in the temporary directory; `ctxdebug explore` sets its own default,
    /// `.ctxdebug/explore`).
    public var scheduleDirectory: URL?
    /// How many times a failure is replayed before it is reported (or a replayed file
    /// is run).
    public var replays: Int
    /// Reduce a failing schedule to its fewest deviations from FIFO order.
    public var minimizes: Bool

    public init(
        granularity: ExploreGranularity? = nil, allowUncontrolled: Bool = false, hangTimeout: Double = 2,
        scheduleDirectory: URL? = nil, replays: Int = 3, minimizes: Bool = true
    ) {
        self.granularity = granularity
        self.allowUncontrolled = allowUncontrolled
        self.hangTimeout = hangTimeout
        self.scheduleDirectory = scheduleDirectory
        self.replays = replays
        self.minimizes = minimizes
    }

    /// The schedule directory in force: the one given, else the temporary directory's
    /// `ctxdebug-explore`.
    public var scheduleDirectoryInForce: URL {
        scheduleDirectory ?? FileManager.default.temporaryDirectory.appendingPathComponent("ctxdebug-explore", isDirectory: true)
    }
}
