import CConcurrencyDebug
import CtxdebugHelpers
public import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The checker's slow path and its state: the configuration, the active handler, the
/// suppressions, the violations recorded so far, and the journal.
///
/// Everything here is off the hot path (`ConcurrencyDebug.check` in AccessCheck.swift):
/// it runs when checking is not configured yet, when an access is not from the
/// running owner (the main-queue case, or a violation), and for every access when
/// journaling.
final class Checker: Sendable {
    static let shared = Checker()

    private struct State {
        var configured = false
        var configuration = ConcurrencyDebug.Configuration()
        var handler: any ViolationHandler = TrapViolationHandler()
        var suppressions = Suppressions()
        /// Per stack: the suppression rule that matched, or nil; decided once.
        var suppressionDecisions: [ViolationKey: Suppressions.Rule?] = [:]
        var exitHookInstalled = false
        /// Sees each violation first, and may claim it (`setViolationInterceptor`).
        var interceptor: (@Sendable (Violation) -> Bool)?
    }

    private struct Recorded {
        var order: [ViolationKey] = []
        var violations: [ViolationKey: Violation] = [:]
        var suppressed = 0
    }

    private let state = LockedValue(State())
    private let recorded = LockedValue(Recorded())
    private let currentLevel = Atomic<Int>(0)
    /// The process journal: an unmanaged, retained `AccessJournalWriter`, or 0. A journal that
    /// is replaced is flushed and closed but never released, so a pointer loaded here
    /// stays valid.
    private let accessJournalBits = Atomic<UInt>(0)

    // MARK: The slow path

    /// True when the access was a violation, raised, and the handler went on.
    @discardableResult
    func handle(_ subject: some AccessDescribing, owner: QueueIdentity, event: AccessEvent) -> Bool {
        if admit(owner: owner, event: event) { return false }
        let addresses = StackTrace.capture()
        ctxdebug_set_in_checker(1)
        defer { ctxdebug_set_in_checker(0) }
        raise(kind: .wrongQueue, access: subject.describe(event), message: nil, addresses: addresses)
        return true
    }

    /// Everything of `handle` but the violation, out of the generic function: configures
    /// when needed, decides whether the access is allowed, and journals it at level 3.
    /// False for a violation to raise.
    private func admit(owner: QueueIdentity, event: AccessEvent) -> Bool {
        var mode = ctxdebug_access_mode()
        if mode == Int32(CTXDEBUG_ACCESS_UNCONFIGURED) {
            configureIfNeeded()
            mode = ctxdebug_access_mode()
        }
        if mode == Int32(CTXDEBUG_ACCESS_OFF) { return true }
        // An access made while the checker itself runs (describing an access, a
        // handler) is not checked again.
        if ctxdebug_in_checker() != 0 { return true }

        let running = ctxdebug_current_owner()
        var current = running
        var allowed = running == owner.rawValue
        if !allowed && owner == .main && ConcurrencyDebug.isOnMainQueue {
            allowed = true
            current = QueueIdentity.main.rawValue
        } else if !allowed && ConcurrencyDebug.isUserQueue(owner) && ConcurrencyDebug.taggedIdentity() == owner {
            // Code running on a queue a user bound a `QueueConfined` to.
            allowed = true
            current = owner.rawValue
        }
        if mode == Int32(CTXDEBUG_ACCESS_CHECK_AND_LOG) { journal(event, current: current, allowed: allowed) }
        return allowed
    }

    /// Level 3: appends the access to the process journal, if one is open.
    @inline(__always)
    private func journal(_ event: AccessEvent, current: UInt, allowed: Bool) {
        let bits = accessJournalBits.load(ordering: .acquiring)
        if bits != 0, let pointer = UnsafeRawPointer(bitPattern: bits) {
            // Never released (see accessJournalBits): no retain needed.
            Unmanaged<AccessJournalWriter>.fromOpaque(pointer)._withUnsafeGuaranteedRef { journal in
                journal.record(event, current: QueueIdentity(rawValue: current), allowed: allowed)
            }
        }
    }

