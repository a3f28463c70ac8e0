import ExploreModel
import Foundation

/// One line a child sends (docs/explore.md, "CLI ↔ child protocol"): a hello, a
/// decision, a failure, the sites of its decisions, or its end. Every key is optional;
/// which are there says which message it is.
struct ExploreChildMessage: Decodable {
    /// What `enabled[i]` does if it is chosen.
    struct Candidate: Decodable {
        var point: String
        var context: String?
    }

    var hello: Int?
    var pid: Int32?
    // A decision.
    var step: Int?
    var actor: String?
    var point: String?
    var context: String?
    var enabled: [String]?
    var defaultIndex: Int?
    var candidates: [Candidate]?
    // The others.
    var failure: ScheduleFailure?
    var sites: [String?]?
    var end: Bool?
    /// `false` when uncontrolled work ran (`--allow-uncontrolled`): a replay may differ.
    var reproducible: Bool?
}

/// One schedule as the parent sees it while COMMAND runs: the strategy that answers,
/// the steps in the order they were taken (numbered across every process of COMMAND,
/// in the order the decisions arrived), and what the children said. Pure: the socket
/// and the process are the runner's.
struct ExploreRunSession {
    var strategy: any ExplorationStrategy
    private(set) var steps: [ScheduleStep] = []
    /// The first failure a child reported, or the divergence of a replay.
    private(set) var failure: ScheduleFailure?
    private(set) var reproducible = true
    /// Lines that could not be read, for the report of a failure.
    private(set) var problems: [String] = []
    /// For each connection (by the number `beginConnection` gave it), the indices in
    /// `steps` of its decisions: usually one range, but a process may connect while
    /// another waits for it (an exit test), and their decisions then interleave.
    private var stepsOfConnection: [[Int]] = []
    private let decoder = JSONDecoder()

    /// Where each step goes as it is taken, when the run is logged.
    var log: StepLogWriter?

    init(strategy: any ExplorationStrategy) { self.strategy = strategy }

    var connections: Int { stepsOfConnection.count }

    /// A process connected: the number its lines are handled under.
    mutating func beginConnection() -> Int {
        stepsOfConnection.append([])
        return stepsOfConnection.count - 1
    }

    /// Takes one line of connection `connection`; returns the line to answer with, if any.
    mutating func handle(_ line: Data, from connection: Int) -> String? {
        guard !line.isEmpty else { return nil }
        let message: ExploreChildMessage
        do {
            message = try decoder.decode(ExploreChildMessage.self, from: line)
        } catch {
            problems.append("a line that is not a message: \(String(decoding: line.prefix(200), as: UTF8.self))")
            return nil
        }
        if let enabled = message.enabled { return decide(message, enabled: enabled, connection: connection) }
        if let reported = message.failure, failure == nil { failure = reported }
        if let sites = message.sites { attach(sites, connection: connection) }
        if message.reproducible == false { reproducible = false }
        return nil
    }

    /// A decision: the strategy chooses, the step is kept, the answer goes back.
    private mutating func decide(_ message: ExploreChildMessage, enabled: [String], connection: Int) -> String {
        guard !enabled.isEmpty else {
            problems.append("a decision with no enabled actor at step \(steps.count)")
            return "0"
        }
        let defaultIndex = enabled.indices.contains(message.defaultIndex ?? 0) ? message.defaultIndex ?? 0 : 0
        let decision = SchedulingDecision(step: steps.count, enabled: enabled, defaultIndex: defaultIndex)
        var chosen = strategy.choose(decision)
        if let divergence = strategy.divergence {
            if failure == nil { failure = ScheduleFailure(kind: .diverged, message: divergence.description) }
            return "diverged \(divergence.description)"
        }
        if !enabled.indices.contains(chosen) { chosen = defaultIndex }
        let candidate = message.candidates.flatMap { $0.indices.contains(chosen) ? $0[chosen] : nil }
        let reacher = enabled[chosen] == message.actor
        let point = candidate?.point ?? (reacher ? message.point : nil) ?? SchedulingPoint.blockStart.rawValue
        let queue = candidate != nil ? candidate?.context : (reacher ? message.context : nil)
        stepsOfConnection[connection].append(steps.count)
        let step = ScheduleStep(
            step: steps.count, actor: enabled[chosen], point: SchedulingPoint(point), queue: queue, enabled: enabled,
            defaultIndex: defaultIndex, chosen: chosen)
        steps.append(step)
        try? log?.writeStep(step)
        return String(chosen)
    }

    /// The sites of a connection's decisions, one per decision in order.
    private mutating func attach(_ sites: [String?], connection: Int) {
        for (index, site) in zip(stepsOfConnection[connection], sites) { steps[index].site = site }
    }
}

/// How one schedule ended.
struct ScheduleOutcome: Sendable {
    var steps: [ScheduleStep]
    var failure: ScheduleFailure?
    var reproducible: Bool
    /// How many processes of COMMAND connected.
    var connections: Int
    /// The strategy's name for this run (a portfolio names its member).
    var strategyName: String

    var trace: [RecordedDecision] { steps.map(\.decision) }
    var choices: [String] { steps.map(\.actor) }
    var deviations: [Int: String] {
        Dictionary(uniqueKeysWithValues: steps.filter(\.isDeviation).map { ($0.step, $0.actor) })
    }
}
