import Foundation

/// The result of a replay: what `--format json` writes. Its schema is versioned
/// (`schemaVersion`) and documented in docs/report-format.md.
public struct ReplayReport: Codable, Sendable {
    public static let currentSchemaVersion = 1

    public var schemaVersion = ReplayReport.currentSchemaVersion
    public var tool = "ctxdebug replay"
    public var generatedAt: String
    public var settings: Settings
    public var scenarios: [ScenarioResult]
    public var verdicts: [String]

    public struct Settings: Codable, Sendable {
        public var entries: Int
        public var store: String
        public var fps: Int
        public var durationSeconds: Double
        public var hangThresholdMs: Double
        public var workload: String?
        public var injectBug: String?
        public var checkingLevel: Int
        public var cores: Int
        public var buildConfiguration: String
        /// The Swift compiler that built ctxdebug ("6.3"), and the OS (optional in schema 1).
        public var swiftVersion: String?
        public var operatingSystem: String?

        public init(
            entries: Int, store: String, fps: Int, durationSeconds: Double, hangThresholdMs: Double,
            workload: String? = nil, injectBug: String? = nil, checkingLevel: Int, cores: Int,
            buildConfiguration: String, swiftVersion: String? = nil, operatingSystem: String? = nil
        ) {
            self.entries = entries
            self.store = store
            self.fps = fps
            self.durationSeconds = durationSeconds
            self.hangThresholdMs = hangThresholdMs
            self.workload = workload
            self.injectBug = injectBug
            self.checkingLevel = checkingLevel
            self.cores = cores
            self.buildConfiguration = buildConfiguration
            self.swiftVersion = swiftVersion
            self.operatingSystem = operatingSystem
        }
    }

    public init(generatedAt: String, settings: Settings, scenarios: [ScenarioResult], verdicts: [String]) {
        self.generatedAt = generatedAt
        self.settings = settings
        self.scenarios = scenarios
        self.verdicts = verdicts
    }

    public func scenario(_ name: String) -> ScenarioResult? { scenarios.first { $0.name == name } }
}

/// The figures of one scenario.
public struct ScenarioResult: Codable, Sendable {
    public var name: String
    public var summary: String
    /// How long the measured run lasted.
    public var durationSeconds: Double
    public var frames: FrameFigures
    public var hangs: [Hang]
    /// The main-queue work items with the longest single run, longest first.
    public var longestWorkItems: [WorkItem]
    public var export: ExportFigures?
    public var search: SearchFigures?
    public var sync: SyncFigures?
    public var edits: EditFigures?
    /// Errors the scenario's own work reported (a failed save, for example).
    public var errors: [String]
    /// Frames over time and the spans of the scenario's work (optional in schema 1).
    public var timeline: Timeline?
    /// The distinct concurrency violations seen, when checking was on and did not
    /// trap (optional in schema 1).
    public var violations: [ViolationRecord]?
    /// The list's visible rows when the run ended, as the user saw them (optional in schema 1).
    public var visibleRows: [VisibleRow]?
    /// The raw timeline for `--trace`, when asked for; not written to the JSON report.
    public var trace: TraceData? = nil

    enum CodingKeys: String, CodingKey {
        case name, summary, durationSeconds, frames, hangs, longestWorkItems, export, search, sync, edits, errors
        case timeline, violations, visibleRows
    }

    public struct FrameFigures: Codable, Sendable {
        public var count: Int
        public var latencyMs: Percentiles
        /// Frames that started more than one frame interval late.
        public var hitches: Int
        public var hitchTimeMs: Double
        /// Hitch time per second of run, in ms/s.
        public var hitchRatioMsPerSecond: Double
        /// good (<= 10), warning (<= 25), critical (<= 50), worse.
        public var hitchBand: String
        /// WWDC's aim: 5 ms/s or less.
        public var meetsWWDCAim: Bool

        public init(
            count: Int, latencyMs: Percentiles, hitches: Int, hitchTimeMs: Double, hitchRatioMsPerSecond: Double,
            hitchBand: String, meetsWWDCAim: Bool
        ) {
            self.count = count
            self.latencyMs = latencyMs
            self.hitches = hitches
            self.hitchTimeMs = hitchTimeMs
            self.hitchRatioMsPerSecond = hitchRatioMsPerSecond
            self.hitchBand = hitchBand
            self.meetsWWDCAim = meetsWWDCAim
        }
    }

    public struct Percentiles: Codable, Sendable {
        public var p50: Double
        public var p95: Double
        public var p99: Double
        public var max: Double

        public init(p50: Double, p95: Double, p99: Double, max: Double) {
            self.p50 = p50
            self.p95 = p95
            self.p99 = p99
            self.max = max
        }
    }

