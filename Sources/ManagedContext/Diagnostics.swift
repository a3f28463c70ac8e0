@_spi(Runtime) public import ConcurrencyDebug
import CtxdebugHelpers
import Foundation
import Synchronization

extension ViolationKind {
    /// A temporary objectID used to look up an object in another context.
    public static let temporaryID = ViolationKind("temporary-id")
    /// A relationship set between objects of two contexts.
    public static let crossContextRelationship = ViolationKind("cross-context-relationship")
    /// An object used after its context was reset, or after its deletion was saved.
    public static let staleObject = ViolationKind("stale-object")
    /// Changes saved into a parent context that never saves them.
    public static let unsavedAncestor = ViolationKind("unsaved-ancestor")
    /// An object inserted and saved without any property set after insertion.
    public static let abandonedInsert = ViolationKind("abandoned-insert")
    /// A context reading an object another context saved since, with no merge.
    public static let missingMerge = ViolationKind("missing-merge")
    /// A save that silently overwrote another save's change under a trump or overwrite policy.
    public static let lostUpdate = ViolationKind("lost-update")
    /// The main queue blocked in `performAndWait` on a busy private context.
    public static let mainQueueWait = ViolationKind("main-queue-wait")
    /// A fetch or save on a main-queue context over the row or time threshold.
    public static let mainQueueIO = ViolationKind("main-queue-io")
    /// A process with remote-change notifications and history reading an object another
    /// process changed, without having merged that history.
    public static let remoteChangeUnmerged = ViolationKind("remote-change-unmerged")
}

/// The runtime's diagnostics beyond queue confinement. They run when checking is
/// on (`CTXDEBUG_CONCURRENCY` ≥ 1) and report through the same trap, report and
/// log handlers as wrong-queue accesses.
///
/// `CTXDEBUG_DIAGNOSTICS` chooses them: a comma-separated list of kind names,
/// `default`, `all` or `none`, where `-name` removes one. The checker's one
/// configuration reads it, with the thresholds below (`registration`).
///
/// The default set follows one rule, so that checking can stay on in an app that
/// works: a kind is on by default only if what it flags is a bug in every program
/// (`temporary-id`, `cross-context-relationship`, `stale-object`, `unsaved-ancestor`
/// at exit). A kind that flags something a correct program may do on purpose is
/// opt-in by name (`abandoned-insert`, `missing-merge`, `lost-update`,
/// `main-queue-wait`, `main-queue-io`); docs/diagnostics.md says why for each.
/// Thresholds: `CTXDEBUG_MAIN_QUEUE_WAIT_MS` (default 100), `CTXDEBUG_MISSING_MERGE_GRACE_MS` (default 250),
/// `CTXDEBUG_MAIN_QUEUE_IO_ROWS` (default 1000), `CTXDEBUG_MAIN_QUEUE_IO_MS` (default 16).
public enum Diagnostics {
    /// Every kind of diagnostic the runtime makes, in the order reports list them.
    public static let allKinds: [ViolationKind] = [
        .temporaryID, .crossContextRelationship, .staleObject, .unsavedAncestor, .abandonedInsert,
        .missingMerge, .lostUpdate, .mainQueueWait, .mainQueueIO, .remoteChangeUnmerged,
    ]
    /// Kinds that flag a choice a correct program may make on purpose: off unless
    /// named in `CTXDEBUG_DIAGNOSTICS` (or `all`).
    /// - `abandoned-insert`: an object saved with its default values only is a
    ///   legitimate object in many models (a counter, a flag, a placeholder row).
    /// - `missing-merge`: Core Data contexts are isolated on purpose; a context that
    ///   does not merge (pinned to a query generation, an editor working on a
    ///   snapshot, one that refreshes at moments of its choosing) reads old values by
    ///   design, and the check can only guess, with a grace period, that a merge is
    ///   not on its way.
    /// - `lost-update`: it fires only under `mergeByPropertyObjectTrump` or
    ///   `overwrite`, policies an app sets to say "the last writer wins".
    /// - `main-queue-wait`, `main-queue-io`: slowness, not incorrect data.
    /// - `remote-change-unmerged`: like missing-merge, across processes: a process may
    ///   show another's old values on purpose until it chooses to refresh.
    public static let optInKinds: Set<ViolationKind> = [.abandonedInsert, .missingMerge, .lostUpdate, .mainQueueWait, .mainQueueIO, .remoteChangeUnmerged]
    /// On by default: what these flag is a bug in every program.
    public static let defaultKinds: Set<ViolationKind> = Set(allKinds).subtracting(optInKinds)

