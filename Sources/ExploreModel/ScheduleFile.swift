public import Foundation
import CtxdebugHelpers

/// A run's failure: its kind, a one-line message and the details (a stack, the
/// wait-for cycle, the assertion's text).
public struct ScheduleFailure: Codable, Sendable, Equatable {
    public var kind: FailureKind
    public var message: String
    public var detail: String?

    public init(kind: FailureKind, message: String, detail: String? = nil) {
        self.kind = kind
        self.message = message
        self.detail = detail
    }
}

/// One step of a schedule: the decision, annotated with what the chosen actor did.
public struct ScheduleStep: Codable, Sendable, Equatable {
    public var step: Int
    /// The actor that ran: `enabled[chosen]`.
    public var actor: String
    public var point: SchedulingPoint
    /// The queue's name (the context's name or queue label), when known.
    public var queue: String?
    /// The source site, `"File.swift:LINE in function"`, when known.
    public var site: String?
    public var enabled: [String]
    public var defaultIndex: Int
    public var chosen: Int

    public init(
        step: Int, actor: String, point: SchedulingPoint, queue: String? = nil, site: String? = nil, enabled: [String], defaultIndex: Int,
        chosen: Int
    ) {
        self.step = step
        self.actor = actor
        self.point = point
        self.queue = queue
        self.site = site
        self.enabled = enabled
        self.defaultIndex = defaultIndex
        self.chosen = chosen
    }

    /// The step of `decision`, annotated with what its chosen actor did there.
    public init(_ decision: RecordedDecision, point: SchedulingPoint, queue: String? = nil, site: String? = nil) {
        self.init(
            step: decision.step, actor: decision.actor, point: point, queue: queue, site: site, enabled: decision.enabled,
            defaultIndex: decision.defaultIndex, chosen: decision.chosen)
    }

    public var decision: RecordedDecision { RecordedDecision(step: step, enabled: enabled, defaultIndex: defaultIndex, chosen: chosen) }
    public var isDeviation: Bool { chosen != defaultIndex }
    /// The actor FIFO order would have run.
    public var defaultActor: String { enabled[defaultIndex] }
}

/// What a schedule file says before its steps: how the run was chosen.
public struct ScheduleHeader: Codable, Sendable, Equatable {
    public var strategy: String
    public var seed: UInt64
    public var iteration: Int
    public var granularity: ExploreGranularity
    /// False when uncontrolled work was allowed (`--allow-uncontrolled`): a replay may differ.
    public var reproducible: Bool

    public init(strategy: String, seed: UInt64, iteration: Int, granularity: ExploreGranularity = .coarse, reproducible: Bool = true) {
        self.strategy = strategy
        self.seed = seed
        self.iteration = iteration
        self.granularity = granularity
        self.reproducible = reproducible
    }
}

/// A schedule file (`*.schedule.json`), format version 1: how the run was chosen, the
/// chosen actor at each step, the annotated steps, the steps that deviate from FIFO
/// order and the failure (docs/explore.md, "Schedule file format").
public struct ScheduleFile: Codable, Sendable, Equatable {
    public static let format = "ctxdebug-schedule"
    public static let version = 1

    public var format: String
    public var version: Int
    public var strategy: String
    public var seed: UInt64
    public var iteration: Int
    public var granularity: ExploreGranularity
    public var reproducible: Bool
    /// The chosen actor key per step; what a replay forces.
    public var choices: [String]
    public var steps: [ScheduleStep]
    /// The steps whose choice is not the default.
    public var deviations: [Int]
    public var failure: ScheduleFailure?

    /// A schedule of `steps`; `choices` and `deviations` are read from them.
    public init(header: ScheduleHeader, steps: [ScheduleStep], failure: ScheduleFailure?) {
        format = Self.format
        version = Self.version
        strategy = header.strategy
        seed = header.seed
        iteration = header.iteration
        granularity = header.granularity
        reproducible = header.reproducible
        self.steps = steps
        choices = steps.map(\.actor)
        deviations = steps.filter(\.isDeviation).map(\.step)
        self.failure = failure
    }

    public var header: ScheduleHeader {
        ScheduleHeader(strategy: strategy, seed: seed, iteration: iteration, granularity: granularity, reproducible: reproducible)
    }

    /// The strategy that replays this schedule's choices.
    public var replayStrategy: ReplayStrategy { ReplayStrategy(choices: choices) }

