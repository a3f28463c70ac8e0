import CScheduleControl
import CtxdebugHelpers
import Foundation

/// One model per libdispatch primitive, as Fray keeps one per JVM primitive
/// (docs/explore.md, "What is controlled"). Each entry is called by DispatchControl's
/// hooks from the thread that made the call; a call from a thread that is no unit of
/// the run, or after the run gave up control, is not taken (false, or
/// CTXDEBUG_DC_NOT_CONTROLLED) and the library does the real thing.
extension ControlledScheduler {
    /// An in-process run (`explore { }`) begins: when this process has the preload library
    /// (LD_PRELOAD, as `ctxdebug explore` gives it), its units' libdispatch calls become
    /// scheduling points, as in a process `ctxdebug explore` runs; otherwise nothing
    /// changes. Returns whether they do. `endDispatchControl()` when the run ended.
    @discardableResult
    package func controlDispatchInProcess() -> Bool { DispatchControl.attach(self) }

    /// The in-process run ended: libdispatch calls from threads that are no unit go to no run.
    package func endDispatchControl() { DispatchControl.detach(self) }

    /// The unit the calling thread is, when the call is the run's to control.
    func dispatchUnit() -> ThreadUnit? {
        if let unit = ThreadUnit.current { return unit.scheduler === self ? unit : nil }
        // The main thread of a process run by `ctxdebug explore` is its driver from its
        // first dispatch call on, as from its first runtime call.
        guard adoptsDriver, MainThread.isCurrent, let unit = state.withLock({ s in adoptMainDriver(&s) }) else { return nil }
        ThreadUnit.setCurrent(unit)
        return unit
    }

    /// `dispatch_async` (and `barrier_async`, `group_async`, a `Task`'s job): the work is
    /// a block of the queue's logical queue; the new block may start before the caller
    /// goes on.
    func dispatchAsync(_ work: DispatchWork, on queue: RawDispatchObject, barrier: Bool) -> Bool {
        guard let unit = dispatchUnit() else { return false }
        let label = DispatchControl.label(queue)
        if DispatchControl.isTestHarness(label) { return false }
        let concurrent = DispatchControl.isConcurrent(queue)
        let addresses = sites()
        let action = state.withLock { s -> Handoff? in
            guard s.mode != .released else { return nil }
            let key = s.queueKey(for: queue, concurrent: concurrent, label: label)
            s.append(.block(work.run, addresses), to: key)
            if barrier { s.markBarrier(key) }
            s.units[unit.id]?.status = .ready
            return decide(&s, from: unit, point: .dispatchAsync, context: s.queues[key]?.name, addresses: addresses)
        }
        guard let action else { return false }
        action.perform(self)
        if action.parksCaller(unit) { unit.park() }
        return true
    }

    /// `dispatch_sync` on a serial queue: the caller waits its turn behind the blocks
    /// already queued (as `performAndWait` does); then the real `dispatch_sync` finds the
    /// queue idle and runs the block on the caller's thread. On a concurrent queue it is a
    /// point only on a global queue; on a concurrent queue the app made, it keeps the
    /// queue's barriers (`concurrentSyncBegin`).
    func dispatchSyncBegin(_ queue: RawDispatchObject, barrier: Bool) -> Bool {
        guard let unit = dispatchUnit() else { return false }
        let label = DispatchControl.label(queue)
        if DispatchControl.isTestHarness(label) { return false }
        let concurrent = DispatchControl.isConcurrent(queue)
        let addresses = sites()
        let action = state.withLock { s -> Handoff? in
            guard s.mode != .released else { return nil }
            if concurrent && !s.keepsBarriers(queue, label: label) {
                s.units[unit.id]?.status = .ready
                return decide(&s, from: unit, point: .dispatchSync, context: label.text, addresses: addresses)
            }
            if concurrent { return concurrentSyncBegin(&s, unit, queue, barrier: barrier, label: label, addresses: addresses) }
            let key = s.queueKey(for: queue, concurrent: false, label: label)
            if key == "main" && s.mainThreadUnit == unit.id { return nil }  // libdispatch traps: leave it to it
            s.append(.waiter(unit.id), to: key)
            s.units[unit.id]?.status = .waiting(key)
            return decide(&s, from: unit, point: .dispatchSync, context: s.queues[key]?.name, addresses: addresses)
        }
        guard let action else { return false }
        action.perform(self)
        if action.parksCaller(unit) { unit.park() }
        // Granted in turn, or forced to unwind a deadlock: the real dispatch_sync either way.
        state.withLock { s in s.units[unit.id]?.forced = false }
        return true
    }

    func dispatchSyncEnd(_ queue: RawDispatchObject) {
        if DispatchControl.isConcurrent(queue) {
            concurrentSyncEnded(queue)  // a concurrent queue the app made keeps its syncs (barriers)
            return
        }
        guard !DispatchControl.isTestHarness(DispatchControl.label(queue)) else { return }
        state.withLock { s in
            let key = queue.address == DispatchControl.mainQueueAddress ? "main" : s.queues.key(ofSerialQueue: queue.address)
            guard let key, s.queues[key]?.busy == true else { return }
            s.queues[key]?.busy = false
            s.queues[key]?.touch(&s.sequence)
        }
    }

