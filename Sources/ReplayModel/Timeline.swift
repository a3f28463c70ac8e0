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

        public init(kind: String, label: String, startMs: Double, endMs: Double) {
            self.kind = kind
            self.label = label
            self.startMs = startMs
            self.endMs = endMs
        }
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

    public init(
        kind: String, message: String, access: String, ownerQueue: String, contextName: String? = nil, queue: String,
        thread: String, fixHint: String, count: Int, firstMs: Double, stack: [ScenarioResult.Frame]
    ) {
        self.kind = kind
        self.message = message
        self.access = access
        self.ownerQueue = ownerQueue
        self.contextName = contextName
        self.queue = queue
        self.thread = thread
        self.fixHint = fixHint
        self.count = count
        self.firstMs = firstMs
        self.stack = stack
    }
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

        public init(name: String, queue: String, start: UInt64, end: UInt64) {
            self.name = name
            self.queue = queue
            self.start = start
            self.end = end
        }
    }

    public struct FrameTick: Sendable, Hashable {
        public var index: Int
        public var due: UInt64
        public var start: UInt64

        public init(index: Int, due: UInt64, start: UInt64) {
            self.index = index
            self.due = due
            self.start = start
        }
    }

    public struct ViolationInstant: Sendable, Hashable {
        public var time: UInt64
        public var kind: String
        public var queue: String
        public var message: String

        public init(time: UInt64, kind: String, queue: String, message: String) {
            self.time = time
            self.kind = kind
            self.queue = queue
            self.message = message
        }
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
    /// of a context, as the trace draws it.
    public struct RuntimeSpan: Sendable, Hashable {
        /// Unique in the run.
        public var id: UInt64
        /// What it was, as the trace names it: `perform`, `performAndWait`, `fetch`,
        /// `fetchObjectIDs`, `count`, `save` or `merge`.
        public var name: String
        public var contextNumber: UInt32
        public var contextName: String?
        /// The label of the context's queue (`com.apple.main-thread` for the main queue).
        public var queueLabel: String
        public var isMainQueue: Bool
        public var start: UInt64
        public var end: UInt64
        /// For a save: its id, which the merges of its changes name.
        public var saveID: UInt64?
        /// For a merge: the id of the save whose changes it merges, when known.
        public var mergedSaveID: UInt64?

        public init(
            id: UInt64, name: String, contextNumber: UInt32, contextName: String?, queueLabel: String,
            isMainQueue: Bool,
            start: UInt64, end: UInt64, saveID: UInt64? = nil, mergedSaveID: UInt64? = nil
        ) {
            self.id = id
            self.name = name
            self.contextNumber = contextNumber
            self.contextName = contextName
            self.queueLabel = queueLabel
            self.isMainQueue = isMainQueue
            self.start = start
            self.end = end
            self.saveID = saveID
            self.mergedSaveID = mergedSaveID
        }
    }

    public init(
        runStart: UInt64, runEnd: UInt64, mainQueueItems: [Slice], frames: [FrameTick], spans: [Slice],
        runtime: [RuntimeSpan], violations: [ViolationInstant]
    ) {
        self.runStart = runStart
        self.runEnd = runEnd
        self.mainQueueItems = mainQueueItems
        self.frames = frames
        self.spans = spans
        self.runtime = runtime
        self.violations = violations
    }
}