    /// Raises a violation through the suppressions, the recorder and the handler.
    func raise(kind: ViolationKind, access: AccessDescription, message: String?, addresses: [UInt]) {
        let queueLabel = Self.currentQueueLabel()
        let threadName = Self.currentThreadName()
        let threadID = ctxdebug_thread_id()
        var toucher = "queue '\(queueLabel)' (thread \(threadID)"
        if !threadName.isEmpty { toucher += " '\(threadName)'" }
        toucher += ")"
        var violation = Violation(
            kind: kind, access: access,
            message: message ?? Violation.headline(kind: kind, access: access, toucher: toucher),
            queueLabel: queueLabel, threadID: threadID, threadName: threadName, addresses: addresses)
        let key = ViolationKey(kind: kind, addresses: addresses)

        let (suppressions, known) = state.withLock { ($0.suppressions, $0.suppressionDecisions[key]) }
        if !suppressions.isEmpty {
            let rule: Suppressions.Rule?
            if let known {
                rule = known
            } else {
                rule = suppressions.match(Symbolicator.shared.frames(for: addresses))
                state.withLock { $0.suppressionDecisions[key] = .some(rule) }
            }
            if rule != nil {
                recorded.withLock { $0.suppressed += 1 }
                return
            }
        }

        if let interceptor = state.withLock({ $0.interceptor }), interceptor(violation) { return }

        violation.count = recorded.withLock { recorded in
            if var existing = recorded.violations[key] {
                existing.count += 1
                recorded.violations[key] = existing
                return existing.count
            }
            recorded.order.append(key)
            recorded.violations[key] = violation
            return 1
        }
        let handler = state.withLock { $0.handler }
        handler.handle(violation)
    }

    // MARK: Configuration

    /// Set once this process wrote its report into the report directory.
    private let reportDirectoryWritten = LockedValue(false)

    /// Out of line: its callers (every `level` read) only test the mode, and with
    /// `LockedValue.withLock` inlined this body would otherwise be copied into them.
    @inline(never)
    func configureIfNeeded() {
        guard ctxdebug_access_mode() == Int32(CTXDEBUG_ACCESS_UNCONFIGURED) else { return }
        let needed = state.withLock { !$0.configured }
        guard needed else { return }
        let (configuration, warnings) = ConcurrencyDebug.Configuration.fromProcess()
        configure(configuration, warnings: warnings, onlyIfUnconfigured: true)
    }

    func configure(_ configuration: ConcurrencyDebug.Configuration, warnings: [String], onlyIfUnconfigured: Bool) {
        var messages = warnings
        var newJournal: AccessJournalWriter?
        var accessJournalPath = configuration.accessJournalPath
        let applied: Bool = state.withLock { state in
            if onlyIfUnconfigured && state.configured { return false }
            state.configured = true
            state.configuration = configuration
            state.handler = Self.handler(for: configuration)
            state.suppressions = Suppressions()
            state.suppressionDecisions = [:]
            if let path = configuration.suppressionsPath {
                let (suppressions, suppressionWarnings) = Suppressions.load(path: path)
                state.suppressions = suppressions
                messages += suppressionWarnings
            }
            if let path = accessJournalPath, configuration.level > 0 {
                if journal?.path != path {
                    do {
                        newJournal = try AccessJournalWriter(path: path)
                    } catch {
                        messages.append(
                            "ctxdebug: warning: CTXDEBUG_JOURNAL=\"\(path)\" cannot be opened (\(error)); using no journal.")
                        accessJournalPath = nil
                    }
                }
            } else {
                accessJournalPath = nil
            }
            if !state.exitHookInstalled {
                state.exitHookInstalled = true
                // The process's one exit hook: the registered diagnostics' exit work
                // first (what it reports is in the summary), then the checker's report.
                atexit {
                    RegisteredDiagnostics.shared.runAtExit()
                    Checker.shared.processWillExit()
                }
            }
            return true
        }
        guard applied else { return }
        if let newJournal {
            replaceJournal(with: newJournal)
        } else if accessJournalPath == nil {
            replaceJournal(with: nil)
        }
        // The registered diagnostics' variables, read with the checker's own, their
        // warnings printed with its own (only when checking is on: off, they do nothing).
        let registeredWarnings = RegisteredDiagnostics.shared.readUnread()
        currentLevel.store(configuration.level.rawValue, ordering: .relaxed)
        ConcurrencyDebug.AccessMode.set(ConcurrencyDebug.AccessMode(level: configuration.level, logging: accessJournalPath != nil))
        var effective = configuration
        effective.accessJournalPath = accessJournalPath
        if configuration.level > 0 { messages += registeredWarnings + [effective.banner] }
        if !messages.isEmpty { writeToStandardError(messages.joined(separator: "\n") + "\n") }
    }

