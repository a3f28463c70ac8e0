@_spi(Runtime) import ConcurrencyDebug
import CtxdebugHelpers
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Waits the scheduler does not model (a lock of the app's, a pipe, a socket), in a
/// process whose libdispatch is controlled (docs/explore.md, "Waits it cannot model").
/// A thread watches the unit that holds the turn: when it sits blocked in the kernel
/// (its state in /proc is `S` or `D`) for `threshold` while the run stands still, the
/// turn passes on and the step is recorded as `uncontrolled-wait`. The unit rejoins the
/// schedule at its next point, waiting for its turn there. Only when nothing can run and
/// nothing comes back for the hang timeout is the run a hang, with every unit's stack.
enum UncontrolledWaits {
    /// How long a unit holding the turn may sit blocked in the kernel before the turn
    /// passes on: far above a brief lock of the runtime's or of malloc, far below a hang.
    static let threshold: Double = 0.05

    /// The calling thread's kernel id.
    static var currentTID: Int32 { StackSampler.currentKernelThreadID }

    /// Watches the run `watched` gives (the process's, or the in-process run of now).
    static func start(_ watched: @escaping @Sendable () -> ControlledScheduler?) {
        let thread = Thread {
            var seen: (run: ObjectIdentifier, progress: Int, unit: Int, since: UInt64)?
            while true {
                usleep(5_000)  // not a unit: the real sleep
                guard let scheduler = watched(), let (progress, unit, tid) = scheduler.runningUnitSnapshot(), isBlockedInKernel(tid) else {
                    seen = nil
                    continue
                }
                let now = MonotonicClock.now()
                guard let last = seen, last.run == ObjectIdentifier(scheduler), last.progress == progress, last.unit == unit else {
                    seen = (ObjectIdentifier(scheduler), progress, unit, now)
                    continue
                }
                if Double(now - last.since) / 1e9 >= threshold {
                    scheduler.noticeOutside(progress: progress, unitID: unit)
                    seen = nil
                }
            }
        }
        thread.name = "ctxdebug explore uncontrolled waits"
        thread.start()
    }

    /// Whether thread `tid` of this process sleeps in the kernel (`S`) or waits on I/O (`D`).
    static func isBlockedInKernel(_ tid: Int32) -> Bool {
        let fd = open("/proc/self/task/\(tid)/stat", O_RDONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 512) }
        guard count > 0 else { return false }
        // "tid (comm) S ...": the state follows the last ')' (a name may hold one).
        guard let close = buffer[0..<count].lastIndex(of: UInt8(ascii: ")")), close + 2 < count else { return false }
        let state = buffer[close + 2]
        return state == UInt8(ascii: "S") || state == UInt8(ascii: "D")
    }
}

extension ControlledScheduler {
    /// The unit holding the turn, while the run is controlled: the run's progress, its id
    /// and its kernel thread id (nil when none, or its thread is not known yet, or the
    /// main thread waits in its run loop for real).
    func runningUnitSnapshot() -> (Int, Int, Int32)? {
        state.withLock { s in
            guard s.mode == .controlling, let id = s.running, let unit = s.units[id], unit.status == .running, unit.tid != 0,
                !unit.realWait
            else { return nil }
            return (s.progress, id, unit.tid)
        }
    }

    /// The unit `unitID` has been blocked in the kernel with the turn since the run
    /// reached `progress`: the turn passes on (a step `uncontrolled-wait`).
    func noticeOutside(progress: Int, unitID: Int) {
        let action = state.withLock { s -> Handoff? in
            guard s.mode == .controlling, s.progress == progress, s.running == unitID, let held = s.units[unitID], held.status == .running
            else { return nil }
            s.units[unitID]?.status = .outside
            s.touchedUncontrolledWait = true
            s.running = nil
            let unit = ThreadUnit(id: unitID, actor: held.actor, semaphore: held.semaphore, scheduler: self, task: held.task)
            let action = decide(&s, from: unit, point: .uncontrolledWait, addresses: [])
            // Set after deciding: the unit's own next point sees it and waits for its turn.
            s.units[unitID]?.outside = true
            return action
        }
        action?.perform(self)
    }

    /// A hang while some unit is blocked outside the scheduler: nothing can run and
    /// nothing came back. Fails the run with every unit's stack. Returns false when no
    /// unit is outside (the ordinary hang of a unit holding the turn).
    func recordOutsideHang(after seconds: Double) -> Bool {
        let units = state.withLock { s -> [(actor: String, thread: UInt, outside: Bool)]? in
            guard s.mode != .released, s.units.contains(where: { $0.value.status == .outside }) else { return nil }
            return s.units.map { ($0.value.actor, $0.value.thread, $0.value.status == .outside) }
        }
        guard let units else { return false }
        var sections: [String] = []
        for unit in units where unit.thread != 0 {
            let addresses = StackSampler.sample(unit.thread, timeoutMs: StackSampler.reportTimeoutMs)
            let title = unit.actor + (unit.outside ? " (blocked in the kernel, outside the scheduler)" : " (waiting for its turn)")
            sections.append(title + ":\n" + StackTrace.symbolicate(addresses).map { "  " + $0 }.joined(separator: "\n"))
        }
        let names = units.filter(\.outside).map(\.actor).joined(separator: ", ")
        let handoffs = state.withLock { s -> [Handoff] in
            s.fail(ControlledRunFailure(
                kind: .hang,
                message: "nothing can run and nothing woke for \(seconds) s: \(names) blocked in the kernel outside the "
                    + "scheduler (an uncontrolled wait: a lock of the app's, a pipe, a socket) while every other unit waits "
                    + "for it. The stacks of every unit's thread follow.",
                step: s.steps.count, detail: sections.joined(separator: "\n\n")))
            return s.release()
        }
        for handoff in handoffs { handoff.perform(self) }
        return true
    }
}