    public struct Hang: Codable, Sendable {
        /// The label of the main-queue work item that blocked.
        public var label: String
        /// When it started, from the start of the run.
        public var startMs: Double
        public var durationMs: Double
        /// How many stack samples the watchdog took while it blocked.
        public var sampleCount: Int
        /// The innermost frame of the app's own code, most often seen in the samples.
        public var heaviestFunction: String?
        /// The first sample, innermost first, with the sampler's frames removed.
        public var stack: [Frame]

        public init(
            label: String, startMs: Double, durationMs: Double, sampleCount: Int, heaviestFunction: String? = nil,
            stack: [Frame]
        ) {
            self.label = label
            self.startMs = startMs
            self.durationMs = durationMs
            self.sampleCount = sampleCount
            self.heaviestFunction = heaviestFunction
            self.stack = stack
        }
    }

    public struct Frame: Codable, Sendable, Hashable {
        public var function: String
        public var file: String?
        public var line: Int?
        public var module: String?

        public init(function: String, file: String? = nil, line: Int? = nil, module: String? = nil) {
            self.function = function
            self.file = file
            self.line = line
            self.module = module
        }
    }

    /// One cell of the list: date, spot and conditions, stars.
    public struct VisibleRow: Codable, Sendable, Hashable {
        public var title: String
        public var detail: String
        public var rating: String

        public init(title: String, detail: String, rating: String) {
            self.title = title
            self.detail = detail
            self.rating = rating
        }
    }

    public struct WorkItem: Codable, Sendable {
        public var label: String
        public var count: Int
        public var totalMs: Double
        public var maxMs: Double

        public init(label: String, count: Int, totalMs: Double, maxMs: Double) {
            self.label = label
            self.count = count
            self.totalMs = totalMs
            self.maxMs = maxMs
        }
    }

    public struct ExportFigures: Codable, Sendable {
        public var queue: String
        public var rows: Int
        public var seconds: Double
        public var rowsPerSecond: Double

        public init(queue: String, rows: Int, seconds: Double, rowsPerSecond: Double) {
            self.queue = queue
            self.rows = rows
            self.seconds = seconds
            self.rowsPerSecond = rowsPerSecond
        }
    }

    public struct SearchFigures: Codable, Sendable {
        public var searches: Int
        public var matches: Int
        /// Time of the background fetch of objectIDs.
        public var fetchMs: Double
        /// Main-queue time to turn the first page of IDs into objects and cells.
        public var rematerializeMs: Double

        public init(searches: Int, matches: Int, fetchMs: Double, rematerializeMs: Double) {
            self.searches = searches
            self.matches = matches
            self.fetchMs = fetchMs
            self.rematerializeMs = rematerializeMs
        }
    }

    public struct SyncFigures: Codable, Sendable {
        public var bursts: Int
        public var inserted: Int
        public var updated: Int
        /// Synced changes found with the synced values on the main context.
        public var visibleOnMain: Int
        /// From the background save to the change being visible on the main queue.
        public var mergeLatencyMs: Percentiles

        public init(bursts: Int, inserted: Int, updated: Int, visibleOnMain: Int, mergeLatencyMs: Percentiles) {
            self.bursts = bursts
            self.inserted = inserted
            self.updated = updated
            self.visibleOnMain = visibleOnMain
            self.mergeLatencyMs = mergeLatencyMs
        }
    }

    public struct EditFigures: Codable, Sendable {
        public var opened: Int
        public var saved: Int
        public var cancelled: Int
        public var added: Int

        public init(opened: Int, saved: Int, cancelled: Int, added: Int) {
            self.opened = opened
            self.saved = saved
            self.cancelled = cancelled
            self.added = added
        }
    }

    public init(
        name: String, summary: String, durationSeconds: Double, frames: FrameFigures, hangs: [Hang],
        longestWorkItems: [WorkItem], export: ExportFigures? = nil, search: SearchFigures? = nil,
        sync: SyncFigures? = nil, edits: EditFigures? = nil, errors: [String], timeline: Timeline? = nil,
        violations: [ViolationRecord]? = nil, visibleRows: [VisibleRow]? = nil, trace: TraceData? = nil
    ) {
        self.name = name
        self.summary = summary
        self.durationSeconds = durationSeconds
        self.frames = frames
        self.hangs = hangs
        self.longestWorkItems = longestWorkItems
        self.export = export
        self.search = search
        self.sync = sync
        self.edits = edits
        self.errors = errors
        self.timeline = timeline
        self.violations = violations
        self.visibleRows = visibleRows
        self.trace = trace
    }
}

/// The bands of the hitch time ratio, from Apple's docs.
public enum HitchBand {
    public static func band(_ msPerSecond: Double) -> String {
        switch msPerSecond {
        case ...10: "good"
        case ...25: "warning"
        case ...50: "critical"
        default: "worse"
        }
    }
}
