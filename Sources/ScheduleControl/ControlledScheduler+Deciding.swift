import ExploreModel
import Foundation

/// Who runs next: the candidates a state enables, the strategy's choice among them,
/// and what handing the turn over does to the state.
extension ControlledScheduler {
    /// Who runs next, after `unit` reached `point` (its status already says whether it
    /// can go on). Records the step and asks the strategy when there is a choice.
    func decide(
        _ s: inout State, from unit: ThreadUnit, point: SchedulingPoint, context: String? = nil, addresses: [UInt]
    ) -> Handoff {
        if let wait = noteArrival(&s, of: unit, at: point, addresses: addresses) { return wait }
        let candidates = enabledCandidates(s)
        if candidates.isEmpty { return quiesce(&s) }
        let defaultIndex = candidates.firstIndex { $0.key == unit.actor && s.units[unit.id]?.status == .ready }
            ?? candidates.indices.min { candidates[$0].since < candidates[$1].since }!
        var chosen = defaultIndex
        if s.mode == .controlling {
            guard let choice = choose(&s, among: candidates, defaultIndex: defaultIndex, from: unit, point: point, context: context, addresses: addresses)
            else { return .all(s.release()) }
            chosen = choice
        }
        if candidates.count > 1 {
            switch candidates[chosen].target {
            case .timeout(let id): s.units[id]?.earlyTime += 1
            case .resume(let id) where s.units[id]?.status == .sleeping || s.units[id]?.status == .spinning:
                s.units[id]?.earlyTime += 1
            default: break
            }
        }
        if case .fire(let id) = candidates[chosen].target {
            // Virtual time passed up to this timer's deadline: its block is on its queue
            // now, and the choice of who runs is taken again.
            s.fireTimer(id)
            return decide(&s, from: unit, point: point, context: context, addresses: addresses)
        }
        return apply(candidates[chosen].target, &s, caller: unit)
    }

    /// Records that `unit` reached `point`, so that it is a candidate again when it can go
    /// on; `.awaitTurn` when it came back from an uncontrolled wait while another unit
    /// has the turn.
    private func noteArrival(_ s: inout State, of unit: ThreadUnit, at point: SchedulingPoint, addresses: [UInt]) -> Handoff? {
        s.progress += 1
        s.units[unit.id]?.realWait = false
        if s.units[unit.id]?.outside == true {
            // Back from an uncontrolled wait: the turn is another unit's; wait to be chosen.
            s.units[unit.id]?.outside = false
            s.sequence += 1
            s.units[unit.id]?.since = s.sequence
            if let running = s.running, running != unit.id, s.units[running] != nil { return .awaitTurn }
        }
        if unit.scheduler === self, s.units[unit.id]?.status != .done {
            s.units[unit.id]?.pendingPoint = point
            s.units[unit.id]?.pendingAddresses = addresses
            switch s.units[unit.id]?.status {
            case .ready?, .sleeping?, .spinning?, .blocked?:
                s.sequence += 1
                s.units[unit.id]?.since = s.sequence
            default: break
            }
        }
        return nil
    }

