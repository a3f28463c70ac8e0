/// The check a failing schedule passes before it is reported as a bug: each of its steps
/// ran a unit that real libdispatch could have run then (docs/explore.md, "What counts
/// as a failure").
///
/// The rules of each choice (a serial queue's order, a barrier's, the main queue only
/// while the main thread serves it, virtual time's deadlines in order) are the
/// scheduler's: it offers only the units they allow (`enabled`). What the recorded
/// schedule must show is that every step took one of them: the actor that ran was
/// enabled there, once, the FIFO choice was one of them too, and virtual time passed only
/// as a timer's fire. A schedule that breaks
/// this did not come from the scheduler's rules (a process of COMMAND answering another
/// protocol, a step log cut or edited, a defect of ours), so its failure says nothing of
/// the program, and the driver sets it aside instead of reporting it.
public enum ScheduleFeasibility {
    /// Why the schedule of `steps` is not one libdispatch could produce, or nil when
    /// every step is.
    public static func problem(in steps: [ScheduleStep]) -> String? {
        for (index, step) in steps.enumerated() {
            if step.step != index { return "step \(index) is numbered \(step.step): a step is missing or out of order" }
            if step.enabled.isEmpty { return "step \(index) ran \(step.actor) with no unit able to run" }
            if Set(step.enabled).count != step.enabled.count {
                return "step \(index) lists a unit twice among those that could run (\(step.enabled.joined(separator: ", ")))"
            }
            guard step.enabled.indices.contains(step.chosen), step.enabled[step.chosen] == step.actor else {
                return "step \(index) ran \(step.actor), which could not run then (only \(step.enabled.joined(separator: ", ")) could)"
            }
            guard step.enabled.indices.contains(step.defaultIndex) else {
                return "step \(index) has no FIFO choice among \(step.enabled.joined(separator: ", "))"
            }
            // Virtual time: a deadline passes only as its timer's fire, and only a timer fires.
            if isTimer(step.actor) != (step.point == .timerFire) {
                return isTimer(step.actor)
                    ? "step \(index) ran timer \(step.actor) at \(step.point.rawValue): a timer only fires"
                    : "step \(index) ran \(step.actor) at timer-fire, which only a timer does"
            }
        }
        return nil
    }

    /// "t0", "t1"...: a timer of virtual time (`ControlledScheduler`'s key for it).
    static func isTimer(_ actor: String) -> Bool {
        actor.count > 1 && actor.first == "t" && actor.dropFirst().allSatisfy(\.isNumber)
    }
}

/// Runs that failed but are not the program's failures, set aside by the driver and
/// counted in the report: explore's own limit was reached (`FailureKind.limit`), or the
/// schedule was not one libdispatch could produce (`ScheduleFeasibility`).
public struct SetAsideRuns: Codable, Sendable, Equatable {
    public enum Reason: String, Codable, Sendable { case limit, infeasible }

    public var reason: Reason
    /// How many runs were set aside for this reason.
    public var count: Int
    /// The first of them (the lowest iteration): its iteration and what was found.
    public var iteration: Int
    public var message: String

    public init(reason: Reason, count: Int, iteration: Int, message: String) {
        self.reason = reason
        self.count = count
        self.iteration = iteration
        self.message = message
    }

    /// Why `run`'s failure is set aside, and what to say of it; nil for a failure of the
    /// program's, reported as found.
    public static func reason(for run: ScheduleRun) -> (Reason, String)? {
        guard let failure = run.failure else { return nil }
        if failure.kind == .limit { return (.limit, failure.message) }
        guard failure.kind != .diverged, let problem = ScheduleFeasibility.problem(in: run.steps) else { return nil }
        return (.infeasible, "\(failure.kind.rawValue) (\(failure.message)) in a schedule libdispatch cannot produce: \(problem)")
    }

    /// The report's line: "3 schedules reached explore's limit (the first, iteration 4: …)".
    public var text: String {
        let schedules = count == 1 ? "1 schedule" : "\(count) schedules"
        let what = reason == .limit ? "reached explore's limit, not the program's" : "failed in a schedule libdispatch cannot produce"
        return "\(schedules) \(what), set aside (the first, iteration \(iteration): \(message))"
    }
}
