import CtxdebugHelpers

/// Which schedules an exploration runs (docs/explore.md, "Strategies"): the one strategy
/// type of both ways in (issue 47). The CLI's `--strategy` spells it (`random`, `pct`
/// (depth 3), `pct:D`, `pos`, `delay:K` or `portfolio`; no environment variable names a
/// strategy) and the in-process `explore(_:)` takes it as a value; `validated()` checks
/// one made in code as `init(parsing:)` checks a spelled one. Replay is one of its cases,
/// as in Shuttle: it runs a schedule file's choices (`--replay FILE`). Its `description`
/// is the canonical spelling (`pct` reads back as `pct:3`).
public enum ExploreStrategy: Sendable, Hashable, CustomStringConvertible {
    /// Uniform random choices at every scheduling point.
    case random
    /// Probabilistic concurrency testing (Burckhardt et al., ASPLOS 2010): finds a bug of
    /// depth `depth` with a probability bounded from below in every run; `depth` from 1
    /// to 32 (`depthRange`).
    case pct(depth: Int = 3)
    /// Partial order sampling (Yuan, Yang and Gu, CAV 2018): each pending step keeps a
    /// random priority until it runs.
    case pos
    /// Every schedule with at most this many deviations from FIFO order, then stops; from
    /// 0 to 32 (`boundRange`).
    case delay(Int)
    /// Rotates random, pct:2, pct:3, delay:1 and pos.
    case portfolio
    /// Runs the schedule of the schedule file at this path, exactly (or says where it
    /// diverged).
    case replay(String)

    public static let defaultPCTDepth = 3
    /// The depths and bounds accepted: beyond them a search never ends in practice.
    public static let depthRange = 1...32
    public static let boundRange = 0...32
    /// What a spec may be, for error messages and `--help`.
    public static let accepted =
        "random, pct (depth \(defaultPCTDepth)), pct:D (priority change depth D, \(depthRange.lowerBound) to \(depthRange.upperBound)), pos, "
        + "delay:K (every schedule with at most K deviations from FIFO, \(boundRange.lowerBound) to \(boundRange.upperBound)), portfolio"

    /// Reads a spec, ignoring case and the whitespace around it.
    public init(parsing text: String) throws(StrategySpecError) {
        let trimmed = EnvironmentValue.trimmed(text).lowercased()
        let parts = trimmed.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let name = parts[0]
        let argument = parts.count > 1 ? parts[1] : nil
        switch (name, argument) {
        case ("random", nil): self = .random
        case ("portfolio", nil): self = .portfolio
        case ("pos", nil): self = .pos
        case ("pct", nil): self = .pct(depth: Self.defaultPCTDepth)
        case ("pct", let value?): self = .pct(depth: try Self.number(value, in: Self.depthRange, of: text, naming: "pct's depth"))
        case ("delay", let value?): self = .delay(try Self.number(value, in: Self.boundRange, of: text, naming: "delay's bound"))
        case ("delay", nil): throw StrategySpecError(text: text, reason: "delay needs its bound of deviations, as in delay:2")
        case ("random", _?), ("portfolio", _?), ("pos", _?): throw StrategySpecError(text: text, reason: "\(name) takes no argument")
        default: throw StrategySpecError(text: text, reason: trimmed.isEmpty ? "no strategy named" : "unknown strategy")
        }
    }

    /// The spec, checked as `init(parsing:)` checks a spelled one: a spec made in code (the
    /// in-process `explore`'s `.pct(depth: 0)`) gets the same error as `--strategy pct:0`.
    public func validated() throws(StrategySpecError) -> ExploreStrategy {
        switch self {
        case .pct(let depth): _ = try Self.number(String(depth), in: Self.depthRange, of: description, naming: "pct's depth")
        case .delay(let bound): _ = try Self.number(String(bound), in: Self.boundRange, of: description, naming: "delay's bound")
        case .random, .pos, .portfolio, .replay: break
        }
        return self
    }

    public var description: String {
        switch self {
        case .random: "random"
        case .pct(let depth): "pct:\(depth)"
        case .pos: "pos"
        case .delay(let bound): "delay:\(bound)"
        case .portfolio: "portfolio"
        case .replay(let path): "replay \(path)"
        }
    }

    /// A fresh strategy for one exploration (a replay's forces its file's choices; a file
    /// that cannot be read forces none, and the run diverges at its first step: the
    /// driver reads the file first, and says why it cannot).
    public func makeStrategy() -> any ExplorationStrategy {
        switch self {
        case .random: RandomStrategy()
        case .pct(let depth): PCTStrategy(depth: depth)
        case .pos: POSStrategy()
        case .delay(let bound): DelayBoundedStrategy(bound: bound)
        case .portfolio: PortfolioStrategy()
        case .replay(let path): ReplayStrategy(choices: (try? ScheduleFile.read(from: path))?.choices ?? [])
        }
    }

    private static func number(_ text: String, in range: ClosedRange<Int>, of spec: String, naming what: String) throws(StrategySpecError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw StrategySpecError(text: spec, reason: "\(what) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}

/// A strategy spec that could not be read; its description says what is accepted.
public struct StrategySpecError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The spec as given.
    public var text: String
    public var reason: String

    public var description: String {
        "invalid exploration strategy '\(text)': \(reason); accepted: \(ExploreStrategy.accepted)"
    }
}