    /// `dispatch_after`: a timer of virtual time. Its deadline passes when the schedule
    /// chooses (never before an earlier deadline); then its block goes on its queue.
    func dispatchAfter(_ deadline: UInt64, long: Bool, _ work: DispatchWork, on queue: RawDispatchObject) -> Bool {
        guard let unit = dispatchUnit() else { return false }
        let addresses = sites()
        let action = state.withLock { s -> Handoff? in
            guard s.mode != .released else { return nil }
            s.timers.append(VirtualTimer(id: s.nextTimer, deadline: deadline, isLong: long, queue: queue, block: work.run, addresses: addresses))
            s.nextTimer += 1
            s.units[unit.id]?.status = .ready
            return decide(&s, from: unit, point: .dispatchAfter, context: DispatchControl.label(queue).text, addresses: addresses)
        }
        guard let action else { return false }
        action.perform(self)
        if action.parksCaller(unit) { unit.park() }
        return true
    }

    /// `dispatch_group_notify`: the block goes on its queue when the group empties.
    func groupNotify(_ group: RawDispatchObject, empty: Bool, _ work: DispatchWork, on queue: RawDispatchObject) -> Bool {
        if empty { return dispatchAsync(work, on: queue, barrier: false) }
        guard dispatchUnit() != nil else { return false }
        let addresses = sites()
        return state.withLock { s in
            guard s.mode != .released else { return false }
            s.notifies[group.tableKey, default: []].append(PendingNotify(queue: queue, block: work.run, addresses: addresses))
            return true
        }
    }

    static func groupKey(_ group: RawDispatchObject) -> String { DispatchControl.hexKey("group:0x", group.address) }

    /// A semaphore or group wait that would block: the caller is disabled until a signal
    /// (or, for a timed wait, until the schedule lets its timeout pass), and others run.
    func modelledWait(_ key: String, group: Bool, timeout: WaitTimeout) -> Int32 {
        guard let unit = dispatchUnit() else { return Int32(CTXDEBUG_DC_NOT_CONTROLLED) }
        let addresses = sites()
        let action = state.withLock { s -> Handoff? in
            guard s.mode != .released else { return nil }
            s.units[unit.id]?.status = .blocked(key, timeout: timeout)
            s.units[unit.id]?.timedOut = false
            return decide(&s, from: unit, point: group ? .groupWait : .semaphoreWait, addresses: addresses)
        }
        guard let action else { return Int32(CTXDEBUG_DC_NOT_CONTROLLED) }
        action.perform(self)
        if action.parksCaller(unit) { unit.park() }
        return state.withLock { s in
            if s.mode == .released { return Int32(CTXDEBUG_DC_NOT_CONTROLLED) }
            if s.units[unit.id]?.timedOut == true {
                s.units[unit.id]?.timedOut = false
                return Int32(CTXDEBUG_DC_TIMED_OUT)
            }
            return Int32(CTXDEBUG_DC_RETRY)
        }
    }

    /// A semaphore was signalled, or a group emptied: its waiters may go on (each tries
    /// the real object again), and a group's notify blocks go on their queues.
    func wake(_ key: String, group: RawDispatchObject?) {
        let unit = dispatchUnit()
        let addresses = unit == nil ? [] : sites()
        var pending: [PendingNotify] = []
        if let group {
            pending = state.withLock { s in s.notifies.removeValue(forKey: group.tableKey) ?? [] }
        }
        let notified = pending.map { notify -> (PendingNotify, Bool, QueueLabel) in
            (notify, DispatchControl.isConcurrent(RawDispatchObject(pointer: notify.queue.pointer)), DispatchControl.label(notify.queue))
        }
        let action = state.withLock { s -> Handoff? in
            guard s.mode != .released else {
                return .all(notified.map { Handoff.dispatch(.dispatch($0.0.queue), $0.0.block) })
            }
            var woke = false
            for (id, waiter) in s.units {
                guard case .blocked(key, _) = waiter.status else { continue }
                s.units[id]?.status = .ready
                s.sequence += 1
                s.units[id]?.since = s.sequence
                woke = true
            }
            for (notify, concurrent, label) in notified {
                let target = s.queueKey(for: notify.queue, concurrent: concurrent, label: label)
                s.append(.block(notify.block, notify.addresses), to: target)
                woke = true
            }
            guard woke, let unit, s.units[unit.id] != nil else { return nil }
            s.units[unit.id]?.status = .ready
            return decide(&s, from: unit, point: .signal, addresses: addresses)
        }
        guard let action else { return }
        action.perform(self)
        if let unit, action.parksCaller(unit) { unit.park() }
    }

    /// The caller parks in `dispatchMain()` for good: its unit ends, and from now on the
    /// main queue's blocks run on libdispatch's threads.
    func mainParks() -> Bool {
        guard let unit = dispatchUnit() else { return false }
        ThreadUnit.setCurrent(nil)
        let action = state.withLock { s -> Handoff in
            s.units[unit.id] = nil  // done: out of every later decision
            if s.running == unit.id { s.running = nil }
            if s.mainThreadUnit == unit.id { s.mainThreadUnit = nil }
            guard s.mode != .released else { return .none }
            return decide(&s, from: unit, point: .dispatchMain, addresses: [])
        }
        action.perform(self)
        return true
    }

