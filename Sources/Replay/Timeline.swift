import ConcurrencyDebug
import CtxdebugHelpers
import Dispatch
import ManagedContext

/// What happened over time in one scenario, for charts (`--html`): each frame's
/// start and lateness, and the spans of the scenario's own work. Part of the JSON
/// report (schema 1, optional field `timeline`).
public struct Timeline: Codable, Sendable {
    /// When each measured frame started, in ms from the start of the run.
    public var frameStartMs: [Double]
    /// How late each frame started against its due time, in ms (same order).
    public var frameLatencyMs: [Double]
    /// The export, each search and each sync burst, in start order.
    public var spans: [Span]

    public struct Span: Codable, Sendable, Hashable {
        /// `export`, `search` or `sync`.
        public var kind: String
        /// What it was (`export on main`, `search 2`, `sync burst 3`).
        public var label: String
        public var startMs: Double
        public var endMs: Double
    }

    public init(frameStartMs: [Double] = [], frameLatencyMs: [Double] = [], spans: [Span] = []) {
        self.frameStartMs = frameStartMs
        self.frameLatencyMs = frameLatencyMs
        self.spans = spans
    }
}

/// One distinct violation (same kind, same stack) seen during a scenario. Part of
/// the JSON report (schema 1, optional field `violations`), filled in when checking
/// was on in `report` or `log` mode (in `trap` mode the first one ends the process).
public struct ViolationRecord: Codable, Sendable, Hashable {
    public var kind: String
    /// The headline ("BUG DETECTED: ...").
    public var message: String
    /// What was done: operation, entity and attribute.
    public var access: String
    public var ownerQueue: String
    public var contextName: String?
    /// The queue and thread that made the access.
    public var queue: String
    public var thread: String
    public var fixHint: String
    /// How many times it happened in the scenario, and when first (ms from the run's start).
    public var count: Int
    public var firstMs: Double
    /// Innermost first, the checker's frames dropped.
    public var stack: [ScenarioResult.Frame]
}

/// The raw timeline of a scenario for `--trace`: absolute times in
/// `DispatchTime` uptime nanoseconds. Not part of the JSON report.
public struct TraceData: Sendable {
    public struct Slice: Sendable, Hashable {
        public var name: String
        /// The queue label of the track it belongs on (`com.apple.main-thread` for main).
        public var queue: String
        public var start: UInt64
        public var end: UInt64
    }

    public struct FrameTick: Sendable, Hashable {
        public var index: Int
        public var due: UInt64
        public var start: UInt64
    }

    public struct ViolationInstant: Sendable, Hashable {
        public var time: UInt64
        public var kind: String
        public var queue: String
        public var message: String
    }

    public var runStart: UInt64
    public var runEnd: UInt64
    /// Every main-queue work item the replay put on the main queue, by label.
    public var mainQueueItems: [Slice]
    /// Each frame the clock posted: when it was due and when it started.
    public var frames: [FrameTick]
    /// The scenario's own spans that sit on one queue (the export, sync bursts).
    public var spans: [Slice]
    /// Perform blocks, fetches, saves and merges of every context, from `ContextInstrumentation`.
    public var runtime: [RuntimeSpan]
    public var violations: [ViolationInstant]

    /// One piece of the runtime's work: a perform block, a fetch, a save or a merge
    /// of a context.
    public struct RuntimeSpan: Sendable, Hashable {
        /// Unique in the run. For a save, also its save id.
        public var id: UInt64
        public enum Kind: String, Sendable, Hashable {
            case perform, performAndWait, fetch, fetchObjectIDs, count, save, merge

            init(_ kind: ContextInstrumentation.Kind) {
                switch kind {
                case .perform: self = .perform
                case .performAndWait: self = .performAndWait
                case .fetch: self = .fetch
                case .fetchObjectIDs: self = .fetchObjectIDs
                case .count: self = .count
                case .save: self = .save
                case .merge: self = .merge
                }
            }
        }
        public var kind: Kind
        public var contextNumber: UInt32
        public var contextName: String?
        /// The label of the context's queue (`com.apple.main-thread` for the main queue).
        public var queueLabel: String
        public var isMainQueue: Bool
        public var start: UInt64
        public var end: UInt64
        /// For a merge: the id of the save whose changes it merges, when known.
        public var saveID: UInt64?

        public init(
            id: UInt64, kind: Kind, contextNumber: UInt32, contextName: String?, queueLabel: String, isMainQueue: Bool,
            start: UInt64, end: UInt64, saveID: UInt64?
        ) {
            self.id = id
            self.kind = kind
            self.contextNumber = contextNumber
            self.contextName = contextName
            self.queueLabel = queueLabel
            self.isMainQueue = isMainQueue
            self.start = start
            self.end = end
            self.saveID = saveID
        }

