import CtxdebugHelpers
import ExploreModel

/// Which controlled run, if any, a new logical queue belongs to.
package enum Exploration {
    /// The scheduler of the run the calling thread is a unit of: a queue registered inside
    /// an explored body (a context made there) belongs to that run, and every other one is
    /// left alone (tests that run beside an exploration in the same process are not
    /// controlled).
    static func scheduler(forNewQueue: Void) -> ControlledScheduler? {
        if let scheduler = taskScheduler { return scheduler }
        // A thread that took over an async driver keeps its unit after the task left it:
        // a finished run's unit makes nothing of the run.
        if let scheduler = ThreadUnit.current?.scheduler, !scheduler.isFinished { return scheduler }
        return ProcessExploration.scheduler
    }

    /// The run of queues registered by this task when it is no unit yet: an async driver
    /// whose first thread the scheduler adopts (as a process run by `ctxdebug explore` does).
    @TaskLocal package static var taskScheduler: ControlledScheduler?
}