    /// Which diagnostics run and their thresholds: what `CTXDEBUG_DIAGNOSTICS` and the
    /// `CTXDEBUG_*_MS` and `_ROWS` variables set.
    public struct Settings: Sendable, Equatable {
        /// The kinds that are on (`defaultKinds` unless `CTXDEBUG_DIAGNOSTICS` says otherwise).
        public var enabled: Set<ViolationKind>
        /// How long the main queue may wait for another queue before `main-queue-wait`
        /// reports it (`CTXDEBUG_MAIN_QUEUE_WAIT_MS`).
        public var mainQueueWaitMilliseconds: Double
        /// How many rows one store operation of a main-queue context (a fetch, a save,
        /// a fault) may touch before `main-queue-io` reports it (`CTXDEBUG_MAIN_QUEUE_IO_ROWS`).
        public var mainQueueIORows: Int
        /// How long one such operation may take before `main-queue-io` reports it
        /// (`CTXDEBUG_MAIN_QUEUE_IO_MS`).
        public var mainQueueIOMilliseconds: Double
        /// How old a save must be before a context that hasn't merged it is stale
        /// (a merge may be on its way until then).
        public var missingMergeGraceMilliseconds: Double = Variable.missingMergeGrace.defaultNumber

        /// The thresholds' defaults: those of the configuration's table (`CTXDEBUG_*_MS`, `_ROWS`).
        public static let defaultMainQueueWaitMilliseconds = Variable.mainQueueWait.defaultNumber
        /// `CTXDEBUG_MAIN_QUEUE_IO_ROWS`'s default.
        public static let defaultMainQueueIORows = Int(Variable.mainQueueIORows.defaultNumber)
        /// `CTXDEBUG_MAIN_QUEUE_IO_MS`'s default.
        public static let defaultMainQueueIOMilliseconds = Variable.mainQueueIOTime.defaultNumber

        /// Settings with the default kinds and thresholds unless given.
        public init(
            enabled: Set<ViolationKind> = Diagnostics.defaultKinds,
            mainQueueWaitMilliseconds: Double = Settings.defaultMainQueueWaitMilliseconds,
            mainQueueIORows: Int = Settings.defaultMainQueueIORows,
            mainQueueIOMilliseconds: Double = Settings.defaultMainQueueIOMilliseconds
        ) {
            self.enabled = enabled
            self.mainQueueWaitMilliseconds = mainQueueWaitMilliseconds
            self.mainQueueIORows = mainQueueIORows
            self.mainQueueIOMilliseconds = mainQueueIOMilliseconds
        }

        /// The settings an environment chooses, as the checker's configuration reads
        /// them (`Diagnostics.registration`); every value it cannot read is named in
        /// `warnings`, and the default is used.
        public static func read(environment: [String: String]) -> (Settings, warnings: [String]) {
            let (choice, warnings) = Diagnostics.registration.read(environment: environment)
            return (Settings(choice), warnings)
        }

        /// The variables that set the thresholds.
        static let thresholdVariables = [
            Variable.mainQueueWait.name, Variable.mainQueueIORows.name, Variable.mainQueueIOTime.name, Variable.missingMergeGrace.name,
        ]

        init(_ choice: ConcurrencyDebug.DiagnosticChoice) {
            self.init(enabled: choice.enabled)
            let t = choice.thresholds
            if let v = t[Variable.mainQueueWait.name] { mainQueueWaitMilliseconds = v }
            // Clamped: a huge value means "never", and Int(Double) traps past Int.max.
            if let v = t[Variable.mainQueueIORows.name] { mainQueueIORows = Int(min(v, Double(Int32.max))) }
            if let v = t[Variable.mainQueueIOTime.name] { mainQueueIOMilliseconds = v }
            if let v = t[Variable.missingMergeGrace.name] { missingMergeGraceMilliseconds = v }
        }
    }

    /// The diagnostics, as part of the checker's one configuration: it reads
    /// `CTXDEBUG_DIAGNOSTICS` and the thresholds with its own variables, prints their
    /// warnings with its own, and runs the exit report of unsaved-ancestor from its one
    /// exit hook, before its own report.
    static let registration = ConcurrencyDebug.DiagnosticKinds(
        variable: Variable.diagnostics.name, all: allKinds, defaults: defaultKinds, thresholds: Settings.thresholdVariables,
        apply: { adopt(Settings($0)) }, atExit: { reportUnsavedAncestorsAtExit() })

