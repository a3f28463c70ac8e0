@_spi(Runtime) import ConcurrencyDebug
import CtxdebugHelpers
import Dispatch
import Foundation
import Histogram
import Synchronization

/// One hang: the main queue did not answer for at least the threshold.
struct HangRecord: Sendable {
    var label: String
    var start: UInt64
    var end: UInt64?
    var samples: [[UInt]] = []
}

/// Per-label totals of main-queue work items.
struct WorkItemStats: Sendable {
    var count = 0
    var totalNs: UInt64 = 0
    var maxNs: UInt64 = 0
}

/// Watches the real main queue: frame lateness, every main-queue work item the
/// replay puts there (by label), and hangs, with stacks sampled by a watchdog
/// thread while the main queue is blocked.
///
/// Main-queue work goes through `onMain(_:_:)`, which records the start time, the
/// label and the pthread running it (under `dispatchMain()` on Linux the main queue
/// runs on a worker thread, not the process's main thread), so the watchdog knows
/// which thread to sample.
final class MainQueueMonitor: Sendable {
    struct Current: Sendable {
        var serial: UInt64
        var label: String
        var start: UInt64
        var thread: UInt
    }

    private struct State: Sendable {
        var current: Current?
        var nextSerial: UInt64 = 1
        var items: [String: WorkItemStats] = [:]
        var frameLatency = Histogram<UInt64>(highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: .three)
        var frames = 0
        var hitches = 0
        var hitchTimeNs: UInt64 = 0
        var maxLatencyNs: UInt64 = 0
        var hangs: [HangRecord] = []
        /// The hang of the item running now, by index into `hangs`.
        var openHang: (serial: UInt64, index: Int)?
        var lastFrameStart: UInt64 = 0
        var measuring = false
        /// Each measured frame: when it was due and when it started.
        var frameTicks: [TraceData.FrameTick] = []
        /// Every work item, when recording a trace.
        var itemLog: [TraceData.Slice] = []
    }

    private let state = LockedValue(State())
    let frameInterval: UInt64
    let hangThreshold: UInt64
    let recordItems: Bool

    init(fps: Int, hangThresholdMs: Double, recordItems: Bool = false) {
        frameInterval = UInt64(1e9 / Double(max(1, fps)))
        hangThreshold = UInt64(hangThresholdMs * 1e6)
        self.recordItems = recordItems
        StackSampler.install()
    }

    func setMeasuring(_ on: Bool) { state.withLock { $0.measuring = on } }

    /// Runs `work` on the main queue as one measured work item.
    func onMain(_ label: String, _ work: @escaping @MainActor @Sendable () -> Void) {
        DispatchQueue.main.async { [self] in
            run(label) { MainActor.assumeIsolated { work() } }
        }
    }