    /// The strategy's choice among `candidates`, recorded as a step; nil when the run
    /// ends instead (the replayed schedule diverged, or the choice reaches explore's limit).
    private func choose(
        _ s: inout State, among candidates: [Candidate], defaultIndex: Int, from unit: ThreadUnit,
        point: SchedulingPoint, context: String?, addresses: [UInt]
    ) -> Int? {
        let keys = candidates.map(\.key)
        var chosen = defaultIndex
        var question = SchedulingDecision(step: s.steps.count, enabled: keys, defaultIndex: defaultIndex, actor: unit.actor, point: point, context: context)
        if describesCandidates {
            question.candidates = candidates.map { .init(point: $0.point, context: $0.key == "driver" ? nil : s.queues[$0.key]?.name) }
        }
        switch chooser(question) {
        case .run(let index):
            chosen = keys.indices.contains(index) ? index : defaultIndex
        case .diverged(let why):
            // A report writes "KIND: MESSAGE": the message does not start with its kind,
            // nor say the step twice when the chooser's reason names it (a portfolio's does).
            let step = s.steps.count
            let named = "diverged at step \(step): "
            let reason = why.hasPrefix(named) ? String(why.dropFirst(named.count)) : why
            s.fail(ControlledRunFailure(
                kind: .diverged, message: "the replayed schedule diverged at step \(step): \(reason)", step: step))
            return nil
        }
        let picked = candidates[chosen]
        if let limit = limitReached(by: picked, s) {
            // Beyond what virtual time models: say so, rather than judge the program.
            s.fail(ControlledRunFailure(kind: .limit, message: limit, step: s.steps.count))
            return nil
        }
        s.steps.append(ControlledStep(
            step: s.steps.count, actor: unit.actor, point: point, contextName: context,
            addresses: addresses, enabled: keys, defaultIndex: defaultIndex, chosen: chosen,
            chosenPoint: picked.point, chosenContext: picked.key == "driver" ? nil : s.queues[picked.key]?.name,
            chosenAddresses: picked.addresses))
        return chosen
    }

    enum Target { case resume(Int), start(String), grant(String), timeout(Int), fire(Int) }

    static let earlyTimeLimit = 3

    /// What waits for virtual time to pass (sleeps, timers, timeouts, a run loop's wait)
    /// comes after everything that can run now in FIFO order: a plain run is fast.
    static let virtualTime = 1 << 40
    struct Candidate {
        var key: String
        var since: Int
        var target: Target
        /// What the candidate does when chosen, and where.
        var point: SchedulingPoint
        var addresses: [UInt]
        /// Its key's place in the canonical order, read once.
        let rank: Int

        init(key: String, since: Int, target: Target, point: SchedulingPoint, addresses: [UInt]) {
            self.key = key
            self.since = since
            self.target = target
            self.point = point
            self.addresses = addresses
            rank = ControlledScheduler.canonicalRank(key)
        }
    }

    /// The actors that may run now, in canonical order: "driver", "main", "q1", "q2"...
    func enabledCandidates(_ s: State) -> [Candidate] {
        var candidates: [Candidate] = []
        candidates.reserveCapacity(8)
        var late: [Candidate] = []
        let longWaits = addUnitCandidates(s, to: &candidates, late: &late)
        addTimerCandidates(s, to: &candidates, late: &late)
        for id in longWaits {
            guard let unit = s.units[id] else { continue }
            late.append(Candidate(
                key: unit.actor, since: Self.virtualTime + unit.since, target: .timeout(id), point: .timeout, addresses: unit.pendingAddresses))
        }
        addQueueCandidates(s, to: &candidates)
        // A watchdog's deadline or a long timeout passes only when nothing else can run.
        if candidates.isEmpty { candidates = late }
        candidates.sort { $0.rank < $1.rank }
        return candidates
    }