    /// Registers the diagnostics once; the first context does it before it configures
    /// the checker.
    static let registered: Void = ConcurrencyDebug.register(registration)

    private static let current = LockedValue<Settings?>(nil)
    /// The enabled kinds as bits (index in `allKinds`); all bits set until read.
    private static let enabledBits = Atomic<UInt32>(UInt32.max)

    /// The settings in force: set with `configure(_:)`, else what the checker's
    /// configuration read from the environment (on first use).
    public static var settings: Settings {
        if let s = current.withLock({ $0 }) { return s }
        Diagnostics.registered
        ConcurrencyDebug.configureIfNeeded()
        return current.withLock { $0 } ?? Settings()
    }

    /// missing-merge's process-wide save count (ConcurrencyDebug's `ProcessGeneration`): moved by each
    /// store save while missing-merge is on. A read compares it with the count its
    /// object last checked: one load and a compare.
    @inline(__always)
    static var saveCount: UInt64 { ProcessGeneration.current }

    /// Moves the save count on, after the save's rows are recorded.
    static func countSave() { ProcessGeneration.advance() }

    /// Replaces the settings (tests, tools).
    public static func configure(_ settings: Settings) {
        current.withLock { $0 = settings }
        storeEnabledBits(settings)
    }

    /// The settings read from the environment, unless `configure(_:)` set some first.
    private static func adopt(_ settings: Settings) {
        let adopted = current.withLock { current in
            guard current == nil else { return false }
            current = settings
            return true
        }
        if adopted { storeEnabledBits(settings) }
    }

    private static func storeEnabledBits(_ settings: Settings) {
        var bits: UInt32 = 0
        for (i, kind) in allKinds.enumerated() where settings.enabled.contains(kind) { bits |= 1 << UInt32(i) }
        enabledBits.store(bits, ordering: .relaxed)
    }

    /// Whether `kind` is checked now: checking is on and the kind is enabled.
    static func isOn(_ kind: ViolationKind) -> Bool {
        guard let i = allKinds.firstIndex(of: kind) else { return false }
        return isOn(bit: 1 << UInt32(i))
    }

    /// `isOn(_:)` for a kind's bit found once: what `performAndWait` asks of
    /// main-queue-wait, without comparing kind names on every call.
    @inline(__always)
    static func isOn(bit: UInt32) -> Bool {
        guard ConcurrencyDebug.mayBeChecking, ConcurrencyDebug.level >= 1 else { return false }
        if enabledBits.load(ordering: .relaxed) == UInt32.max { _ = settings }
        return enabledBits.load(ordering: .relaxed) & bit != 0
    }

    static let mainQueueWaitBit: UInt32 = 1 << UInt32(allKinds.firstIndex(of: .mainQueueWait)!)

    static func report(_ kind: ViolationKind, _ description: AccessDescription, _ headline: String) {
        ConcurrencyDebug.reportViolation(kind: kind, description: description, message: "BUG DETECTED: " + headline)
    }

    static func describe(_ o: ManagedObject, operation: String, hint: String) -> AccessDescription {
        AccessDescription(
            operation: operation, entity: o.entity.name, attribute: nil, objectID: o.objectID.uriString,
            contextName: o.managedObjectContext?.shortName, ownerQueueLabel: o.queueOwner.label, fixHint: hint)
    }

    static func describe(_ c: ManagedObjectContext, operation: String, objectID: ManagedObjectID? = nil, hint: String) -> AccessDescription {
        AccessDescription(
            operation: operation, entity: objectID?.entity.name, attribute: nil, objectID: objectID?.uriString,
            contextName: c.shortName, ownerQueueLabel: c.queueIdentity.label, fixHint: hint)
    }

    // MARK: unsaved-ancestor

    /// Changes a child saved into an ancestor that has not saved them since.
    struct PendingAncestor: Sendable {
        let name: String
        let shortName: String
        let queueLabel: String
        /// The child that pushed first since the ancestor last saved, and the stack of that save.
        let child: String
        let stack: [UInt]
        var pushes: Int
    }

    /// Ancestors holding changes their children saved into them, by context number.
    /// An entry goes when the ancestor saves, rolls back, resets, or is released:
    /// releasing a context with changes is how an app cancels (a dropped editor),
    /// so only the ancestors still alive when the process ends are reported.
    private static let pendingAncestors = LockedValue<[UInt32: PendingAncestor]>([:])