        init(_ e: ContextInstrumentation.Event) {
            self.init(
                id: e.id, kind: Kind(e.kind), contextNumber: e.contextNumber, contextName: e.contextName,
                queueLabel: e.queueLabel, isMainQueue: e.isMainQueue, start: e.start, end: e.end, saveID: e.saveID)
        }
    }
}

/// Collects the runtime's events while a scenario runs with `--trace`.
final class RuntimeRecorder: ContextInstrumentationObserver {
    private let events = LockedValue<[ContextInstrumentation.Event]>([])
    /// Beyond this many events, the rest are dropped (a trace that large would not
    /// open in a browser anyway).
    static let limit = 2_000_000

    func contextEvent(_ event: ContextInstrumentation.Event) {
        events.withLock { if $0.count < Self.limit { $0.append(event) } }
    }

    var recorded: [TraceData.RuntimeSpan] { events.withLock { $0.map(TraceData.RuntimeSpan.init) } }
}

/// Wraps the built-in handler chosen by `CTXDEBUG_ON_VIOLATION` (report or log) to
/// note when each violation happened, so a scenario can list its own violations and
/// a trace can place them. It forwards everything, so the handler's behaviour (the
/// summary and the exit status 66 at exit, in report mode) is unchanged.
final class TimedViolationHandler: ViolationHandler {
    struct Seen: Sendable {
        var time: UInt64
        var violation: Violation
    }

    static let shared = LockedValue<TimedViolationHandler?>(nil)

    private let inner: any ViolationHandler
    private let seen = LockedValue<[Seen]>([])
    static let limit = 100_000

    init(inner: any ViolationHandler) { self.inner = inner }

    func handle(_ violation: Violation) {
        let now = DispatchTime.now().uptimeNanoseconds
        seen.withLock { if $0.count < Self.limit { $0.append(Seen(time: now, violation: violation)) } }
        inner.handle(violation)
    }

    func processWillExit(_ violations: [Violation]) { inner.processWillExit(violations) }

    var count: Int { seen.withLock { $0.count } }
    func since(_ index: Int) -> [Seen] { seen.withLock { Array($0[min(index, $0.count)...]) } }

    /// Installs the wrapper once per process, when checking is on and does not trap.
    static func installIfNeeded() -> TimedViolationHandler? {
        shared.withLock { current in
            if let current { return current }
            let configuration = ConcurrencyDebug.configuration
            guard configuration.level > 0 else { return nil }
            let inner: any ViolationHandler
            switch configuration.onViolation {
            case .trap: return nil
            case .report: inner = ReportViolationHandler(reportPath: configuration.reportPath, exitCode: configuration.exitCode)
            case .log: inner = LogViolationHandler()
            }
            let handler = TimedViolationHandler(inner: inner)
            ConcurrencyDebug.setViolationHandler(handler)
            current = handler
            return handler
        }
    }

    /// The distinct violations among `seen`, in the order first seen, symbolicated.
    static func records(_ seen: [Seen], runStart: UInt64) -> [ViolationRecord] {
        struct Key: Hashable {
            var kind: String
            var addresses: [UInt]
        }
        var order: [Key] = []
        var groups: [Key: (first: Seen, count: Int)] = [:]
        for s in seen {
            let key = Key(kind: s.violation.kind.rawValue, addresses: s.violation.addresses)
            if let g = groups[key] {
                groups[key] = (g.first, g.count + 1)
            } else {
                order.append(key)
                groups[key] = (s, 1)
            }
        }
        return order.compactMap { key in
            guard let g = groups[key] else { return nil }
            let v = g.first.violation.symbolicated()
            let a = v.access
            let what = a.summary
            var thread = "\(v.threadID)"
            if !v.threadName.isEmpty { thread += " '\(v.threadName)'" }
            return ViolationRecord(
                kind: v.kind.rawValue, message: v.message, access: what, ownerQueue: a.ownerQueueLabel,
                contextName: a.contextName, queue: v.queueLabel, thread: thread, fixHint: a.fixHint, count: g.count,
                firstMs: (Double(g.first.time) - Double(runStart)) / 1e6,
                stack: v.frames.map {
                    ScenarioResult.Frame(
                        function: $0.function ?? "0x" + String($0.address, radix: 16), file: $0.file, line: $0.line,
                        module: $0.moduleName)
                })
        }
    }
}
