import CtxdebugHelpers
import Dispatch

/// One ordering-dependent Core Data bug, written as app code against the runtime's
/// public API, with its fixed twin (issue 26, item 10).
///
/// Each body builds its own stack (a fresh SQLite file, a coordinator, contexts),
/// does the app's work through `perform`/`performAndWait`, waits for every context it
/// used (`performAndWait { }` on each, in an order that drains what the others
/// enqueue), checks the app's invariant, deletes its store, and throws
/// `CorpusInvariantBroken` when the invariant is broken: that is the bug. Nothing in a
/// body depends on time; only the interleaving of its queues decides.
public struct CorpusCase: Sendable {
    /// A short, unique, kebab-case name (`ctxdebug-explore-corpus run NAME`).
    public let name: String
    /// The bug in words, one line.
    public let summary: String
    public let kind: CorpusKind
    /// What the fixed twin changes, one line.
    public let fix: String
    /// The interleaving that breaks the bug, in words: what runs before what, where a
    /// plain run nearly always does the opposite.
    public let badOrder: String
    /// The app code with the bug: throws `CorpusInvariantBroken` in the bad order.
    public let bug: @Sendable () throws -> Void
    /// The same app code with the one change a real app makes to fix it.
    public let fixed: @Sendable () throws -> Void
    /// Plain runs (no exploration) that hit the bug, measured by
    /// `ctxdebug-explore-corpus measure` (200 runs, a deadlock or hang counts as a hit).
    public let plainHitRate: String
    /// The bug with its bad order forced by semaphores (tests only): it must throw (or,
    /// for a deadlock, hang).
    public let forcedBug: @Sendable () throws -> Void
    /// True when the bad order ends in a deadlock (a hang in a plain run) rather than a
    /// broken invariant: run it only in a child process with a watchdog.
    public let deadlocks: Bool

    public init(
        name: String, summary: String, kind: CorpusKind, fix: String, badOrder: String, plainHitRate: String, deadlocks: Bool = false,
        _ body: @escaping @Sendable (_ fixed: Bool, _ order: BadOrder) throws -> Void
    ) {
        self.name = name
        self.summary = summary
        self.kind = kind
        self.fix = fix
        self.badOrder = badOrder
        self.plainHitRate = plainHitRate
        self.deadlocks = deadlocks
        bug = { try body(false, .natural) }
        fixed = { try body(true, .natural) }
        forcedBug = { try body(false, .forced()) }
    }
}

/// The categories of the list.
public enum CorpusKind: String, Sendable, CaseIterable, CustomStringConvertible {
    case mergeVersusFetch = "merge-vs-fetch"
    case mergePolicy = "merge-policy"
    case temporaryID = "temporary-id"
    case reset = "reset"
    case duplicateInsert = "duplicate-insert"
    case deadlock = "deadlock"
    case refresh = "refresh"
    case rollback = "rollback"
    case parentChild = "parent-child"
    case lostUpdate = "lost-update"
    case notification = "notification"

    public var description: String { rawValue }
}

/// The app's invariant is broken: the bug happened.
public struct CorpusInvariantBroken: Error, CustomStringConvertible, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { "invariant broken: \(message)" }
}

/// Forces a case's bad interleaving by hand, for tests: `natural` (what `bug` and
/// `fixed` use, and what an exploration runs) does nothing at all; `forced()` makes
/// the step that naturally goes first wait (`wait(step)`) until the racing step has
/// happened (`reached(step)`). Each case puts its calls at the one race it has.
public final class BadOrder: Sendable {
    public static let natural = BadOrder(forcing: false)
    public static func forced() -> BadOrder { BadOrder(forcing: true) }

    private let forcing: Bool
    private let gates = LockedValue<[String: DispatchSemaphore]>([:])

    private init(forcing: Bool) { self.forcing = forcing }

    private func gate(_ step: String) -> DispatchSemaphore {
        gates.withLock { gates in
            if let g = gates[step] { return g }
            let g = DispatchSemaphore(value: 0)
            gates[step] = g
            return g
        }
    }

    /// The racing step happened.
    public func reached(_ step: String) {
        guard forcing else { return }
        gate(step).signal()
    }

    /// Waits (forced only) until `step` was reached, at most 10 s, so a forcing that
    /// cannot happen fails its test instead of hanging it.
    public func wait(_ step: String) {
        guard forcing else { return }
        _ = gate(step).wait(timeout: .now() + 10)
    }
}

/// The size of the work a busy context does before its racing step (`importBatch`):
/// how large a head start the harmless order has in a plain run. The recorded plain hit
/// rates were measured with the default; an exploration does not depend on timing, so a
/// test that explores may lower it to run faster (the bug and its fix stay the same).
public enum CorpusWorkload {
    public static let defaultBatchSize = 200
    private static let size = LockedValue(defaultBatchSize)

    /// Log records a busy context imports before its racing step.
    public static var batchSize: Int {
        get { size.withLock { $0 } }
        set { size.withLock { $0 = max(0, newValue) } }
    }
}