    /// Runs `work` on the main queue and waits for it (from a non-main thread).
    func onMainAndWait<T: Sendable>(_ label: String, _ work: @escaping @MainActor @Sendable () -> T) -> T {
        let box = LockedValue<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        onMain(label) {
            let value = work()
            box.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return box.withLock { $0! }
    }

    /// Measures one main-queue work item. The block runs as the main queue's owner
    /// for the checker: it is main-queue code (this saves a queue-specific lookup
    /// per access; the checker would find the main queue anyway).
    func run(_ label: String, _ work: () -> Void) {
        // `dispatched: false`: the monitor's own work items are on the main queue by
        // construction, so no level-2 check (and no description) is needed.
        let thread = StackSampler.currentThread
        let start = MonotonicClock.now()
        let (serial, measured) = state.withLock { s -> (UInt64, Bool) in
            let serial = s.nextSerial
            s.nextSerial += 1
            s.current = Current(serial: serial, label: label, start: start, thread: thread)
            return (serial, s.measuring)
        }
        ConcurrencyDebug.entering(.main, dispatched: false, describedBy: { AccessDescription(operation: label, ownerQueueLabel: "com.apple.main-thread", fixHint: "") }) { work() }
        let end = MonotonicClock.now()
        state.withLock { s in
            s.current = nil
            if let open = s.openHang, open.serial == serial {
                s.hangs[open.index].end = end
                s.openHang = nil
            }
            if recordItems { s.itemLog.append(.init(name: label, queue: QueueIdentity.main.label, start: start, end: end)) }
            guard measured && s.measuring else { return }
            var stats = s.items[label] ?? WorkItemStats()
            stats.count += 1
            stats.totalNs += end - start
            stats.maxNs = max(stats.maxNs, end - start)
            s.items[label] = stats
        }
    }

    /// Records a frame starting now that was due at `due`.
    func frameStarted(due: UInt64) {
        let now = MonotonicClock.now()
        let late = now > due ? now - due : 0
        state.withLock { s in
            s.lastFrameStart = now
            guard s.measuring else { return }
            s.frames += 1
            s.frameTicks.append(.init(index: s.frameTicks.count, due: due, start: now))
            _ = s.frameLatency.record(max(1, min(late, 120_000_000_000) / 1_000))  // microseconds
            s.maxLatencyNs = max(s.maxLatencyNs, late)
            if late > frameInterval {
                s.hitches += 1
                s.hitchTimeNs += late
            }
        }
    }

    var lastFrameStart: UInt64 { state.withLock { $0.lastFrameStart } }
    var current: Current? { state.withLock { $0.current } }

    // MARK: Watchdog side

    /// Called by the watchdog: the item running now has run past the threshold.
    /// Returns the thread to sample and the index of its hang record.
    func noteLongItem(_ c: Current) -> Int? {
        state.withLock { s in
            guard s.current?.serial == c.serial else { return nil }
            if let open = s.openHang, open.serial == c.serial { return open.index }
            s.hangs.append(HangRecord(label: c.label, start: c.start))
            s.openHang = (c.serial, s.hangs.count - 1)
            return s.hangs.count - 1
        }
    }

    func addSample(_ addresses: [UInt], toHang index: Int) {
        guard !addresses.isEmpty else { return }
        state.withLock { s in
            if s.hangs[index].samples.count < 8 { s.hangs[index].samples.append(addresses) }
        }
    }

    /// A stall of work the replay did not put there (a `performAndWait` of another
    /// context run through the main queue with `queue.sync`, for example).
    func noteUntrackedStall(start: UInt64, end: UInt64) {
        state.withLock { s in
            guard s.measuring else { return }
            s.hangs.append(HangRecord(label: "(main queue held by other work: performAndWait or sync)", start: start, end: end))
        }
    }

    // MARK: Results

    struct Snapshot: Sendable {
        var frames: Int
        var hitches: Int
        var hitchTimeNs: UInt64
        var latency: Histogram<UInt64>
        var maxLatencyNs: UInt64
        var items: [String: WorkItemStats]
        var hangs: [HangRecord]
        var frameTicks: [TraceData.FrameTick]
        var itemLog: [TraceData.Slice]
    }

    func snapshot() -> Snapshot {
        state.withLock { s in
            Snapshot(
                frames: s.frames, hitches: s.hitches, hitchTimeNs: s.hitchTimeNs, latency: s.frameLatency,
                maxLatencyNs: s.maxLatencyNs, items: s.items, hangs: s.hangs, frameTicks: s.frameTicks, itemLog: s.itemLog)
        }
    }
}

/// A thread that notices when the main queue has not answered for the hang
/// threshold, and samples the stack of the code blocking it.
final class Watchdog: Sendable {
    private let monitor: MainQueueMonitor
    private let thread = MonitorThread(name: "ctxdebug.watchdog")
    /// When the outstanding ping was sent (0: none outstanding).
    private let pingSent = Atomic<UInt64>(0)

    init(monitor: MainQueueMonitor) {
        self.monitor = monitor
    }

    func start() { thread.start { [self] in loop() } }

    func stop() { thread.stop() }

