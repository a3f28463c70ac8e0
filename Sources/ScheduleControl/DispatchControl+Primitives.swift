import CScheduleControl

/// The hooks of `dispatch_apply` and of timer sources, and the target chains of queues
/// (ControlledScheduler+Primitives.swift).
extension DispatchControl {
    /// Adds the hooks of these primitives to the table the library is given.
    static func addPrimitiveHooks(to hooks: inout ctxdebug_dc_hooks) {
        hooks.apply = { iterations, queue, context, function in
            guard let function, let scheduler = DispatchControl.activeScheduler else { return 0 }
            return ControlCost.measure {
                let work = ControlledScheduler.ApplyWork(context: context, function: function)
                return scheduler.dispatchApply(Int(iterations), on: queue.map { RawDispatchObject(pointer: $0) }, work) ? 1 : 0
            }
        }
        hooks.timer_set = { source, queue, start, interval, isLong in
            guard let source, let queue, let scheduler = DispatchControl.activeScheduler else { return 0 }
            return scheduler.timerSet(
                RawDispatchObject(pointer: source), queue: RawDispatchObject(pointer: queue), start: start, interval: interval,
                long: isLong != 0) ? 1 : 0
        }
        hooks.timer_handler = { source, queue, context, function in
            guard let source, let queue, let function, let scheduler = DispatchControl.activeScheduler else { return 0 }
            return scheduler.timerHandler(
                RawDispatchObject(pointer: source), queue: RawDispatchObject(pointer: queue),
                DispatchWork(context: context, function: function)) ? 1 : 0
        }
        hooks.timer_resume = { source, queue, change in
            guard let source, let queue, let scheduler = DispatchControl.activeScheduler else { return 0 }
            scheduler.timerResume(RawDispatchObject(pointer: source), queue: RawDispatchObject(pointer: queue), change: change)
            return 1
        }
        hooks.timer_cancel = { source, queue in
            guard let source, let queue, let scheduler = DispatchControl.activeScheduler else { return 0 }
            scheduler.timerCancel(RawDispatchObject(pointer: source), queue: RawDispatchObject(pointer: queue))
            return 1
        }
    }

    /// The serial queue whose one-at-a-time order `queue`'s blocks share: the outermost
    /// serial queue of its target chain, or `queue` itself when it is serial and targets
    /// none; nil for a concurrent queue with no serial queue in its chain. The main queue
    /// ends a chain (a queue that targets it is not modelled beyond its own order).
    static func serialDomain(of queue: RawDispatchObject, concurrent: Bool) -> UInt? {
        serialDomain(of: queue, concurrent: concurrent, target: target(of:), isConcurrent: isConcurrent)
    }

    /// `serialDomain(of:concurrent:)` over given target and concurrency lookups.
    static func serialDomain(
        of queue: RawDispatchObject, concurrent: Bool, target: (RawDispatchObject) -> RawDispatchObject?,
        isConcurrent: (RawDispatchObject) -> Bool
    ) -> UInt? {
        var domain: UInt? = concurrent ? nil : queue.address
        var current = queue
        for _ in 0..<16 {  // a chain longer than this is not an app's
            guard let next = target(current), next.address != mainQueueAddress else { break }
            if !isConcurrent(next) { domain = next.address }
            current = next
        }
        return domain
    }
}
