@_spi(Runtime) import ConcurrencyDebug
import CtxdebugHelpers
import ExploreModel
import Foundation
import ScheduleControl

/// Runs `body` once per schedule in this process: a fresh scheduler, the body on a
/// fresh thread as the driver, then everything it queued.
struct InProcessRunner: ScheduleRunner, Sendable {
    let body: @Sendable () throws -> Void
    let options: ExploreOptions
    /// The driver's: the options', or a replayed file's.
    let granularity: ExploreGranularity
    /// Where a logged run's steps go as they are taken: a crash leaves them behind.
    let logPath: String

    func run(_ strategy: inout any ExplorationStrategy, sites: Bool, log header: ScheduleHeader?) -> ScheduleRun {
        let log = LockedValue<StepLogWriter?>(header.flatMap { try? StepLogWriter.create(path: logPath, header: $0) })
        let box = LockedValue<any ExplorationStrategy>(strategy)
        let scheduler = ControlledScheduler(
            granularity: granularity, allowsUncontrolled: options.allowUncontrolled,
            capturesSites: sites, describesCandidates: header != nil
        ) { decision in
            let answer = box.withLock { strategy -> SchedulingAnswer in
                let index = strategy.choose(decision)
                if let divergence = strategy.divergence { return .diverged(divergence.description) }
                return .run(index)
            }
            if case .run(let index) = answer, decision.candidates.indices.contains(index) {
                let step = decision.step(choosing: index)
                log.withLock { try? $0?.writeStep(step) }
            }
            return answer
        }
        let thrown = LockedValue<(any Error)?>(nil)
        let scope = ViolationScope(attribution: .task)
        ScopeRegistry.open(scope, for: scheduler)
        // Plain dispatch in the body is controlled too when the preload library is loaded.
        scheduler.controlDispatchInProcess()
        defer { scheduler.endDispatchControl() }
        let body = self.body
        let driver = Thread {
            scheduler.runDriver {
                do { try body() } catch { thrown.withLock { $0 = error } }
            }
        }
        driver.name = "ctxdebug explore driver"
        driver.start()
        let ended = scheduler.waitForEnd(hangTimeout: options.hangTimeout)
        ScopeRegistry.close(scope, for: scheduler)
        let violations = scope.close()
        let steps = scheduler.steps
        var failure: ScheduleFailure?
        if let stopped = scheduler.failure {
            failure = ScheduleFailure(kind: stopped.kind, message: stopped.message, detail: Self.stackText(stopped.addresses))
        } else if let error = thrown.withLock({ $0 }) {
            failure = ScheduleFailure(kind: .assertion, message: "the body threw: \(error)")
        } else if let first = violations.distinct.first {
            failure = ScheduleFailure(
                kind: .violation, message: "\(violations.totalCount) concurrency violation(s): \(first.kind)",
                detail: violations.reports(violations.distinct))
        } else if !ended {
            failure = ScheduleFailure(kind: .hang, message: "the run did not end")
        }
        log.withLock { writer in
            guard writer != nil else { return }
            if let failure { try? writer?.writeFailure(failure) } else { try? writer?.writeEnd() }
            writer?.close()
            try? FileManager.default.removeItem(atPath: logPath)
        }
        strategy = box.withLock { $0 }
        return ScheduleRun(
            steps: sites ? Self.annotated(steps) : steps.map { $0.scheduleStep() }, failure: failure,
            reproducible: scheduler.isReproducible)
    }

    /// The schedule's steps as the file keeps them, each with its source site.
    static func annotated(_ steps: [ControlledStep]) -> [ScheduleStep] {
        let frames = StackTrace.userFrames(steps.map(\.chosenAddresses))
        return zip(steps, frames).map { step, frame in step.scheduleStep(site: frame.map(ExplorationSite.text)) }
    }

    static func stackText(_ addresses: [UInt]) -> String? {
        guard !addresses.isEmpty else { return nil }
        return StackTrace.symbolicate(addresses).joined(separator: "\n")
    }
}
