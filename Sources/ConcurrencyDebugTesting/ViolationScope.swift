public import ConcurrencyDebug
import ScheduleControl
import CtxdebugHelpers

/// Which violations a scope of the test helpers counts as its own.
///
/// The checker's configuration is process-wide and tests run in parallel in one
/// process, so each scope has to tell its violations from its neighbours'. It does so
/// with a task-local value, read at the moment of the violation on the thread that
/// made it.
public enum ViolationAttribution: Sendable, Hashable {
    /// Violations made by the scope's own task, its child tasks (`async let`, task
    /// groups, `Task { }` started inside), and any synchronous code they run on their
    /// thread, `DispatchQueue.sync` and `performAndWait` included. Safe when tests run
    /// in parallel. Misses violations made by work the block sends to another thread
    /// without a task (`DispatchQueue.async`, `Thread`, a context's `perform`).
    case task
    /// Also every violation made while the scope is open by code that belongs to no
    /// scope: work sent to other threads is seen. Any other test running at the same
    /// time that makes a violation outside a scope is blamed too, so use it in a
    /// serialized suite or a test run with `--no-parallel`.
    case process
}

/// Violations that happened inside a scope, deduplicated by kind and stack.
public struct ScopedViolations: Sendable {
    /// Distinct violations, in the order first seen, each with its count in this scope.
    public var distinct: [Violation]

    /// All occurrences.
    public var totalCount: Int { distinct.reduce(0) { $0 + $1.count } }
    /// True when the scope made no violation.
    public var isEmpty: Bool { distinct.isEmpty }

    init(_ all: [Violation]) {
        var order: [Violation] = []
        var index: [ViolationIdentity: Int] = [:]
        for violation in all {
            let key = ViolationIdentity(kind: violation.kind, addresses: violation.addresses)
            if let at = index[key] {
                order[at].count += 1
            } else {
                index[key] = order.count
                var first = violation
                first.count = 1
                order.append(first)
            }
        }
        distinct = order
    }

    /// The full reports (symbolicated), for a failure message.
    func reports(_ violations: [Violation]) -> String {
        violations.enumerated().map { index, violation in
            var violation = violation.symbolicated()
            let count = violation.count
            violation.count = 1
            let header = "[\(index + 1)/\(violations.count)] \(count) time\(count == 1 ? "" : "s")\n"
            return header + violation.report
        }.joined(separator: "\n")
    }
}

private struct ViolationIdentity: Hashable {
    var kind: ViolationKind
    var addresses: [UInt]
}

/// One open scope of the helpers: collects the violations routed to it.
final class ViolationScope: Sendable {
    @TaskLocal static var current: ViolationScope?

    let attribution: ViolationAttribution
    private let state = LockedValue<(open: Bool, violations: [Violation])>((true, []))

    init(attribution: ViolationAttribution) {
        self.attribution = attribution
    }

    /// Adds a violation; false when the scope is closed already.
    func add(_ violation: Violation) -> Bool {
        state.withLock { state in
            guard state.open else { return false }
            state.violations.append(violation)
            return true
        }
    }

    /// Closes the scope and returns what it collected.
    func close() -> ScopedViolations {
        ScopedViolations(state.withLock { state in
            state.open = false
            return state.violations
        })
    }
}

/// The process-wide part: turning checking on, and routing violations to scopes.
enum ScopeRegistry {
    private struct State {
        var installed = false
        var processScopes: [ObjectIdentifier: ViolationScope] = [:]
        /// The scopes of explored runs, by scheduler: a violation made by one of a
        /// run's units belongs to that run.
        var runScopes: [ObjectIdentifier: ViolationScope] = [:]
    }

    private static let state = LockedValue(State())

    /// Makes sure checking is on at `level` or above and the router is installed.
    ///
    /// When the process had checking off, it turns it on with a handler that ignores
    /// violations outside every scope, as if they had not been checked. When checking
    /// was on already (from the environment, say in report mode under `ctxdebug
    /// check`), it keeps that configuration and handler: violations outside the
    /// helpers' scopes are handled as before, and those inside are claimed by their
    /// scope. The level is raised, never lowered, and stays raised.
    static func prepare(level: Int) {
        let level = min(max(level, 1), 2)
        state.withLock { state in
            if !state.installed {
                state.installed = true
                ConcurrencyDebug.setViolationInterceptor { route($0) }
            }
            let current = ConcurrencyDebug.configuration
            guard current.level.rawValue < level else { return }
            var raised = current
            raised.level = ConcurrencyDebug.Level(rawValue: level) ?? .check
            let wasOff = current.level == 0
            let handler = ConcurrencyDebug.violationHandler
            if wasOff {
                // .log only for the instant until the handler below replaces it.
                raised.onViolation = .log
                raised.accessJournalPath = nil
            }
            ConcurrencyDebug.configure(raised)
            if wasOff {
                // Checking was off, so violations outside every scope went unseen: keep
                // it that way, unless someone installed a handler of their own.
                if handler is TrapViolationHandler {
                    ConcurrencyDebug.setViolationHandler(IgnoreUnscopedViolations())
                } else {
                    ConcurrencyDebug.setViolationHandler(handler)
                }
            } else if !(handler is TrapViolationHandler || handler is ReportViolationHandler || handler is LogViolationHandler) {
                // configure(_:) put the built-in handler back; restore a custom one.
                ConcurrencyDebug.setViolationHandler(handler)
            }
        }
    }