    /// The deviations as the minimizer and `DeviationStrategy` take them: step → actor.
    public var deviationChoices: [Int: String] {
        Dictionary(uniqueKeysWithValues: deviations.compactMap { step in steps.indices.contains(step) ? (step, steps[step].actor) : nil })
    }

    enum CodingKeys: String, CodingKey {
        case format, version, strategy, seed, iteration, granularity, reproducible, choices, steps, deviations, failure
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let format = try? container.decodeIfPresent(String.self, forKey: .format)
        guard format == Self.format else { throw ScheduleFileError.notASchedule(format: format) }
        let version = try container.decode(Int.self, forKey: .version)
        guard version == Self.version else { throw ScheduleFileError.unsupportedVersion(version) }
        self.format = Self.format
        self.version = version
        strategy = try container.decode(String.self, forKey: .strategy)
        seed = try container.decode(UInt64.self, forKey: .seed)
        iteration = try container.decode(Int.self, forKey: .iteration)
        granularity = try container.decodeIfPresent(ExploreGranularity.self, forKey: .granularity) ?? .coarse
        reproducible = try container.decodeIfPresent(Bool.self, forKey: .reproducible) ?? true
        choices = try container.decode([String].self, forKey: .choices)
        steps = try container.decodeIfPresent([ScheduleStep].self, forKey: .steps) ?? []
        deviations = try container.decodeIfPresent([Int].self, forKey: .deviations) ?? steps.filter(\.isDeviation).map(\.step)
        failure = try container.decodeIfPresent(ScheduleFailure.self, forKey: .failure)
    }

    /// Writes every key, `failure` as `null` when there is none.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format, forKey: .format)
        try container.encode(version, forKey: .version)
        try container.encode(strategy, forKey: .strategy)
        try container.encode(seed, forKey: .seed)
        try container.encode(iteration, forKey: .iteration)
        try container.encode(granularity, forKey: .granularity)
        try container.encode(reproducible, forKey: .reproducible)
        try container.encode(choices, forKey: .choices)
        try container.encode(steps, forKey: .steps)
        try container.encode(deviations, forKey: .deviations)
        if let failure { try container.encode(failure, forKey: .failure) } else { try container.encodeNil(forKey: .failure) }
    }
}

// Reading and writing files.

extension ScheduleFile {
    /// The file's JSON: pretty-printed, keys sorted, slashes as they are, a final newline.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(0x0A)
        return data
    }

    /// Writes the file whole or not at all (a temporary file renamed over `path`).
    public func write(to path: String) throws {
        try WholeFile.write(encoded(), to: path)
    }

    /// Reads a schedule file, or a step log (assembled, its truncated last line skipped).
    public static func read(from path: String) throws -> ScheduleFile {
        guard let bytes = WholeFile.read(path) else {
            throw ScheduleFileError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        return try decode(Data(bytes))
    }

    /// A schedule file's JSON, or a step log's lines (see `StepLog.assemble`).
    public static func decode(_ data: Data) throws -> ScheduleFile {
        if StepLog.looksLikeLog(data) { return try StepLog.assemble(data).schedule }
        do {
            let schedule = try JSONDecoder().decode(ScheduleFile.self, from: data)
            try schedule.validate()
            return schedule
        } catch let error as ScheduleFileError {
            throw error
        } catch {
            throw ScheduleFileError.malformed(String(describing: error))
        }
    }

    /// Every step's indices point into its `enabled`, and steps count from 0.
    func validate() throws {
        for (index, step) in steps.enumerated() {
            guard step.step == index else { throw ScheduleFileError.malformed("step \(step.step) is at position \(index)") }
            guard step.enabled.indices.contains(step.chosen), step.enabled.indices.contains(step.defaultIndex) else {
                throw ScheduleFileError.malformed("step \(index) chooses outside its enabled actors")
            }
        }
    }
}

/// A schedule file that cannot be used, and why.
public enum ScheduleFileError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    /// The JSON's `format` is not `ctxdebug-schedule` (nil: it has none).
    case notASchedule(format: String?)
    case unsupportedVersion(Int)
    case malformed(String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            "cannot read the schedule file \(path): \(reason)"
        case .notASchedule(let format):
            "not a ctxdebug schedule file: its format is \(format.map { "'\($0)'" } ?? "missing"), expected '\(ScheduleFile.format)'"
        case .unsupportedVersion(let version):
            "schedule file version \(version) is not supported: this ctxdebug reads version \(ScheduleFile.version);"
                + " record the schedule again with this ctxdebug"
        case .malformed(let reason):
            "malformed schedule file: \(reason)"
        }
    }
}