    /// The units that can go on: ready ones, and those waiting for virtual time to pass
    /// (late once they were passed over `earlyTimeLimit` times). Returns the units in a
    /// long wait, whose timeouts are late candidates after the timers'.
    private func addUnitCandidates(_ s: State, to candidates: inout [Candidate], late: inout [Candidate]) -> [Int] {
        var longWaits: [Int] = []
        for (id, unit) in s.units {
            if isLongWait(unit.status) { longWaits.append(id) }
            let waitsForTime: Bool
            switch unit.status {
            case .sleeping, .spinning, .blocked(_, timeout: .short): waitsForTime = true
            default: waitsForTime = false
            }
            if waitsForTime && unit.earlyTime >= Self.earlyTimeLimit {
                let timeout: Bool = { if case .blocked = unit.status { true } else { false } }()
                late.append(Candidate(
                    key: unit.actor, since: Self.virtualTime + unit.since, target: timeout ? .timeout(id) : .resume(id),
                    point: timeout ? .timeout : unit.pendingPoint, addresses: unit.pendingAddresses))
                continue
            }
            switch unit.status {
            case .ready:
                candidates.append(Candidate(
                    key: unit.actor, since: unit.since, target: .resume(id), point: unit.pendingPoint, addresses: unit.pendingAddresses))
            case .sleeping, .spinning:
                candidates.append(Candidate(
                    key: unit.actor, since: Self.virtualTime + unit.since, target: .resume(id), point: unit.pendingPoint,
                    addresses: unit.pendingAddresses))
            case .blocked(_, timeout: .short):
                candidates.append(Candidate(
                    key: unit.actor, since: Self.virtualTime + unit.since, target: .timeout(id), point: .timeout,
                    addresses: unit.pendingAddresses))
            default: break
            }
        }
        return longWaits
    }

    /// The timers whose deadline is the earliest: virtual time is monotonic, so only they
    /// may pass next (a long one, late).
    private func addTimerCandidates(_ s: State, to candidates: inout [Candidate], late: inout [Candidate]) {
        var earliest: UInt64?
        for timer in s.timers where earliest.map({ timer.deadline < $0 }) ?? true { earliest = timer.deadline }
        guard let earliest else { return }
        for timer in s.timers where timer.deadline == earliest {
            let candidate = Candidate(
                key: "t" + String(timer.id), since: Self.virtualTime + timer.id, target: .fire(timer.id), point: .timerFire,
                addresses: timer.addresses)
            if timer.isLong { late.append(candidate) } else { candidates.append(candidate) }
        }
    }

    /// The queues whose head can start: a block, or a waiter's turn.
    private func addQueueCandidates(_ s: State, to candidates: inout [Candidate]) {
        let mainServed = s.mainQueueServed
        for (key, queue) in s.queues {
            guard !queue.busy, let head = queue.items.first else { continue }
            if s.holdsBack(key) { continue }  // a barrier's rule, a serial target's order
            switch head {
            case .block(_, let addresses):
                // A main-queue block needs the main thread free to run it.
                if key == "main" && !mainServed { continue }
                candidates.append(Candidate(key: key, since: queue.since, target: .start(key), point: .blockStart, addresses: addresses))
            case .waiter(let id):
                // So does a `DispatchQueue.main.sync` (or main-queue `performAndWait`) from
                // another thread: libdispatch runs its block on the main thread, which must
                // wait in its run loop (or have left through dispatchMain()) to run it.
                if key == "main" && !mainServed { continue }
                let waiter = s.units[id]
                candidates.append(Candidate(
                    key: key, since: queue.since, target: .grant(key), point: waiter?.pendingPoint ?? .performAndWait,
                    addresses: waiter?.pendingAddresses ?? []))
            }
        }
    }

    /// Explore's own limit, when choosing `picked` lets a long deadline (a watchdog's, a
    /// test's timeout: set more than a second ahead) pass in virtual time while another
    /// unit still has work that a real run does long before it: a sleep or a short timed
    /// wait to go on from. Such a deadline
    /// passes first only because virtual time keeps no durations for those, so what the
    /// run does after it says nothing of the program. Nil when nothing is pending.
    func limitReached(by picked: Candidate, _ s: State) -> String? {
        switch picked.target {
        case .fire(let id):
            guard let timer = s.timers.first(where: { $0.id == id }), timer.isLong else { return nil }
            return limitMessage(passing: "the deadline of timer \(picked.key) (set more than a second ahead: a watchdog's, a test's timeout)", s)
        case .timeout(let id):
            guard let unit = s.units[id], isLongWait(unit.status) else { return nil }
            return limitMessage(passing: "\(unit.actor)'s wait timeout (more than a second)", s, except: id)
        default: return nil
        }
    }

