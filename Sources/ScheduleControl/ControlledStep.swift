package import ExploreModel

// The runtime's records of a controlled run. Its words (`SchedulingPoint`,
// `ExploreGranularity`, `SchedulingDecision`, `SchedulingAnswer`, `FailureKind`) are
// ExploreModel's, shared with the CLI, the in-process API and the schedule file.

/// One decision of a controlled run: who reached which point, what could run next,
/// and what ran.
package struct ControlledStep: Sendable {
    package var step: Int
    /// The actor that reached the point ("driver", "main", "q1"...).
    package var actor: String
    package var point: SchedulingPoint
    /// The name of the context the point concerns, when there is one.
    package var contextName: String?
    /// The return addresses where the point was reached (symbolicated only for a report).
    package var addresses: [UInt]
    package var enabled: [String]
    package var defaultIndex: Int
    package var chosen: Int
    /// What the chosen actor did: the point it went on from (a block's start, or where
    /// it had stopped), on which context, and where.
    package var chosenPoint: SchedulingPoint
    package var chosenContext: String?
    package var chosenAddresses: [UInt]

    package var isDeviation: Bool { chosen != defaultIndex }
    package var chosenActor: String { enabled[chosen] }
}

/// What ended a controlled run early, or made it fail.
package struct ControlledRunFailure: Sendable, Error {
    /// `deadlock`, `hang`, `uncontrolled` or `diverged`: what a scheduler sees.
    package var kind: FailureKind
    package var message: String
    /// The steps at which it was seen, and the stack where that matters (an
    /// uncontrolled call's).
    package var step: Int
    package var addresses: [UInt] = []
    /// Already symbolicated text that replaces the stack of `addresses` in a report
    /// (a hang's stacks of every unit's thread).
    package var detail: String?
}

extension ControlledStep {
    /// The step as a schedule file keeps it: what the chosen actor did, and where.
    package func scheduleStep(site: String? = nil) -> ScheduleStep {
        ScheduleStep(
            step: step, actor: chosenActor, point: chosenPoint, queue: chosenContext, site: site, enabled: enabled,
            defaultIndex: defaultIndex, chosen: chosen)
    }

    /// The decision with what was chosen.
    package var recorded: RecordedDecision {
        RecordedDecision(step: step, enabled: enabled, defaultIndex: defaultIndex, chosen: chosen)
    }
}