    /// The work item the driver was adopted in ended on this thread (its task awaited and
    /// the thread went back to libdispatch): the driver's unit ends, and the main queue is
    /// free when the item was the main queue's.
    func earlyWorkEnded(_ token: UInt) {
        let action = state.withLock { s -> Handoff? in
            guard s.driverWork == token, let id = s.driver, let driver = s.units[id] else { return nil }
            s.driverWork = nil
            s.units[id] = nil  // done: out of every later decision
            if s.mainThreadUnit == id { s.mainThreadUnit = nil }
            let held = s.running == id
            if held { s.running = nil }
            guard s.mode != .released else { return nil }
            // Back from an uncontrolled wait to end: the turn is another unit's.
            if driver.status == .outside && !held { return nil }
            return decide(&s, from: ThreadUnit(id: id, actor: driver.actor, semaphore: driver.semaphore, scheduler: self, task: nil),
                          point: .blockEnd, addresses: [])
        }
        if let slot = ThreadUnit.slot, slot.scheduler === self, state.withLock({ $0.units[slot.id] == nil }) {
            ThreadUnit.setCurrent(nil)
        }
        action?.perform(self)
    }

    /// A sleep: the caller goes on when virtual time passes, after whatever can run now
    /// (in FIFO order), or earlier if the schedule says so.
    func sleepYield() -> Bool {
        guard let unit = dispatchUnit() else { return false }
        let action = state.withLock { s -> Handoff? in
            guard s.mode != .released else { return nil }
            s.units[unit.id]?.status = .sleeping
            return decide(&s, from: unit, point: .sleep, addresses: [])
        }
        guard let action else { return false }
        action.perform(self)
        if action.parksCaller(unit) { unit.park() }
        return true
    }

    /// The main thread's run loop is about to wait (XCTest's `wait(for:timeout:)` spins
    /// it): the main queue's blocks may start now, on this thread; the others run; the
    /// waiter goes on when virtual time passes. Returns true when the library should
    /// only poll (the wait is the schedule's), false for the real wait (nothing else
    /// can run, or not controlled).
    func runLoopIdle() -> Bool {
        guard let unit = dispatchUnit(), state.withLock({ $0.mainThreadUnit == unit.id }) else { return false }
        enum Next { case real, decided(Handoff), park }
        let next = state.withLock { s -> Next in
            s.units[unit.id]?.realWait = false
            guard s.mode != .released else { return .real }
            switch s.units[unit.id]?.status {
            case .running?:
                s.units[unit.id]?.status = .spinning
                var others = enabledCandidates(s).filter { $0.key != unit.actor }
                if others.isEmpty, let timer = s.timers.min(by: { ($0.deadline, $0.id) < ($1.deadline, $1.id) }) {
                    // Only time can pass, and the main thread waits for it (XCTest's wait
                    // loop, whose watchdog is a long timer): virtual time passes to the
                    // next deadline now, rather than the wall clock's.
                    // A sleeper pushed behind the waits for time is no candidate here, but a
                    // real run wakes it long before a deadline of seconds: explore's limit.
                    if timer.isLong, s.mode == .controlling,
                        let limit = limitMessage(
                            passing: "the deadline of timer t\(timer.id) (set more than a second ahead: a watchdog's, a test's timeout)", s,
                            except: unit.id)
                    {
                        s.fail(ControlledRunFailure(kind: .limit, message: limit, step: s.steps.count))
                        return .decided(.all(s.release()))
                    }
                    s.fireTimer(timer.id)
                    others = enabledCandidates(s).filter { $0.key != unit.actor }
                }
                if others.isEmpty {
                    // Nothing of the run can run or fire: the run loop's own wait, for real.
                    s.units[unit.id]?.status = .running
                    s.units[unit.id]?.realWait = true
                    return .real
                }
                return .decided(decide(&s, from: unit, point: .runLoop, addresses: []))
            case .hosting?: return .decided(.none)
            default: return .park  // woken by a host's block start or chosen again
            }
        }
        switch next {
        case .real: return false
        case .decided(let action):
            action.perform(self, caller: unit)
            if action.parksCaller(unit) { unit.park() }
        case .park:
            unit.park()
        }
        // The main-queue blocks the schedule started on this thread run here, now (the
        // app's work, not the control's cost).
        ControlCost.appWork { runHostedBlocks(unit) }
        return true
    }
}

extension ControlledScheduler.State {
    /// A timer's deadline passed: its block goes on its queue.
    mutating func fireTimer(_ id: Int) {
        guard let index = timers.firstIndex(where: { $0.id == id }) else { return }
        let timer = timers.remove(at: index)
        let key = queueKey(for: timer.queue, concurrent: DispatchControl.isConcurrent(timer.queue), label: DispatchControl.label(timer.queue))
        append(.block(timer.block, timer.addresses), to: key)
    }
}