    /// Explore's limit if `deadline` passed now: the units (but `except`) with work a real
    /// run does before a deadline of seconds, named; nil when there is none. A unit blocked
    /// in the kernel (`outside`) is not counted: the watcher flags a thread that is there for
    /// a moment too (XCTest's own queues run for real), and counting it made replays of
    /// real failures end as the limit at random.
    func limitMessage(passing deadline: String, _ s: State, except: Int? = nil) -> String? {
        var pending: [String] = []
        for (id, unit) in s.units where id != except {
            switch unit.status {
            case .sleeping: pending.append("\(unit.actor) (in a sleep)")
            case .blocked(_, timeout: .short): pending.append("\(unit.actor) (in a wait with a timeout of a second or less)")
            default: break
            }
        }
        guard !pending.isEmpty else { return nil }
        return "explore's limit: \(deadline) would pass in virtual time while "
            + pending.sorted().joined(separator: ", ")
            + " still had work that a real run does before it; explore keeps no durations of such waits, so this schedule says "
            + "nothing of the program (not an ordering bug, not a hang)"
    }

    func isLongWait(_ status: UnitStatus) -> Bool {
        if case .blocked(_, timeout: .long) = status { true } else { false }
    }

    /// driver, main, q1, q2..., then timers t0, t1... (ExploreModel's ActorKey puts
    /// every key it does not know after the queues too).
    static func canonicalRank(_ key: String) -> Int {
        switch key {
        case "driver": 0
        case "main": 1
        default:
            if key.first == "t" { Int.max / 2 + (Int(key.dropFirst()) ?? 0) } else { 1 + (Int(key.dropFirst()) ?? Int.max / 4) }
        }
    }

    func apply(_ target: Target, _ s: inout State, caller: ThreadUnit) -> Handoff {
        switch target {
        case .resume(let id):
            s.units[id]?.status = .running
            s.running = id
            if let resume = s.units[id]?.pendingResume {
                s.units[id]?.pendingResume = nil
                s.vacantDriver = true
                return .resumeTask(resume)
            }
            return id == caller.id ? .continueCaller : .resume(s.units[id]!.semaphore)
        case .start(let key):
            let block: @Sendable () -> Void
            guard case .block(let b, _)? = s.queues[key]?.items.removeFirst() else { return .none }
            block = b
            let unit = s.makeUnit(actor: key, scheduler: self)
            s.units[unit.id]?.status = .running
            s.running = unit.id
            s.queues[key]?.busy = true
            s.queues[key]?.holder = key
            if key == "main", let host = s.mainThreadUnit, s.units[host]?.status == .spinning {
                // The main thread waits in its run loop: it wakes there to run the block.
                s.units[host]?.status = .hosting
                s.units[host]?.hosted = .block(block, unit)
                return .startHosted(s.units[host]!.semaphore, hostID: host)
            }
            return .start(s.queues[key]!.real, block, unit, key)
        case .grant(let key):
            guard case .waiter(let id)? = s.queues[key]?.items.removeFirst() else { return .none }
            s.queues[key]?.busy = true
            s.queues[key]?.holder = s.units[id]?.actor
            s.units[id]?.status = .running
            s.running = id
            if key == "main", let host = s.mainThreadUnit, host != id, s.units[host]?.status == .spinning {
                // The main thread waits in its run loop: libdispatch runs the waiter's block
                // there, so the main thread stays in its wait until the waiter hands the
                // block over (`hostMainSync`) and has run it.
                s.units[host]?.status = .hosting
                s.units[host]?.servesSyncOf = id
            }
            return id == caller.id ? .continueCaller : .resume(s.units[id]!.semaphore)
        case .timeout(let id):
            s.units[id]?.timedOut = true
            s.units[id]?.status = .running
            s.running = id
            return id == caller.id ? .continueCaller : .resume(s.units[id]!.semaphore)
        case .fire:
            return .none  // taken in `decide`
        }
    }