    /// The handler `CTXDEBUG_ON_VIOLATION` chose.
    private static func handler(for configuration: ConcurrencyDebug.Configuration) -> any ViolationHandler {
        switch configuration.onViolation {
        case .trap: TrapViolationHandler()
        case .report:
            ReportViolationHandler(
                reportPath: configuration.reportPath, exitCode: configuration.exitCode, reportDirectory: configuration.reportDirectory)
        case .log: LogViolationHandler()
        }
    }

    /// Puts `journal` (or none) where the access check finds it, and closes the one it replaces.
    private func replaceJournal(with journal: AccessJournalWriter?) {
        let bits = journal.map { UInt(bitPattern: Unmanaged.passRetained($0).toOpaque()) } ?? 0
        let old = accessJournalBits.exchange(bits, ordering: .acquiringAndReleasing)
        if old != 0 { Unmanaged<AccessJournalWriter>.fromOpaque(UnsafeRawPointer(bitPattern: old)!).takeUnretainedValue().close() }
    }

    var configuration: ConcurrencyDebug.Configuration {
        state.withLock { $0.configuration }
    }

    var level: ConcurrencyDebug.Level { ConcurrencyDebug.Level(rawValue: currentLevel.load(ordering: .relaxed)) ?? .off }

    var journal: AccessJournalWriter? {
        let bits = accessJournalBits.load(ordering: .acquiring)
        guard bits != 0, let pointer = UnsafeRawPointer(bitPattern: bits) else { return nil }
        return Unmanaged<AccessJournalWriter>.fromOpaque(pointer).takeUnretainedValue()
    }

    func setInterceptor(_ interceptor: (@Sendable (Violation) -> Bool)?) {
        state.withLock { $0.interceptor = interceptor }
    }

    func setHandler(_ handler: any ViolationHandler) {
        state.withLock { $0.handler = handler }
    }

    var handler: any ViolationHandler { state.withLock { $0.handler } }

    var recordedViolations: [Violation] {
        recorded.withLock { recorded in recorded.order.compactMap { recorded.violations[$0] } }
    }

    var suppressedCount: Int { recorded.withLock { $0.suppressed } }

    func resetRecorded() {
        recorded.withLock { $0 = Recorded() }
    }

    // MARK: Exit

    func processWillExit() {
        journal?.flush()
        let violations = recordedViolations
        Symbolicator.shared.prepare(violations.map(\.addresses))
        let handler = self.handler
        let symbolicated = violations.map { $0.symbolicated() }
        writeToReportDirectory(symbolicated, handler: handler)
        handler.processWillExit(symbolicated)
    }

