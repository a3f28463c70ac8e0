import ConcurrencyDebug
import CtxdebugHelpers
import Dispatch
@_spi(Runtime) import ManagedContext

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

extension TraceData.RuntimeSpan {
    /// What the trace draws of one of the runtime's events.
    init(_ event: ContextInstrumentation.Event) {
        self.init(
            id: event.id, name: event.kind.rawValue, contextNumber: event.contextNumber, contextName: event.contextName,
            queueLabel: event.queueLabel, isMainQueue: event.isMainQueue, start: event.start, end: event.end,
            saveID: event.kind == .save ? event.id : nil, mergedSaveID: event.saveID)
    }
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
