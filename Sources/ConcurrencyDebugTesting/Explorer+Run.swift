@_spi(Runtime) import ConcurrencyDebug
import CtxdebugHelpers
import ExploreModel
import Foundation
import ManagedContext

extension Explorer {
    /// Runs `body` once under `strategy`: a fresh scheduler, the body on a fresh thread
    /// as the driver, then everything it queued. Returns the run and the strategy as
    /// the run left it.
    func runOnce(with strategy: any ExplorationStrategy, sites: Bool = false, log header: ScheduleHeader? = nil) -> (ScheduleRun, any ExplorationStrategy) {
        // The run's steps go to a log as they are taken: a crash leaves them behind.
        let log = LockedValue<StepLogWriter?>(header.flatMap { try? StepLogWriter.create(path: runningLogPath, header: $0) })
        defer { log.withLock { $0?.close() } }
        let box = LockedValue<any ExplorationStrategy>(strategy)
        let scheduler = ControlledScheduler(
            granularity: options.granularity, allowsUncontrolled: options.allowUncontrolled,
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
        var run = ScheduleRun(steps: scheduler.steps, failure: nil, failureAddresses: [], reproducible: scheduler.isReproducible)
        if let failure = scheduler.failure {
            run.failure = ScheduleFailure(kind: failure.kind, message: failure.message, detail: Self.stackText(failure.addresses))
            run.failureAddresses = failure.addresses
        } else if let error = thrown.withLock({ $0 }) {
            run.failure = ScheduleFailure(kind: .assertion, message: "the body threw: \(error)")
        } else if let first = violations.distinct.first {
            run.failure = ScheduleFailure(
                kind: .violation, message: "\(violations.totalCount) concurrency violation(s): \(first.kind)",
                detail: violations.reports(violations.distinct))
        } else if !ended {
            run.failure = ScheduleFailure(kind: .hang, message: "the run did not end")
        }
        log.withLock { writer in
            if let failure = run.failure { try? writer?.writeFailure(failure) } else { try? writer?.writeEnd() }
        }
        return (run, box.withLock { $0 })
    }

    static func stackText(_ addresses: [UInt]) -> String? {
        guard !addresses.isEmpty else { return nil }
        return StackTrace.symbolicate(addresses).joined(separator: "\n")
    }
}