    private func loop() {
        let threshold = monitor.hangThreshold
        var lastSampleAt: UInt64 = 0
        var lastSerial: UInt64 = 0
        var untrackedStart: UInt64 = 0
        while !thread.isStopped {
            usleep(5_000)
            let now = MonotonicClock.now()
            if let c = monitor.current {
                untrackedStart = 0
                // `current` may have started after `now` was read.
                if now > c.start, now - c.start >= threshold, let index = monitor.noteLongItem(c) {
                    if c.serial != lastSerial || now - lastSampleAt >= 100_000_000 {
                        lastSerial = c.serial
                        lastSampleAt = now
                        let addresses = StackSampler.sample(c.thread)
                        // Only keep the sample if the same item is still running.
                        if monitor.current?.serial == c.serial { monitor.addSample(addresses, toHang: index) }
                    }
                }
                continue
            }
            // No replay work is running: ping the main queue to see if it answers.
            let sent = pingSent.load(ordering: .relaxed)
            if sent == 0 {
                pingSent.store(now, ordering: .relaxed)
                DispatchQueue.main.async { [self] in
                    let sentAt = pingSent.exchange(0, ordering: .relaxed)
                    let answered = MonotonicClock.now()
                    if sentAt != 0 && answered - sentAt >= threshold && monitor.current == nil {
                        monitor.noteUntrackedStall(start: sentAt, end: answered)
                    }
                }
            } else if now - sent >= threshold && untrackedStart == 0 {
                untrackedStart = sent
            }
        }
    }
}

/// The display's clock: puts one frame at a time on the main queue at `fps`, as a
/// display link does. A frame is posted at its due time; the next one is due at the
/// first tick after the previous frame started, so a blocked main queue shows as
/// one very late frame (and skipped ticks), not a pile of queued frames.
final class FrameClock: Sendable {
    private let monitor: MainQueueMonitor
    private let frameWork: @MainActor @Sendable (Int) -> Void
    private let thread = MonitorThread(name: "ctxdebug.frame-clock")

    init(monitor: MainQueueMonitor, frameWork: @escaping @MainActor @Sendable (Int) -> Void) {
        self.monitor = monitor
        self.frameWork = frameWork
    }

    func start() { thread.start { [self] in loop() } }

    func stop() { thread.stop() }

    private func loop() {
        let interval = monitor.frameInterval
        var due = MonotonicClock.now() + interval
        var index = 0
        while !thread.isStopped {
            sleepUntil(due)
            if thread.isStopped { break }
            let started = DispatchSemaphore(value: 0)
            let frameIndex = index
            let frameDue = due
            let work = frameWork
            monitor.onMain("frame") { [monitor] in
                monitor.frameStarted(due: frameDue)
                started.signal()
                work(frameIndex)
            }
            // Wait for the frame to start (the main queue may be blocked), checking
            // now and then whether the replay is over.
            while started.wait(timeout: .now() + .milliseconds(20)) == .timedOut {
                if thread.isStopped { break }
            }
            index += 1
            let startedAt = max(monitor.lastFrameStart, due)
            due += interval
            while due <= startedAt { due += interval }
        }
    }

    private func sleepUntil(_ deadline: UInt64) {
        while true {
            let now = MonotonicClock.now()
            if now >= deadline || thread.isStopped { return }
            let remaining = deadline - now
            usleep(UInt32(min(remaining / 1_000, 20_000)))
        }
    }
}

/// The thread of the watchdog and of the frame clock: a user-interactive thread of the
/// replay's own that runs its loop until `stop()`, which waits for the loop to end.
final class MonitorThread: Sendable {
    private let name: String
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(name: String) { self.name = name }

    /// Whether `stop()` was called: the loop checks it and returns.
    var isStopped: Bool { stopped.load(ordering: .relaxed) }

    func start(_ loop: @escaping @Sendable () -> Void) {
        let thread = Thread { [finished] in
            loop()
            finished.signal()
        }
        thread.name = name
        thread.qualityOfService = .userInteractive
        thread.start()
    }

    /// Tells the loop to stop and waits until it has.
    func stop() {
        stopped.store(true, ordering: .relaxed)
        finished.wait()
    }
}
