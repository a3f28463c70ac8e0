import CScheduleControl
import CtxdebugHelpers
import Dispatch
import ExploreModel

/// libdispatch's rules beyond one queue's FIFO order, and the primitives that build on
/// the timers and waits of ControlledScheduler+Dispatch.swift (docs/explore.md, "What is
/// controlled"):
/// - a barrier on a concurrent queue the app made starts only when every earlier block of
///   that queue finished, and no later block starts until it finished (on a global queue
///   a barrier is a plain block, as libdispatch has it);
/// - queues whose target chains meet at a serial queue never run blocks at once (the
///   serial queue's one-at-a-time order covers every queue that targets it);
/// - `dispatch_apply`: its iterations are blocks, and the caller waits for them all;
/// - a timer source lives on virtual time, as `dispatch_after` does, and its handler is a
///   block of its queue.
extension ControlledScheduler {
    /// The state of these rules, kept in `State.primitives`.
    struct PrimitiveState {
        /// The blocks and `sync`s of each concurrent queue the app made (by address) that
        /// have not finished, in the order they were submitted.
        var gates = SortedTable<Gate>()
        /// The logical queues the `sync`s of each unit on concurrent queues hold, innermost last.
        var concurrentSyncs = SortedTable<[String]>()
        /// The iterations of each `dispatch_apply` under way that have not finished.
        var applies: [String: Int] = [:]
        var nextApply = 0
        /// The timer sources met, by address.
        var timerSources = SortedTable<TimerSource>()
    }

    struct Gate {
        struct Entry {
            let key: String
            var barrier: Bool
        }

        var entries: [Entry] = []
        var barriers = 0

        /// Whether `key`'s block (or `sync`) must wait: it is a barrier with earlier work
        /// unfinished, or it comes after an unfinished barrier.
        func holdsBack(_ key: String) -> Bool {
            guard barriers > 0, let index = entries.firstIndex(where: { $0.key == key }) else { return false }
            if entries[index].barrier { return index > 0 }
            return entries[..<index].contains { $0.barrier }
        }
    }

    /// A dispatch source of type timer: its schedule lives on virtual time.
    struct TimerSource {
        let queue: RawDispatchObject
        /// `DISPATCH_TIME_FOREVER` until `dispatch_source_set_timer`.
        var start = UInt64.max
        var interval = UInt64.max
        var isLong = false
        var handler: DispatchWork?
        var addresses: [UInt] = []
        /// Sources are made inactive: the first `resume` or `activate` activates it.
        var activated = false
        var suspensions = 0
        var cancelled = false
        /// The virtual timer of its next fire, while one is set.
        var armed: Int?

        var isLive: Bool { activated && suspensions == 0 && !cancelled }
    }

    /// `function(context, index)` of a `dispatch_apply`.
    ///
    /// `@unchecked Sendable`: libdispatch calls the function once per index from whatever
    /// thread; the caller keeps the context alive until every iteration ran.
    struct ApplyWork: @unchecked Sendable {
        let context: UnsafeMutableRawPointer?
        let function: ctxdebug_dc_apply_function_t

        func run(_ index: Int) { function(context, index) }
    }

    // MARK: dispatch_apply

    /// `dispatch_apply` on a concurrent queue (or `nil`, libdispatch's choice, as
    /// `concurrentPerform` passes): each iteration is a block of the queue, any of which
    /// may start, and the caller waits until every one finished (a modelled wait,
    /// `dispatch-apply`). On a serial queue it is not taken: the library runs it as a
    /// `sync` (the iterations in order on the caller's thread, once the queue is its).
    func dispatchApply(_ iterations: Int, on queue: RawDispatchObject?, _ work: ApplyWork) -> Bool {
        guard iterations > 0, let target = queue ?? DispatchControl.overcommitQueue, let unit = dispatchUnit() else { return false }
        if let queue, !DispatchControl.isConcurrent(queue) { return false }
        let label = queue.map(DispatchControl.label) ?? QueueLabel(bytes: nil, fallback: "dispatch_apply")
        if DispatchControl.isTestHarness(label) { return false }
        let addresses = sites()
        let finished = DispatchSemaphore(value: 0)
        let action = state.withLock { s -> Handoff? in
            guard s.mode != .released else { return nil }
            s.primitives.nextApply += 1
            let waitKey = "apply:\(s.primitives.nextApply)"
            s.primitives.applies[waitKey] = iterations
            for index in 0..<iterations {
                let key = s.queueKey(for: target, concurrent: true, label: label)
                s.append(.block({ [self] in
                    work.run(index)
                    applyIterationEnded(waitKey)
                    DispatchBypass.run { finished.signal() }
                }, addresses), to: key)
            }
            s.units[unit.id]?.status = .blocked(waitKey, timeout: .none)
            return decide(&s, from: unit, point: .dispatchApply, context: label.text, addresses: addresses)
        }
        guard let action else { return false }
        action.perform(self)
        if action.parksCaller(unit) { unit.park() }
        // Chosen again once every iteration ran; after control was given up, the
        // iterations run for real and the caller waits for them, as dispatch_apply does.
        DispatchBypass.run { for _ in 0..<iterations { finished.wait() } }
        return true
    }

