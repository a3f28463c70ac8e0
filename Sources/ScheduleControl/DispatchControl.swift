@_spi(Runtime) import ConcurrencyDebug
import CScheduleControl
import CtxdebugHelpers
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The address of a libdispatch object (queue, group, semaphore) the preload library
/// hands over.
///
/// `@unchecked Sendable`: it is only an address, compared and handed back to libdispatch,
/// whose objects are thread-safe; the runtime never reads through it.
struct RawDispatchObject: @unchecked Sendable, Hashable {
    let pointer: UnsafeMutableRawPointer
    var address: UInt { UInt(bitPattern: pointer) }
    /// Its key in the scheduler's tables.
    var tableKey: Int { Int(bitPattern: pointer) }
}

/// The schedule control's side of the preload library `ctxdebug explore` loads into
/// COMMAND (Sources/CtxdebugDispatchControl, docs/explore.md "What is controlled"): the
/// hooks through which every intercepted libdispatch call reaches the scheduler, as
/// Fray's RuntimeDelegate is for the JVM. Installed only in a process whose LD_PRELOAD
/// holds the library and that is explored: connected to `ctxdebug explore` (one
/// scheduler, the process's), or running the in-process `explore { }` (`attach`: each
/// hook serves the run the calling thread is a unit of). Otherwise nothing is installed
/// and the library forwards every call.
enum DispatchControl {
    /// The process's scheduler the hooks serve, once installed (written once, before any
    /// hook can run); nil for in-process runs.
    nonisolated(unsafe) private static var scheduler: ControlledScheduler?
    /// Whether the hooks serve in-process runs (written once, before any hook can run).
    nonisolated(unsafe) private static var servesRuns = false
    /// The in-process run attached now, for calls from threads that are no unit (a wake,
    /// the uncontrolled waits' watch).
    private static let attached = LockedValue<ControlledScheduler?>(nil)
    nonisolated(unsafe) private static var services = ctxdebug_dc_services()
    nonisolated(unsafe) static var mainQueueAddress: UInt = 0
    /// Where a concurrent queue's blocks start (see `ctxdebug_dc_services.overcommit_queue`).
    nonisolated(unsafe) static var overcommitQueue: RawDispatchObject?

    /// The preload library's entry point (CTXDEBUG_DC_INSTALL_SYMBOL).
    static let installSymbol = "ctxdebug_dispatch_control_install_v3"
    /// The entry points of the tables' earlier layouts: a library that has one is another
    /// version of ctxdebug's.
    static let earlierInstallSymbols = ["ctxdebug_dispatch_control_install", "ctxdebug_dispatch_control_install_v2"]

    /// Whether `scheduler`'s libdispatch calls are controlled.
    static func controls(_ candidate: ControlledScheduler) -> Bool {
        scheduler === candidate || (servesRuns && attached.withLock { $0 === candidate })
    }

    /// Installs the hooks for `scheduler`, a process's, when the preload library is
    /// loaded. Returns whether it was.
    @discardableResult
    static func install(_ scheduler: ControlledScheduler) -> Bool {
        guard installHooks(for: scheduler) else { return false }
        // Waits it cannot model are noticed by their threads' state (UncontrolledWaits.swift).
        UncontrolledWaits.start { scheduler }
        return true
    }

    /// An in-process run (`explore { }`) begins: its units' libdispatch calls are
    /// controlled from now on when the preload library is loaded (the hooks are installed
    /// at the first run). Returns whether they are.
    @discardableResult
    static func attach(_ run: ControlledScheduler) -> Bool {
        let installed = runHooks
        if installed { attached.withLock { $0 = run } }
        return installed
    }

    /// The run ended: calls from threads that are no unit go to no run.
    static func detach(_ run: ControlledScheduler) {
        attached.withLock { if $0 === run { $0 = nil } }
    }

    /// Whether the hooks serve in-process runs: installed once, at the first `attach`
    /// (never in a process `ctxdebug explore` runs: its own scheduler takes them at its
    /// first context, as without in-process runs).
    private static let runHooks: Bool = {
        guard scheduler == nil, ProcessExploration.socketPath(in: ConcurrencyDebug.Variable.current()) == nil else { return false }
        servesRuns = true
        guard installHooks(for: nil) else {
            servesRuns = false
            return false
        }
        UncontrolledWaits.start { attached.withLock { $0 } }
        return true
    }()