    /// Writes this process's violations into the report directory
    /// (`CTXDEBUG_REPORT_DIR`, or the one a `ReportViolationHandler` was given),
    /// whatever handler is installed: a tool that installs its own handler must not
    /// hide its violations from `ctxdebug check`. At exit, and before a trap ends the
    /// process.
    func writeToReportDirectory(_ violations: [Violation], handler: any ViolationHandler) {
        guard !violations.isEmpty,
            let directory = configuration.reportDirectory ?? (handler as? ReportViolationHandler)?.reportDirectory
        else { return }
        let claimed = reportDirectoryWritten.withLock { written in
            defer { written = true }
            return written
        }
        guard !claimed else { return }
        do {
            let path = try ReportDirectory.write(ViolationReportFile(violations: violations), to: directory)
            writeToStandardError("ctxdebug: wrote the JSON report to \(path)\n")
        } catch {
            writeToStandardError("ctxdebug: warning: could not write a JSON report into \(directory): \(error)\n")
        }
    }

    // MARK: Who is touching

    /// The queue running now, for a report: the running context's queue, the main
    /// queue, the current dispatch queue's label, or "(no queue)".
    static func currentQueueLabel() -> String {
        let running = ctxdebug_current_owner()
        if running != 0 { return QueueIdentity(rawValue: running).label }
        if ConcurrencyDebug.isOnMainQueue { return QueueIdentity.main.label }
        if let label = dispatchQueueLabel(), !label.isEmpty { return label }
        return "(no queue)"
    }

    private typealias GetLabel = @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?

    /// `dispatch_queue_get_label(DISPATCH_CURRENT_QUEUE_LABEL)`, which the Swift
    /// overlay does not expose on Linux; found with dlsym.
    private static let getLabel: GetLabel? = {
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "dispatch_queue_get_label") else {
            return nil
        }
        return unsafeBitCast(symbol, to: GetLabel.self)
    }()

    static func dispatchQueueLabel() -> String? {
        guard let getLabel, let label = getLabel(nil) else { return nil }
        return String(cString: label)
    }

    static func currentThreadName() -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            ctxdebug_thread_name(buffer.baseAddress, buffer.count)
            return String(cString: buffer.baseAddress!)
        }
    }
}

/// Violations are the same when their kind and stack are.
struct ViolationKey: Hashable, Sendable {
    var kind: ViolationKind
    var addresses: [UInt]
}

/// The key the checker sets on queues (`ConcurrencyDebug.tag`) so that a perform
/// block can ask which queue runs it.
enum QueueTag {
    static let key = DispatchSpecificKey<UInt>()
}

extension ConcurrencyDebug {
    /// Reads the configuration from the environment once; the first context calls it.
    /// Prints the one-line banner to stderr when checking is on, and one warning per
    /// value it cannot read.
    public static func configureIfNeeded() {
        if ctxdebug_access_mode() == Int32(CTXDEBUG_ACCESS_UNCONFIGURED) { Checker.shared.configureIfNeeded() }
    }

    /// Sets the configuration in code, replacing the one read from the environment
    /// (tests, tools). Installs the built-in handler of `configuration.onViolation`.
    public static func configure(_ configuration: Configuration) {
        Checker.shared.configure(configuration, warnings: [], onlyIfUnconfigured: false)
    }

    /// The configuration in force.
    public static var configuration: Configuration {
        configureIfNeeded()
        return Checker.shared.configuration
    }

    /// The checking level in force.
    public static var level: Level {
        configureIfNeeded()
        return Checker.shared.level
    }

    /// Raises a violation through the active handler, as the access check does.
    /// Captures the stack itself. Any code can call it, for misuse the checker does
    /// not see by itself. Does nothing when checking is off.
    @inline(never)
    public static func reportViolation(kind: ViolationKind, description: AccessDescription, message: String? = nil) {
        configureIfNeeded()
        guard ctxdebug_access_mode() >= Int32(CTXDEBUG_ACCESS_CHECK), ctxdebug_in_checker() == 0 else { return }
        let addresses = StackTrace.capture()
        ctxdebug_set_in_checker(1)
        defer { ctxdebug_set_in_checker(0) }
        Checker.shared.raise(kind: kind, access: description, message: message, addresses: addresses)
    }