    /// Nothing can run: the run drained (wake the drain), or it deadlocked.
    func quiesce(_ s: inout State) -> Handoff {
        // A unit blocked outside the scheduler may still come back and wake the others:
        // not a deadlock yet (the watchdog reports a hang if nothing moves).
        if s.units.contains(where: { $0.value.status == .outside }) {
            s.running = nil
            return .awaitTurn
        }
        let live = s.units.filter { $0.value.status != .done }
        let drainers = live.filter { $0.value.status == .draining }
        let idle = s.queues.values.allSatisfy { !$0.busy && $0.items.isEmpty }
        if live.count == drainers.count && idle {
            guard let (id, _) = drainers.min(by: { $0.key < $1.key }) else { return .none }
            s.units[id]?.status = .running
            s.running = id
            return .resume(s.units[id]!.semaphore)
        }
        let waiters = live.compactMap { id, unit -> (Int, String)? in
            if case .waiting(let key) = unit.status { (id, key) } else { nil }
        }.sorted { $0.0 < $1.0 }
        let blocked = live.compactMap { id, unit -> (String, String)? in
            if case .blocked(let key, _) = unit.status { (unit.actor, key) } else { nil }
        }.sorted { $0.0 < $1.0 }
        let mainWaits = !s.mainQueueServed && s.queues["main"].map { !$0.items.isEmpty } == true
        if waiters.isEmpty && (!blocked.isEmpty || mainWaits) {
            // A modelled wait nothing of the run will end: the program hangs here.
            if s.mode == .controlling {
                var lines = blocked.map { actor, key in "\(actor) waits on \(Self.describeWaitKey(key)) that no unit of the run can signal any more" }
                if mainWaits {
                    let holder = s.mainThreadUnit.flatMap { s.units[$0]?.actor } ?? "?"
                    lines.append("main-queue blocks wait for the main thread, which \(holder) keeps busy (it never returns to its run loop or dispatchMain())")
                }
                s.fail(ControlledRunFailure(
                    kind: .hang, message: "no unit can run: " + lines.joined(separator: "; "), step: s.steps.count))
            }
            return .all(s.release())
        }
        if s.mode == .controlling {
            s.fail(ControlledRunFailure(kind: .deadlock, message: deadlockMessage(s, waiters), step: s.steps.count))
            s.mode = .aborting
        }
        guard let (id, key) = waiters.first else { return .all(s.release()) }
        // Unwind: the oldest waiter runs its block at once, off its queue's turn.
        s.queues[key]?.items.removeAll { if case .waiter(id) = $0 { true } else { false } }
        s.units[id]?.forced = true
        s.units[id]?.status = .running
        s.running = id
        return .resume(s.units[id]!.semaphore)
    }

    static func describeWaitKey(_ key: String) -> String {
        if key.hasPrefix("semaphore:") { return "a semaphore (\(key.dropFirst("semaphore:".count)))" }
        if key.hasPrefix("group:") { return "a dispatch group (\(key.dropFirst("group:".count)))" }
        if key.hasPrefix("apply:") { return "the iterations of a dispatch_apply" }
        return key
    }

    func deadlockMessage(_ s: State, _ waiters: [(Int, String)]) -> String {
        let lines = waiters.map { id, key -> String in
            let waiter = s.units[id]?.actor ?? "?"
            let name = s.queues[key].map { "\(key) (\($0.name))" } ?? key
            let holder = s.queues[key]?.holder.map { ", held by \($0)'s block" } ?? ""
            return "\(waiter) waits in performAndWait for \(name)\(holder)"
        }
        let blocked = s.units.compactMap { _, unit -> String? in
            if case .blocked(let key, _) = unit.status { "\(unit.actor) waits on \(Self.describeWaitKey(key))" } else { nil }
        }.sorted()
        return "no unit can run. " + (lines + blocked).joined(separator: "; ")
    }
}