    /// Hands the hook table to the preload library, when it is loaded and of this layout.
    private static func installHooks(for scheduler: ControlledScheduler?) -> Bool {
        // The name carries the layout of the hook and service tables: a library of another
        // layout (an older ctxdebug beside a newer runtime) is not found, and dispatch runs
        // uncontrolled rather than through a misread table.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), DispatchControl.installSymbol) else {
            if earlierInstallSymbols.contains(where: { dlsym(UnsafeMutableRawPointer(bitPattern: 0), $0) != nil }) {
                ProcessExploration.warn(
                    "the preload library libCtxdebugDispatchControl.so is from another version of ctxdebug than this "
                        + "program's runtime, so libdispatch runs uncontrolled (waits and main-queue hops may end as hangs). "
                        + "Build the program against the ctxdebug that explores it.")
            }
            return false
        }
        let install = unsafeBitCast(symbol, to: ctxdebug_dc_install_t.self)
        Self.scheduler = scheduler
        addPrimitiveHooks(to: &hooks)
        var given = ctxdebug_dc_services()
        guard install(&hooks, &given) == 1 else {
            Self.scheduler = nil
            return false
        }
        services = given
        mainQueueAddress = UInt(bitPattern: given.main_queue)
        overcommitQueue = given.overcommit_queue.map { RawDispatchObject(pointer: $0) }
        return true
    }

    /// The hook table; static storage, so its address stays valid for the process.
    nonisolated(unsafe) private static var hooks = ctxdebug_dc_hooks(
        async: { queue, context, function, barrier in
            guard let queue, let function, let scheduler = active() else { return 0 }
            return ControlCost.measure {
                scheduler.dispatchAsync(DispatchWork(context: context, function: function), on: object(queue), barrier: barrier != 0) ? 1 : 0
            }
        },
        sync_begin: { queue, barrier in
            guard let queue, let scheduler = active() else { return 0 }
            return ControlCost.measure { scheduler.dispatchSyncBegin(object(queue), barrier: barrier != 0) ? 1 : 0 }
        },
        sync_end: { queue in
            guard let queue, let scheduler = Self.scheduler ?? unitsRun() else { return }
            scheduler.dispatchSyncEnd(object(queue))
        },
        after: { when, isLong, queue, context, function in
            guard let queue, let function, let scheduler = active() else { return 0 }
            return ControlCost.measure {
                scheduler.dispatchAfter(when, long: isLong != 0, DispatchWork(context: context, function: function), on: object(queue)) ? 1 : 0
            }
        },
        notify: { group, empty, queue, context, function in
            guard let group, let queue, let function, let scheduler = active() else { return 0 }
            return scheduler.groupNotify(
                object(group), empty: empty != 0, DispatchWork(context: context, function: function), on: object(queue)) ? 1 : 0
        },
        wait: { kind, object, timed in
            guard let object, let scheduler = active() else { return 0 }
            return ControlCost.measure {
                scheduler.modelledWait(waitKey(kind, object), group: kind == CTXDEBUG_DC_WAIT_GROUP, timeout: timed == 0 ? .none : timed == 2 ? .long : .short)
            }
        },
        wake: { kind, object in
            // From any thread: an uncontrolled thread's signal still ends a modelled wait.
            guard let object, !DispatchBypass.isOn, let scheduler = Self.scheduler ?? unitsRun() ?? attachedRun() else { return }
            scheduler.wake(waitKey(kind, object), group: kind == CTXDEBUG_DC_WAIT_GROUP ? Self.object(object) : nil)
        },
        main_parks: {
            guard let scheduler = active() else { return 0 }
            return scheduler.mainParks() ? 1 : 0
        },
        sleep: {
            guard let scheduler = active() else { return 0 }
            return ControlCost.measure { scheduler.sleepYield() ? 1 : 0 }
        },
        run_loop_idle: {
            guard let scheduler = active() else { return 0 }
            return ControlCost.measure { scheduler.runLoopIdle() ? 1 : 0 }
        },
        // Set by `addPrimitiveHooks` (DispatchControl+Primitives.swift).
        apply: nil, timer_set: nil, timer_handler: nil, timer_resume: nil, timer_cancel: nil,
        early_work_ended: { work in
            guard let work, let scheduler = Self.scheduler else { return }
            scheduler.earlyWorkEnded(UInt(bitPattern: work))
        },
        main_sync: { context, function in
            // Also under DispatchBypass: a context's `performAndWait` makes its real sync
            // bypassed, once the schedule gave it the main queue.
            guard let function, let unit = ThreadUnit.current, DispatchControl.controls(unit.scheduler) else { return 0 }
            return unit.scheduler.hostMainSync(DispatchWork(context: context, function: function), for: unit) ? 1 : 0
        })

    /// The scheduler, for a call that is the app's (not the scheduler's own, nor the store's).
    @inline(__always)
    private static func active() -> ControlledScheduler? {
        DispatchBypass.isOn ? nil : scheduler ?? unitsRun()
    }

    /// In-process runs: the run the calling thread is a unit of.
    @inline(__always)
    private static func unitsRun() -> ControlledScheduler? {
        servesRuns ? ThreadUnit.current?.scheduler : nil
    }

    /// In-process runs: the run attached now.
    private static func attachedRun() -> ControlledScheduler? {
        servesRuns ? attached.withLock { $0 } : nil
    }

    private static func object(_ pointer: UnsafeMutableRawPointer) -> RawDispatchObject { RawDispatchObject(pointer: pointer) }

    private static func waitKey(_ kind: Int32, _ object: UnsafeMutableRawPointer) -> String {
        hexKey(kind == CTXDEBUG_DC_WAIT_GROUP ? "group:0x" : "semaphore:0x", UInt(bitPattern: object))
    }

    /// `prefix + String(value, radix: 16)`, without the generic integer formatting (a wait
    /// or signal of the app's formats one at every call).
    static func hexKey(_ prefix: StaticString, _ value: UInt) -> String {
        let digits = value == 0 ? 1 : (UInt.bitWidth - value.leadingZeroBitCount + 3) / 4
        return String(unsafeUninitializedCapacity: prefix.utf8CodeUnitCount + digits) { buffer in
            let head = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
            _ = buffer.initialize(from: head)
            var rest = value
            for index in stride(from: head.count + digits - 1, through: head.count, by: -1) {
                let nibble = UInt8(truncatingIfNeeded: rest & 0xF)
                buffer[index] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
                rest >>= 4
            }
            return head.count + digits
        }
    }

    /// The scheduler, for a hook of DispatchControl+Primitives.swift.
    static var activeScheduler: ControlledScheduler? { active() }

    /// The work item submitted before the control was installed that this thread runs
    /// now, if any: its token (handed back when it ends) and whether the main queue runs it.
    static func earlyWorkOfThread() -> (token: UInt, onMainQueue: Bool)? {
        var queue: UnsafeMutableRawPointer?
        guard let work = services.early_work?(&queue) else { return nil }
        return (UInt(bitPattern: work), queue.map { UInt(bitPattern: $0) } == mainQueueAddress)
    }

    /// The queue `queue` targets, when the app set one.
    static func target(of queue: RawDispatchObject) -> RawDispatchObject? {
        services.target_of?(queue.pointer).map { RawDispatchObject(pointer: $0) }
    }

    /// Whether `queue` may start any of its blocks (a global queue, or a concurrent one).
    static func isConcurrent(_ queue: RawDispatchObject) -> Bool {
        services.is_concurrent.map { $0(queue.pointer) != 0 } ?? false
    }

    /// XCTest's own serial queues (its waiter's state, its delegate calls): their
    /// `sync` and `async` run for real, as no points of the schedule. They hold no state
    /// of the app's, and XCTest's wait loop reads them once per slice of the wall clock
    /// (`RunLoop.run(mode:before:)` for at most 0.1 s), so as points they would make a
    /// schedule depend on the machine's speed. `asyncAfter` on them (the wait's watchdog)
    /// stays a timer of virtual time.
    static func isTestHarness(_ label: QueueLabel) -> Bool { label.hasPrefix("org.swift.XCTest") }

    static func label(_ queue: RawDispatchObject) -> QueueLabel { QueueLabel(bytes: services.label?(queue.pointer)) }

    /// Puts `block` on `queue` with the real `dispatch_async_f`.
    static func submit(_ block: @escaping @Sendable () -> Void, to queue: RawDispatchObject) {
        let box = Unmanaged.passRetained(BlockBox(block)).toOpaque()
        services.async_f?(queue.pointer, box) { raw in
            let box = Unmanaged<BlockBox>.fromOpaque(raw!).takeRetainedValue()
            box.block()
        }
    }

    private final class BlockBox: Sendable {
        let block: @Sendable () -> Void
        init(_ block: @escaping @Sendable () -> Void) { self.block = block }
    }
}