    /// The same, with a stack captured earlier: the code that caused what is found
    /// now (for a diagnostic found at exit, the stack of the call that left it).
    public static func reportViolation(kind: ViolationKind, description: AccessDescription, message: String?, addresses: [UInt]) {
        configureIfNeeded()
        guard ctxdebug_access_mode() >= Int32(CTXDEBUG_ACCESS_CHECK), ctxdebug_in_checker() == 0 else { return }
        ctxdebug_set_in_checker(1)
        defer { ctxdebug_set_in_checker(0) }
        Checker.shared.raise(kind: kind, access: description, message: message, addresses: addresses.isEmpty ? StackTrace.capture() : addresses)
    }

    /// Level 2: asserts that the perform block starting now runs on the queue of its
    /// context. The runtime calls it first thing in each block it dispatched onto a
    /// context's queue (not in a `performAndWait` it runs inline on the caller's
    /// thread). For `.main`, the block must be a main-queue work item (or run on the
    /// main thread); for a private identity, on a queue tagged with it by
    /// `tag(_:as:)`. Raises a `.performOffQueue` violation otherwise.
    public static func assertPerformQueue(expected: QueueIdentity, contextDescription: AccessDescription) {
        assertPerformQueue(expected: expected, dispatchQueue: nil, describedBy: { contextDescription })
    }

    /// `assertPerformQueue(expected:contextDescription:)`, describing the context only
    /// for a report: what every perform block asks at level 2.
    @_spi(Runtime) public static func assertPerformQueue(
        expected: QueueIdentity, dispatchQueue: UnsafeRawPointer?, describedBy describe: () -> AccessDescription
    ) {
        guard level >= 2 else { return }
        if let dispatchQueue, UnsafeRawPointer(ctxdebug_dispatch_current_queue()) == dispatchQueue { return }
        if !isRunningOnQueue(of: expected) {
            reportViolation(kind: .performOffQueue, description: describe())
        }
    }

    /// True when the block running now runs on `expected`'s dispatch queue: the main
    /// queue, or the queue `tagContextQueue` tagged with it.
    private static func isRunningOnQueue(of expected: QueueIdentity) -> Bool {
        if expected == .main {
            if ctxdebug_on_main_queue() != 0 { return true }
            MainQueueMarker.install()
            return DispatchQueue.getSpecific(key: MainQueueMarker.key) != nil || pthread_main_np_compat()
        }
        let tag = ctxdebug_current_queue_tag()
        if tag != 0 { return tag == expected.rawValue }
        return DispatchQueue.getSpecific(key: QueueTag.key) == expected.rawValue  // a queue only `tag` marked
    }

    /// Marks a context's new `queue` as the queue of `identity`, for
    /// `assertPerformQueue`, the cheap way (libdispatch's own queue-specific data,
    /// set from a block on the queue) and as `tag` does.
    /// Returns libdispatch's own handle of `queue`, for `entering(_:dispatched:onDispatchQueue:…)`.
    @_spi(Runtime) public static func tagContextQueue(_ queue: DispatchQueue, as identity: QueueIdentity) -> UnsafeRawPointer? {
        tag(queue, as: identity)
        // The runtime's own sync: never a point of an explored schedule.
        return DispatchBypass.run {
            queue.sync {
                ctxdebug_tag_current_queue(identity.rawValue)
                return UnsafeRawPointer(ctxdebug_dispatch_current_queue())
            }
        }
    }

    /// Marks `queue` as the queue of `identity`, for `assertPerformQueue`. The runtime
    /// calls it when it creates a private context's queue.
    public static func tag(_ queue: DispatchQueue, as identity: QueueIdentity) {
        queue.setSpecific(key: QueueTag.key, value: identity.rawValue)
    }