    static func ancestorHoldsChildChanges(_ c: ManagedObjectContext, child: String, stack: [UInt]) {
        let pending = PendingAncestor(name: c.debugName, shortName: c.shortName, queueLabel: c.queueIdentity.label, child: child, stack: stack, pushes: 1)
        pendingAncestors.withLock { p in
            if p[c.number] != nil { p[c.number]!.pushes += 1 } else { p[c.number] = pending }
        }
    }

    static func ancestorSaved(_ c: ManagedObjectContext) {
        _ = pendingAncestors.withLock { $0.removeValue(forKey: c.number) }
    }

    /// At exit: every ancestor still alive that holds changes its children pushed
    /// into it and never saved. The report's stack is the child's save that pushed them.
    static func reportUnsavedAncestorsAtExit() {
        let left = pendingAncestors.withLock { p in
            let all = p
            p = [:]
            return all
        }
        guard !left.isEmpty, isOn(.unsavedAncestor) else { return }
        for (_, a) in left.sorted(by: { $0.key < $1.key }) {
            let more = a.pushes > 1 ? " (and \(a.pushes - 1) later save\(a.pushes == 2 ? "" : "s") of its children)" : ""
            ConcurrencyDebug.reportViolation(
                kind: .unsavedAncestor,
                description: AccessDescription(
                    operation: "save into a parent", entity: nil, attribute: nil, objectID: nil, contextName: a.shortName,
                    ownerQueueLabel: a.queueLabel,
                    fixHint: "save every ancestor in turn (child, then parent, up to the root on the coordinator), or put the context on the coordinator; to cancel on purpose, call rollback() or reset() on it, or release it"),
                message: "BUG DETECTED: \(a.name) holds changes that \(a.child) saved into it\(more), and the process is ending without saving them: they never reached the store. The stack is the child's save that pushed them.",
                addresses: a.stack)
        }
    }
}

extension ManagedObjectContext {
    /// True when no context of this stack (this one or an ancestor) knows `id`.
    func noAncestorKnows(_ id: ManagedObjectID) -> Bool {
        if registered(id) != nil { return false }
        if let c = persistentStoreCoordinator, c.alias(of: id) != nil { return false }
        guard let p = parent else { return true }
        return p.performAndWait { p.noAncestorKnows(id) }
    }

    func diagnoseTemporaryLookup(_ id: ManagedObjectID, _ operation: String) {
        guard id.isTemporaryID, Diagnostics.isOn(.temporaryID), noAncestorKnows(id) else { return }
        Diagnostics.report(
            .temporaryID,
            Diagnostics.describe(self, operation: operation, objectID: id, hint: "save the context that inserted the object, or call obtainPermanentIDs(for:) on it, before handing its objectID to another context"),
            "\(operation) was given the temporary objectID \(id), which neither \(debugName) nor its parents know: the object was not saved or given a permanent ID before its ID crossed contexts, so it will never be found.")
    }

    /// Reports the objects of a save that were inserted and never given a value.
    func diagnoseAbandonedInserts(_ inserted: Set<ManagedObject>) {
        guard Diagnostics.isOn(.abandonedInsert) else { return }
        for o in inserted where o.changedAttributes.isEmpty && o.changedToOne.isEmpty {
            Diagnostics.report(
                .abandonedInsert,
                Diagnostics.describe(o, operation: "save", hint: "insert new objects into a child scratchpad context and drop it on cancel, or delete the object when the user cancels"),
                "\(o.entity.name) \(o.objectID) was inserted into \(debugName) and saved without any property set after insertion (an abandoned \"new entry\"): it will show up as an empty row.")
        }
    }

    func diagnoseMainQueueIO(_ operation: String, rows: Int, started: UInt64) {
        guard concurrencyType == .mainQueue, Diagnostics.isOn(.mainQueueIO) else { return }
        let s = Diagnostics.settings
        let ms = Double(MonotonicClock.now() &- started) / 1e6
        guard rows > s.mainQueueIORows || ms > s.mainQueueIOMilliseconds else { return }
        Diagnostics.report(
            .mainQueueIO,
            Diagnostics.describe(self, operation: operation, hint: "do this work in a background context (container.performBackgroundTask or newBackgroundContext().perform) and hand objectIDs to the main queue"),
            "\(operation) on the main-queue \(debugName) touched \(rows) rows in \(String(format: "%.1f", ms)) ms (thresholds: \(s.mainQueueIORows) rows, \(String(format: "%.0f", s.mainQueueIOMilliseconds)) ms): the UI is blocked meanwhile.")
    }