/// A libdispatch queue's label, as the queue holds it: made into a String only when a
/// logical queue is named, not at every hook that finds its queue's logical queue.
///
/// `@unchecked Sendable`: a libdispatch label never changes, and the bytes are read only
/// within the hook's call, while the queue it belongs to lives.
struct QueueLabel: @unchecked Sendable {
    /// The queue's own bytes (valid while the queue lives: the hook's call); nil for none.
    let bytes: UnsafePointer<CChar>?
    /// What a queue without a label is called.
    var fallback = "queue"

    var text: String {
        guard let bytes, bytes.pointee != 0 else { return fallback }
        return String(cString: bytes)
    }

    /// Compared here, byte by byte (the label's terminator ends a mismatch): a call of the C
    /// library's `strncmp` would cost a symbol binding at a process's first hook.
    func hasPrefix(_ prefix: StaticString) -> Bool {
        guard let bytes else { return false }
        return prefix.withUTF8Buffer { head in
            for (index, byte) in head.enumerated() where UInt8(bitPattern: bytes[index]) != byte { return false }
            return true
        }
    }
}

/// One piece of the app's work as libdispatch takes it: a function and its argument.
///
/// `@unchecked Sendable`: libdispatch runs the function once, on whatever thread the
/// queue uses, which is what the app gave it to do; the context is the app's.
struct DispatchWork: @unchecked Sendable {
    let context: UnsafeMutableRawPointer?
    let function: ctxdebug_dc_function_t

    var run: @Sendable () -> Void { { function(context) } }
}