    /// An iteration finished: the last one lets its caller go on (its block's end decides next).
    private func applyIterationEnded(_ waitKey: String) {
        state.withLock { s in
            guard let left = s.primitives.applies[waitKey] else { return }
            guard left == 1 else {
                s.primitives.applies[waitKey] = left - 1
                return
            }
            s.primitives.applies[waitKey] = nil
            for (id, unit) in s.units where unit.status == .blocked(waitKey, timeout: .none) {
                s.units[id]?.status = .ready
                s.sequence += 1
                s.units[id]?.since = s.sequence
            }
        }
    }

    // MARK: Timer sources

    /// `dispatch_source_set_timer`: the source's next fire is a timer of virtual time
    /// (`timer-fire`, as for `dispatch_after`), set now if the source is active.
    func timerSet(_ source: RawDispatchObject, queue: RawDispatchObject, start: UInt64, interval: UInt64, long: Bool) -> Bool {
        let addresses = sites()
        return state.withLock { s in
            guard s.mode != .released else { return false }
            var timer = s.primitives.timerSources[source.tableKey] ?? TimerSource(queue: queue)
            timer.start = start
            timer.interval = interval
            timer.isLong = long
            timer.addresses = addresses
            s.primitives.timerSources[source.tableKey] = timer
            rearm(&s, source.tableKey)
            return true
        }
    }

    /// `dispatch_source_set_event_handler`: what runs, as a block of the source's queue, when it fires.
    func timerHandler(_ source: RawDispatchObject, queue: RawDispatchObject, _ work: DispatchWork) -> Bool {
        state.withLock { s in
            guard s.mode != .released else { return false }
            s.primitives.timerSources[source.tableKey, default: TimerSource(queue: queue)].handler = work
            return true
        }
    }

    /// `dispatch_resume` (1), `dispatch_suspend` (0), `dispatch_activate` (2) of a timer source.
    func timerResume(_ source: RawDispatchObject, queue: RawDispatchObject, change: Int32) {
        state.withLock { s in
            guard s.mode != .released else { return }
            var timer = s.primitives.timerSources[source.tableKey] ?? TimerSource(queue: queue)
            switch change {
            case 0: timer.suspensions += 1
            case 2: timer.activated = true
            default:
                if timer.activated { timer.suspensions -= 1 } else { timer.activated = true }
            }
            s.primitives.timerSources[source.tableKey] = timer
            rearm(&s, source.tableKey)
        }
    }

    /// `dispatch_source_cancel`: no later fire, and a fire whose handler has not started yet is dropped.
    func timerCancel(_ source: RawDispatchObject, queue: RawDispatchObject) {
        state.withLock { s in
            guard s.mode != .released else { return }
            s.primitives.timerSources[source.tableKey, default: TimerSource(queue: queue)].cancelled = true
            rearm(&s, source.tableKey)
        }
    }

    /// Sets the source's virtual timer to its schedule (or removes it, when the source is
    /// not live or has no deadline).
    private func rearm(_ s: inout State, _ source: Int) {
        guard var timer = s.primitives.timerSources[source] else { return }
        if let armed = timer.armed { s.timers.removeAll { $0.id == armed } }
        timer.armed = nil
        if timer.isLive && timer.start != UInt64.max {
            let id = s.nextTimer
            let deadline = timer.start
            s.nextTimer += 1
            s.timers.append(VirtualTimer(
                id: id, deadline: deadline, isLong: timer.isLong, queue: timer.queue,
                block: { [self] in runTimerHandler(source, fired: id, deadline: deadline) }, addresses: timer.addresses))
            timer.armed = id
        }
        s.primitives.timerSources[source] = timer
    }

    /// The block a fire put on the source's queue: the handler, unless the source was
    /// cancelled meanwhile; then a repeating timer's next fire, one interval later. It is
    /// set once the handler ran, as libdispatch coalesces the fires a busy handler missed.
    private func runTimerHandler(_ source: Int, fired id: Int, deadline: UInt64) {
        let handler = state.withLock { s -> DispatchWork? in
            guard let timer = s.primitives.timerSources[source], !timer.cancelled || s.mode == .released else { return nil }
            return timer.handler
        }
        handler?.run()
        state.withLock { s in
            guard s.mode != .released, var timer = s.primitives.timerSources[source], timer.armed == id else { return }
            timer.armed = nil
            if timer.interval == UInt64.max {
                timer.start = UInt64.max  // a one-shot timer fires once
            } else {
                timer.start = deadline &+ timer.interval
                timer.isLong = timer.interval > 1_000_000_000
            }
            s.primitives.timerSources[source] = timer
            rearm(&s, source)
        }
    }

    // MARK: Concurrent queues' sync