    func diagnoseMainQueueWait(on context: ManagedObjectContext, waited: UInt64) {
        let ms = Double(waited) / 1e6
        let limit = Diagnostics.settings.mainQueueWaitMilliseconds
        guard ms > limit else { return }
        Diagnostics.report(
            .mainQueueWait,
            Diagnostics.describe(context, operation: "performAndWait", hint: "use perform { } (asynchronous) from the main queue, or move the busy work off this context"),
            "the main queue waited \(String(format: "%.0f", ms)) ms (threshold \(String(format: "%.0f", limit)) ms) in performAndWait on \(context.debugName), which was busy with other work.")
    }
}

extension ManagedObjectContext {
    func diagnoseStaleObject(_ o: ManagedObject, reset: Bool) {
        guard Diagnostics.isOn(.staleObject) else { return }
        let why = reset ? "its context was reset" : "its row is gone (it was deleted and the deletion saved, here or in another context)"
        Diagnostics.report(
            .staleObject,
            Diagnostics.describe(o, operation: "fire fault", hint: reset
                ? "don't keep objects across reset(): keep their objectIDs and call object(with:) again after the reset"
                : "check isDeleted, or look the object up with existingObject(with:), which throws when the row is gone"),
            "\(o.entity.name) \(o.objectID) was used after \(why); Core Data would raise \"could not fulfill a fault\". Its values read as nil.")
    }

    /// missing-merge: `o`, registered here, shows values older than a save this
    /// process made of its row, and this context never merges. Called when the
    /// process's save count moved since `o` was last checked:
    /// - on an attribute read (`ManagedObject.readAfterSave`), the common form: the
    ///   UI reads the old value with no refetch;
    /// - when a fetch finds the object already registered (`storeVersion`: the row's
    ///   version it found), or a batch of a `fetchBatchSize` fetch reaches it.
    ///
    /// The object is marked checked unless the save is still inside the grace period
    /// (a merge may be on its way): the next read looks again.
    func diagnoseMissingMerge(_ o: ManagedObject, storeVersion: Int64?, operation: String, attribute: String? = nil) {
        let count = Diagnostics.saveCount
        guard Diagnostics.isOn(.missingMerge), case .coordinator(let coordinator) = parentStore,
            !hasMerged, !automaticallyMergesChangesFromParent,
            !o.updatedFlag, !o.insertedFlag, !o.deletedFlag, !o.isFaultFlag, !o.isStale, let old = o.snapshot,
            let save = coordinator.lastSave(of: o.objectID), save.version > old.version,
            storeVersion.map({ $0 > old.version }) ?? true
        else {
            o.checkedSaveCount = count
            return
        }
        // Only saves old enough that a merge on its way would have landed.
        guard Double(MonotonicClock.now() &- save.time) / 1e6 >= Diagnostics.settings.missingMergeGraceMilliseconds else { return }
        o.checkedSaveCount = count
        let newest = max(storeVersion ?? save.version, save.version)
        var headline = "\(debugName) reads \(o.entity.name) \(o.objectID) at version \(old.version), but the store has version \(newest)"
        headline += ", saved by \(save.saver); no merge of that save was applied to this context."
        let frames = StackTrace.symbolicate(save.stack).prefix(12)
        if !frames.isEmpty { headline += "\n  the save's stack:\n" + frames.map { "    " + $0 }.joined(separator: "\n") }
        var description = Diagnostics.describe(o, operation: operation, hint: "observe didSaveObjectsNotification and call mergeChanges(fromContextDidSave:) on this context's queue, or set automaticallyMergesChangesFromParent = true")
        description.attribute = attribute
        Diagnostics.report(.missingMerge, description, headline)
    }

    func diagnoseLostUpdates(_ result: StoreSaveResult) {
        guard !result.lostUpdates.isEmpty, Diagnostics.isOn(.lostUpdate) else { return }
        for lost in result.lostUpdates {
            Diagnostics.report(
                .lostUpdate,
                Diagnostics.describe(self, operation: "save", objectID: lost.id, hint: "use the error merge policy and resolve the conflict, or merge the other context's save before editing, so neither change is lost silently"),
                "\(debugName)'s save under \(mergePolicy) silently overwrote another save's change to \(lost.id.entity.name).\(lost.attributes.joined(separator: ", ")) of \(lost.id): both changed it from version \(lost.fromVersion).")
        }
    }
}

private typealias Variable = ConcurrencyDebug.Variable
