public import Foundation

/// The built-in scenarios, all taken from the chapter's app.
public enum ScenarioName: String, Sendable, CaseIterable, Codable {
    case baseline
    case exportMain = "export-main"
    case exportBackground = "export-background"
    case searchBackground = "search-background"
    case syncBackground = "sync-background"
    case nestedStack = "nested-stack"
    case editChild = "edit-child"

    /// What `ctxdebug replay` runs with no `--scenario`.
    public static let defaults: [ScenarioName] = [.baseline, .exportMain, .exportBackground]

    public var summary: String {
        switch self {
        case .baseline: "scrolling the list only"
        case .exportMain: "the app's CSV export on the view context, on the main queue (the starter app)"
        case .exportBackground: "the app's CSV export in performBackgroundTask, then DispatchQueue.main.async (the final app)"
        case .searchBackground: "an expensive search on a background context, objectIDs rematerialized on the main context"
        case .syncBackground: "a background context imports and updates entries; the main context merges each did-save"
        case .nestedStack: "root private context <- main <- background: the background's fetches and saves pass through the main queue"
        case .editChild: "open, edit, save or cancel, and add entries in a child scratchpad of the view context"
        }
    }
}

/// The classic bugs `--inject-bug` adds, so the checker can be seen catching them.
public enum InjectedBug: String, Sendable, CaseIterable, Codable {
    /// A background context's object (not its objectID) is handed to the main queue,
    /// which reads it.
    case objectAcrossQueues = "object-across-queues"
    /// The background export changes an object of the view context.
    case backgroundTouchesMain = "background-touches-main"
    /// A private-queue context is used without `perform`.
    case noPerform = "no-perform"
    /// The starter app's cancelled new entry: "add" inserts into the view context,
    /// "cancel" leaves the empty entry there, the next save writes it (abandoned-insert).
    case cancelledEntry = "cancelled-entry"
    /// The Firebase example: the background context saves into the main context,
    /// which (with its root) never saves (unsaved-ancestor).
    case unsavedAncestor = "unsaved-ancestor"
    /// Sync without a didSave merge: the main queue keeps showing old values (missing-merge).
    case missingMerge = "missing-merge"
    /// A background search hands the objectID of an unsaved insert to the main queue (temporary-id).
    case temporaryID = "temporary-id"

    /// The scenario the bug lives in, when no `--scenario` is given.
    public var hostScenario: ScenarioName {
        switch self {
        case .objectAcrossQueues: .searchBackground
        case .backgroundTouchesMain: .exportBackground
        case .noPerform: .syncBackground
        case .cancelledEntry: .editChild
        case .unsavedAncestor: .nestedStack
        case .missingMerge: .syncBackground
        case .temporaryID: .searchBackground
        }
    }

    public var summary: String {
        switch self {
        case .objectAcrossQueues: "hand a background context's object, not its objectID, to the main queue (in search-background)"
        case .backgroundTouchesMain: "change a view-context object from the background export's queue (in export-background)"
        case .noPerform: "use a private-queue context without perform (in sync-background)"
        case .cancelledEntry: "add a new entry in the view context itself, cancel, and save it anyway: the chapter's cancelled-entry bug (in edit-child; caught as abandoned-insert)"
        case .unsavedAncestor: "never save the main and root contexts of the three-level stack (in nested-stack; caught as unsaved-ancestor)"
        case .missingMerge: "sync without merging its saves into the main context, which keeps showing old values (in sync-background; caught as missing-merge)"
        case .temporaryID: "hand the temporary objectID of an unsaved background insert to the main queue (in search-background; caught as temporary-id)"
        }
    }
}

/// Everything a replay needs to know.
public struct ReplayOptions: Sendable {
    public var scenarios: [ScenarioName] = ScenarioName.defaults
    /// Entries in the seeded store (when the replay seeds one).
    public var entries: Int = ReplayOptions.defaultEntries
    /// The store to replay on; nil for the default seeded store. Never modified:
    /// each scenario runs on a copy.
    public var storeURL: URL?
    public var fps: Int = 60
    /// How long each scenario runs at least, in seconds; it also runs until its
    /// work is done.
    public var duration: Double = 3
    /// A main-queue stall this long or longer is a hang, in milliseconds.
    public var hangThresholdMs: Double = 250
    /// A workload file, replacing the built-in scenarios.
    public var workload: Workload?
    public var injectBug: InjectedBug?
    /// Record every main-queue work item and the runtime's events
    /// (`ContextInstrumentation`) into `ScenarioResult.trace`, for `--trace`.
    public var recordTrace = false
    /// Where working copies of the store go.
    public var workDirectory: URL = URL(fileURLWithPath: NSTemporaryDirectory())
    /// Called with progress text (scenario starting, seeding), for a progress line.
    public var progress: (@Sendable (ReplayProgress) -> Void)?

    /// Four times the chapter's own seed store: the app's export of them on the main
    /// queue blocks it for several times the 250 ms hang threshold in a release build
    /// with the other core busy, and in the background causes no hang (the figures are
    /// in docs/surfjournal.md); the default replay, seeding included, takes seconds.
    public static let defaultEntries = 20_000

    public init() {}
}

/// What the replay is doing, for a progress bar.
public enum ReplayProgress: Sendable {
    case seeding(done: Int, total: Int)
    case scenario(index: Int, count: Int, name: String, elapsed: Double, duration: Double)
    case finished
}

/// A replay that could not run: what went wrong and how to fix it, with a code to
/// match on (`catch ReplayError.Code.badInput`).
public struct ReplayError: Error, CustomStringConvertible, Sendable {
    /// An extensible set of codes: new ones don't break a `switch` with `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The options ask for something impossible (a frame rate of 0, say).
        public static let invalidOptions = Code("invalid-options")
        /// The store or the workload file cannot be read or is malformed.
        public static let badInput = Code("bad-input")
        /// A working copy, the data directory or an output cannot be written.
        public static let cannotWrite = Code("cannot-write")
        /// Anything else.
        public static let failed = Code("failed")

        public var description: String { name }

        /// `catch ReplayError.Code.badInput { }`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? ReplayError)?.code == code
        }
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