    /// `dispatch_sync` (or `dispatch_barrier_sync`) on a concurrent queue the app made:
    /// it takes its place in the queue's gate. When nothing holds it back the caller goes
    /// on at once, the queue counting its block as running; otherwise (a barrier behind
    /// unfinished work, a block behind an unfinished barrier, its serial target busy) it
    /// waits its turn, as `dispatch_sync` on a serial queue does.
    func concurrentSyncBegin(
        _ s: inout State, _ unit: ThreadUnit, _ queue: RawDispatchObject, barrier: Bool, label: QueueLabel, addresses: [UInt]
    ) -> Handoff {
        let key = s.queueKey(for: queue, concurrent: true, label: label)
        if barrier { s.markBarrier(key) }
        s.primitives.concurrentSyncs[unit.id, default: []].append(key)
        if s.holdsBack(key) {
            s.append(.waiter(unit.id), to: key)
            s.units[unit.id]?.status = .waiting(key)
        } else {
            s.queues[key]?.busy = true
            s.queues[key]?.holder = unit.actor
            s.units[unit.id]?.status = .ready
        }
        return decide(&s, from: unit, point: .dispatchSync, context: label.text, addresses: addresses)
    }

    /// `dispatch_sync` (or `dispatch_barrier_sync`) on a concurrent queue the app made
    /// ends: its logical queue is free, and its place in the queue's gate too. Returns
    /// false for a queue this does not keep (a global queue, a serial queue).
    @discardableResult
    func concurrentSyncEnded(_ queue: RawDispatchObject) -> Bool {
        guard let unit = ThreadUnit.current, unit.scheduler === self else { return false }
        return state.withLock { s in
            guard s.primitives.gates[queue.tableKey] != nil, var held = s.primitives.concurrentSyncs[unit.id],
                let index = held.lastIndex(where: { s.queues[$0]?.gate == queue.address })
            else { return false }
            let key = held.remove(at: index)
            s.primitives.concurrentSyncs[unit.id] = held.isEmpty ? nil : held
            s.queues[key]?.busy = false
            s.queues[key]?.holder = nil
            s.blockEnded(key)
            return true
        }
    }
}

extension ControlledScheduler.State {
    /// Whether `queue` is a concurrent queue the app made, whose barriers are kept (not a
    /// global queue, where a barrier is a plain block).
    func keepsBarriers(_ queue: RawDispatchObject, label: QueueLabel) -> Bool {
        !label.hasPrefix("com.apple.root.") && queue.address != DispatchControl.overcommitQueue?.address
    }

    /// A new logical queue of a libdispatch queue: it joins its queue's gate (a concurrent
    /// queue's block) and the one-at-a-time order of the serial queue it targets.
    mutating func enterPrimitives(_ state: inout ControlledScheduler.QueueState, queue: RawDispatchObject, concurrent: Bool, label: QueueLabel) {
        // Kept in the logical queue's own state: a dictionary type of its own would cost the
        // Swift runtime's first use of its metadata in every explored process.
        if concurrent {
            state.transient = true
            if keepsBarriers(queue, label: label) {
                primitives.gates[queue.tableKey, default: ControlledScheduler.Gate()].entries.append(.init(key: state.key, barrier: false))
                state.gate = queue.address
            }
        }
        state.domain = DispatchControl.serialDomain(of: queue, concurrent: concurrent)
    }

    /// The block (or `sync`) of `key` was submitted with the barrier flag.
    mutating func markBarrier(_ key: String) {
        guard let queue = queues[key]?.gate, var gate = primitives.gates[Int(bitPattern: queue)],
            let index = gate.entries.lastIndex(where: { $0.key == key }), !gate.entries[index].barrier
        else { return }
        gate.entries[index].barrier = true
        gate.barriers += 1
        primitives.gates[Int(bitPattern: queue)] = gate
    }

    /// Whether the head of `key` must wait although its own queue is free: a barrier's
    /// rule, or another queue of its serial target's order is busy.
    func holdsBack(_ key: String) -> Bool {
        if let queue = queues[key]?.gate, primitives.gates[Int(bitPattern: queue)]?.holdsBack(key) == true { return true }
        guard let domain = queues[key]?.domain else { return false }
        // Every queue with a serial order is in `queues` (a concurrent queue's, while its
        // block runs).
        return queues.isBusy(domain: domain, besides: key)
    }

    /// A block of `key` ended: a concurrent queue's logical queue leaves its gate and its
    /// serial target's order (a serial queue's stays for its next blocks).
    mutating func blockEnded(_ key: String) {
        guard let ended = queues[key], ended.transient else { return }
        // It never holds work again: forgotten, so that a decision does not walk the
        // queues of every Task job and global-queue block that ever ran.
        queues[key] = nil
        if let queue = ended.gate, var gate = primitives.gates[Int(bitPattern: queue)],
            let index = gate.entries.firstIndex(where: { $0.key == key }) {
            if gate.entries.remove(at: index).barrier { gate.barriers -= 1 }
            primitives.gates[Int(bitPattern: queue)] = gate
        }
    }
}