    static func open(_ scope: ViolationScope) {
        guard scope.attribution == .process else { return }
        state.withLock { $0.processScopes[ObjectIdentifier(scope)] = scope }
    }

    static func open(_ scope: ViolationScope, for scheduler: ControlledScheduler) {
        state.withLock { $0.runScopes[ObjectIdentifier(scheduler)] = scope }
    }

    static func close(_ scope: ViolationScope, for scheduler: ControlledScheduler) {
        _ = state.withLock { $0.runScopes.removeValue(forKey: ObjectIdentifier(scheduler)) }
    }

    static func close(_ scope: ViolationScope) {
        guard scope.attribution == .process else { return }
        _ = state.withLock { $0.processScopes.removeValue(forKey: ObjectIdentifier(scope)) }
    }

    /// The interceptor: the innermost scope of the task or thread that made the
    /// violation claims it; a violation from no scope goes to every open `.process`
    /// scope, or, when there is none, on to the checker's handler.
    static func route(_ violation: Violation) -> Bool {
        if let unit = ThreadUnit.current,
            let scope = state.withLock({ $0.runScopes[ObjectIdentifier(unit.scheduler)] }), scope.add(violation) {
            return true
        }
        if let scope = ViolationScope.current, scope.add(violation) { return true }
        let scopes = state.withLock { Array($0.processScopes.values) }
        var claimed = false
        for scope in scopes where scope.add(violation) { claimed = true }
        return claimed
    }
}

/// The handler when the helpers turned checking on in a process that had it off:
/// violations outside every scope are ignored, as they were before.
struct IgnoreUnscopedViolations: ViolationHandler {
    func handle(_ violation: Violation) {}
}

/// Runs `body` in a scope of its own with checking on, and returns what it returned
/// with the violations it made. The building block of the XCTest and Swift Testing
/// helpers, for assertions of your own.
///
/// No environment variable is needed: checking is turned on (at `level`, 1 or 2) for
/// the process if it was off, and violations outside every scope are then ignored.
/// Violations inside the scope are claimed by it: they do not reach the process's
/// handler (a trap does not stop the test; report mode does not count them).
public func withConcurrencyViolationsRecorded<Result>(
    level: Int = 1, attribution: ViolationAttribution = .task, _ body: () throws -> Result
) rethrows -> (result: Result, violations: ScopedViolations) {
    ScopeRegistry.prepare(level: level)
    let scope = ViolationScope(attribution: attribution)
    ScopeRegistry.open(scope)
    defer { ScopeRegistry.close(scope) }
    let result: Result
    do {
        result = try ViolationScope.$current.withValue(scope) { try body() }
    } catch {
        _ = scope.close()
        throw error
    }
    return (result, scope.close())
}

/// The `async` form of `withConcurrencyViolationsRecorded(level:attribution:_:)`.
public func withConcurrencyViolationsRecorded<Result>(
    level: Int = 1, attribution: ViolationAttribution = .task,
    isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws -> Result
) async rethrows -> (result: Result, violations: ScopedViolations) {
    ScopeRegistry.prepare(level: level)
    let scope = ViolationScope(attribution: attribution)
    ScopeRegistry.open(scope)
    defer { ScopeRegistry.close(scope) }
    let result: Result
    do {
        result = try await ViolationScope.$current.withValue(scope) { try await body() }
    } catch {
        _ = scope.close()
        throw error
    }
    return (result, scope.close())
}

// MARK: Failure messages, shared by the XCTest and Swift Testing helpers

enum FailureMessage {
    /// nil when `violations` is empty.
    static func unexpected(_ violations: ScopedViolations, assertion: String, note: String?) -> String? {
        guard !violations.isEmpty else { return nil }
        let n = violations.distinct.count
        var text = "\(assertion) failed: \(n) distinct concurrency violation\(n == 1 ? "" : "s")"
        text += " (\(violations.totalCount) in all)"
        if let note, !note.isEmpty { text += " - \(note)" }
        return text + "\n" + violations.reports(violations.distinct)
    }

    /// nil when there is at least one violation and all of them are of `kind`.
    static func expected(_ kind: ViolationKind, _ violations: ScopedViolations, assertion: String, note: String?) -> String? {
        let suffix = note.flatMap { $0.isEmpty ? nil : " - \($0)" } ?? ""
        if violations.isEmpty {
            return "\(assertion) failed: expected a \(kind) violation, but the block made no concurrency violation\(suffix)"
        }
        let others = violations.distinct.filter { $0.kind != kind }
        guard !others.isEmpty else { return nil }
        let kinds = Array(Set(others.map(\.kind.rawValue))).sorted().joined(separator: ", ")
        return "\(assertion) failed: expected only \(kind) violations, but the block also made \(kinds)\(suffix)\n"
            + violations.reports(others)
    }
}