    /// The identity of a dispatch queue a user owns (`QueueConfined(_:queue:)`):
    /// `.main` for the main queue; otherwise the identity the queue was tagged with,
    /// or a new one, tagged now, named by the queue's label.
    public static func identity(of queue: DispatchQueue) -> QueueIdentity {
        MainQueueMarker.install()
        if queue.getSpecific(key: MainQueueMarker.key) != nil { return .main }  // the main queue itself, not one that targets it
        return userQueues.withLock { known in
            if let tagged = taggedIdentity(of: queue) { return tagged }
            let identity = QueueIdentity.makePrivate(label: queue.label)
            tag(queue, as: identity)
            known.insert(identity.rawValue)
            return identity
        }
    }

    /// True for an identity `identity(of:)` gave to a user's queue: code running on
    /// that queue owns it, with no perform block to say so.
    static func isUserQueue(_ identity: QueueIdentity) -> Bool {
        identity.rawValue > 1 && userQueues.withLock { $0.contains(identity.rawValue) }
    }

    /// The identity `queue`, or the queue running now, was tagged with; nil if none.
    public static func taggedIdentity(of queue: DispatchQueue? = nil) -> QueueIdentity? {
        let value = queue.map { $0.getSpecific(key: QueueTag.key) } ?? DispatchQueue.getSpecific(key: QueueTag.key)
        return value.map(QueueIdentity.init(rawValue:))
    }

    /// Installs a violation handler in place of the one `CTXDEBUG_ON_VIOLATION` chose.
    public static func setViolationHandler(_ handler: some ViolationHandler) {
        configureIfNeeded()
        Checker.shared.setHandler(handler)
    }

    /// The violation handler in force: the built-in one `CTXDEBUG_ON_VIOLATION` or
    /// `configure(_:)` chose, or the last one installed with `setViolationHandler(_:)`.
    public static var violationHandler: any ViolationHandler {
        configureIfNeeded()
        return Checker.shared.handler
    }

    /// Installs a function that sees each violation (not suppressed) before it is
    /// recorded or given to the handler; when it returns true, the violation is
    /// claimed: not recorded, not handled, not in the exit summary. One per process;
    /// nil removes it. `setViolationHandler(_:)` and `configure(_:)` leave it in place.
    /// For test helpers: `ConcurrencyDebugTesting` installs one to route violations to
    /// the assertion scope that made them.
    public static func setViolationInterceptor(_ interceptor: (@Sendable (Violation) -> Bool)?) {
        Checker.shared.setInterceptor(interceptor)
    }

    /// The distinct violations recorded so far (by kind and stack, each with its
    /// count), in the order first seen; not symbolicated. For tests.
    public static var recordedViolations: [Violation] { Checker.shared.recordedViolations }

    /// How many violations suppression rules dropped so far.
    public static var suppressedViolationCount: Int { Checker.shared.suppressedCount }

    /// Forgets the violations recorded so far.
    public static func resetRecordedViolations() { Checker.shared.resetRecorded() }

    /// Writes every thread's unflushed journal events to the journal file.
    public static func flushAccessJournal() { Checker.shared.journal?.flush() }

    /// The file the process journal is written to, or nil.
    public static var accessJournalPath: String? { Checker.shared.journal?.path }

    /// Stops the process with SIGTRAP in `ctxdebug_violation_trap`, the stable name a
    /// debugger breaks on. Restores the default SIGTRAP action first, and unblocks the
    /// signal: the Swift runtime's crash backtracer catches SIGTRAP, and when it does,
    /// a raised SIGTRAP returns and the process goes on (and exits 0).
    public static func trap() {
        signal(SIGTRAP, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTRAP)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        ctxdebug_violation_trap()
    }
}

/// The identities `ConcurrencyDebug.identity(of:)` gave to users' queues.
private let userQueues = LockedValue<Set<UInt>>([])

/// True on the process's main thread (the thread whose id is the process id).
func pthread_main_np_compat() -> Bool {
    UInt64(getpid()) == ctxdebug_thread_id()
}
