import ExploreModel
import Foundation

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

    /// Where each step goes as it is taken, when the run is logged.
    var log: StepLogWriter?

    init(strategy: any ExplorationStrategy) { self.strategy = strategy }

    var connections: Int { stepsOfConnection.count }

    /// A process connected: the number its lines are handled under.
    mutating func beginConnection() -> Int {
        stepsOfConnection.append([])
        return stepsOfConnection.count - 1
    }

    /// Takes one line of connection `connection`; returns the answer to send back, if any.
    mutating func handle(_ line: Data, from connection: Int) -> SchedulingAnswer? {
        guard !line.isEmpty else { return nil }
        let message: ExploreMessage
        do {
            message = try ExploreMessage(line: line)
        } catch {
            problems.append("a line that is not a message: \(String(decoding: line.prefix(200), as: UTF8.self))")
            return nil
        }
        switch message {
        case .decision(let decision):
            return decide(decision, connection: connection)
        case .hello(let version, let pid):
            if version != ExploreMessage.version, failure == nil {
                failure = ScheduleFailure(
                    kind: .uncontrolled,
                    message: "process \(pid) speaks version \(version) of the explore protocol, this ctxdebug speaks \(ExploreMessage.version):"
                        + " build COMMAND against this ctxdebug's ManagedContext")
            }
        case .failure(let reported):
            if failure == nil { failure = reported }
        case .sites(let sites):
            attach(sites, connection: connection)
        case .unreproducible:
            reproducible = false
        case .end:
            break
        }
        return nil
    }

    /// A decision: the strategy chooses, the step is kept, the answer goes back. The
    /// step is numbered across every process of COMMAND.
    private mutating func decide(_ asked: SchedulingDecision, connection: Int) -> SchedulingAnswer {
        guard !asked.enabled.isEmpty else {
            problems.append("a decision with no enabled actor at step \(steps.count)")
            return .run(0)
        }
        var decision = asked
        decision.step = steps.count
        if !decision.enabled.indices.contains(decision.defaultIndex) { decision.defaultIndex = 0 }
        var chosen = strategy.choose(decision)
        if let divergence = strategy.divergence {
            if failure == nil { failure = ScheduleFailure(kind: .diverged, message: divergence.description) }
            return .diverged(divergence.description)
        }
        if !decision.enabled.indices.contains(chosen) { chosen = decision.defaultIndex }
        stepsOfConnection[connection].append(steps.count)
        let step = decision.step(choosing: chosen)
        steps.append(step)
        try? log?.writeStep(step)
        return .run(chosen)
    }

    /// The sites of a connection's decisions, one per decision in order.
    private mutating func attach(_ sites: [String?], connection: Int) {
        for (index, site) in zip(stepsOfConnection[connection], sites) { steps[index].site = site }
    }
}
