import ConcurrencyDebug
import CoreData
import CtxdebugHelpers
import Dispatch
import Foundation
import Histogram
@_spi(Runtime) import ManagedContext
import SurfJournal
import Synchronization

/// The UI's state: the list, the editor, the scroll position. Main-queue only.
@MainActor
final class UIState {
    let context: ManagedObjectContext
    var list: JournalList?
    var editor: EntryEditor?
    var rowsPerSecond: Double = 90
    var position: Double = 0
    let framesPerSecond: Double
    let visibleRows = 12
    var lastCells: [JournalCell] = []
    var edits = ScenarioResult.EditFigures(opened: 0, saved: 0, cancelled: 0, added: 0)

    init(context: ManagedObjectContext, fps: Int) {
        self.context = context
        framesPerSecond = Double(max(1, fps))
    }

    /// One frame of scrolling: fetch and format the visible rows.
    func frame() {
        guard let list, list.count > 0 else { return }
        position += rowsPerSecond / framesPerSecond
        let first = Int(position) % list.count
        lastCells = list.cells(first..<(first + visibleRows))
    }
}

/// What the scenario's background work reports, from any queue.
private struct Collected: Sendable {
    var export: ScenarioResult.ExportFigures?
    var searches = 0
    var matches = 0
    var searchFetchNs: UInt64 = 0
    var rematerializeNs: UInt64 = 0
    var bursts = 0
    var inserted = 0
    var updated = 0
    var visible = 0
    var mergeLatency = Histogram<UInt64>(highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)
    var errors: [String] = []
    var spans: [SpanRecord] = []
}

/// A span of the scenario's own work (the export, a search, a sync burst); `queue`
/// is the queue it ran on when it ran on one (nil for a search, which crosses queues).
private struct SpanRecord: Sendable {
    var kind: String
    var label: String
    var queue: String?
    var start: UInt64
    var end: UInt64
}

/// `@unchecked Sendable` on purpose: it carries a managed object across queues,
/// which is the bug `--inject-bug` demonstrates. Used only by the injected bugs.
private struct Smuggled<T>: @unchecked Sendable {
    let value: T
}

/// The stacks of the injected unsaved-ancestor bug, kept until the process exits as
/// an app keeps its stack: unsaved-ancestor is reported at exit, for ancestors still
/// alive (releasing a context with changes is how an app cancels).
private let stacksKeptUntilExit = LockedValue<[NestedStack]>([])

/// Runs one workload on one store, with the frame clock, the monitor and the
/// watchdog, and turns what they saw into a `ScenarioResult`.
final class ScenarioRunner: Sendable {
    let name: String
    let summary: String
    let workload: Workload
    let container: NSPersistentContainer
    let options: ReplayOptions
    let bug: InjectedBug?
    let scratch: URL

    private let monitor: MainQueueMonitor
    private let collected = LockedValue(Collected())
    private let outstanding = DispatchGroup()
    private let nested: NestedStack?
    /// Objects the main queue keeps showing, for the missing-merge injected bug.
    private let pinned = PinnedObjects()
    private let syncCounter = Atomic<Int>(0)

    init(name: String, summary: String, workload: Workload, container: NSPersistentContainer, options: ReplayOptions, bug: InjectedBug?, scratch: URL) {
        self.name = name
        self.summary = summary
        self.workload = workload
        self.container = container
        self.options = options
        self.bug = bug
        self.scratch = scratch
        monitor = MainQueueMonitor(fps: options.fps, hangThresholdMs: options.hangThresholdMs, recordItems: options.recordTrace)
        nested = workload.stack == .nested ? NestedStack(container: container) : nil
        if bug == .unsavedAncestor, let nested { stacksKeptUntilExit.withLock { $0.append(nested) } }
    }

    private var mainContext: ManagedObjectContext { nested?.main ?? container.viewContext }

    private func record(_ error: any Error, _ what: String) {
        collected.withLock { $0.errors.append("\(what): \(error)") }
    }

    private func span(_ kind: String, _ label: String, queue: String?, from start: UInt64, to end: UInt64 = MonotonicClock.now()) {
        collected.withLock { $0.spans.append(SpanRecord(kind: kind, label: label, queue: queue, start: start, end: end)) }
    }

    /// Runs the scenario; call it off the main queue, with the main queue serviced.
    func run(progress: (@Sendable (Double) -> Void)?) -> ScenarioResult {
        let context = mainContext
        let fps = options.fps
        let violationHandler = TimedViolationHandler.installIfNeeded()
        let firstViolation = violationHandler?.count ?? 0
        let recorder = options.recordTrace ? RuntimeRecorder() : nil
        if let recorder { ContextInstrumentation.setObserver(recorder) }
        // Set up the list before measuring, as the app's viewDidLoad does.
        let ui: UIState = monitor.onMainAndWait("list.load") {
            let ui = UIState(context: context, fps: fps)
            do {
                ui.list = try JournalList(context: context)
            } catch {
                FileHandle.standardError.write(Data("ctxdebug: the list could not be fetched: \(error)\n".utf8))
            }
            return ui
        }
        let clock = FrameClock(monitor: monitor) { _ in ui.frame() }
        let watchdog = Watchdog(monitor: monitor)
        monitor.setMeasuring(true)
        let start = MonotonicClock.now()
        watchdog.start()
        clock.start()

        for step in workload.steps {
            perform(step.action, ui: ui)
            progress?(Double(MonotonicClock.now() - start) / 1e9)
        }
        // Run at least the duration, and until the work is done.
        while outstanding.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
            progress?(Double(MonotonicClock.now() - start) / 1e9)
        }
        let minimumEnd = start + UInt64(options.duration * 1e9)
        while MonotonicClock.now() < minimumEnd {
            usleep(50_000)
            progress?(Double(MonotonicClock.now() - start) / 1e9)
        }
        // One more frame interval's worth of settle time, then stop.
        _ = monitor.onMainAndWait("settle") { () -> Int in 0 }
        clock.stop()
        watchdog.stop()
        monitor.setMeasuring(false)
        let end = MonotonicClock.now()
        // Let the main queue drain what the clock posted last.
        _ = monitor.onMainAndWait("drain") { () -> Int in 0 }
        let (edits, cells) = monitor.onMainAndWait("edits") { (ui.edits, ui.lastCells) }
        if recorder != nil { ContextInstrumentation.setObserver(nil) }
        var r = result(start: start, end: end, edits: edits)
        if let violationHandler {
            let seen = violationHandler.since(firstViolation)
            r.violations = TimedViolationHandler.records(seen, runStart: start)
            r.trace?.violations = seen.map {
                .init(time: $0.time, kind: $0.violation.kind.rawValue, queue: $0.violation.queueLabel, message: $0.violation.message)
            }
        }
        if let recorder { r.trace?.runtime = recorder.recorded }
        r.visibleRows = cells.map { .init(title: $0.title, detail: $0.detail, rating: $0.rating) }
        return r
    }

    // MARK: Steps

    private func perform(_ action: Workload.Action, ui: UIState) {
        switch action {
        case .scroll(let speed):
            monitor.onMain("scroll") { ui.rowsPerSecond = speed }
        case .pause(let seconds):
            usleep(UInt32(min(seconds, 3_600) * 1e6))
        case .open(let row):
            monitor.onMain("open") { self.open(row: row, ui: ui) }
        case .edit(let rating, let location, let height):
            monitor.onMain("edit") {
                guard let entry = ui.editor?.entry else { return }
                if let rating { entry.rating = NSNumber(value: rating) }
                if let location { entry.location = location }
                if let height { entry.height = height }
            }
        case .save:
            monitor.onMain("save") {
                guard let editor = ui.editor, editor.entry != nil else { return }
                do {
                    try editor.save()
                    ui.edits.saved += 1
                } catch {
                    self.record(error, "save")
                }
            }
            if let nested, bug != .unsavedAncestor { saveNestedRoot(nested) }
        case .cancel:
            monitor.onMain("cancel") {
                guard let editor = ui.editor, editor.entry != nil else { return }
                editor.cancel()
                ui.edits.cancelled += 1
            }
        case .add(let location, let rating):
            monitor.onMain("add") { self.add(location: location, rating: rating, ui: ui) }
        case .export(let queue, let wait):
            startExport(queue: queue, ui: ui)
            if wait { outstanding.wait() }
        case .search(let wait):
            startSearch(ui: ui)
            if wait { outstanding.wait() }
        case .sync(let bursts, let inserts, let updates, let interval, let wait):
            startSync(bursts: bursts, inserts: inserts, updates: updates, interval: interval, ui: ui)
            if wait { outstanding.wait() }
        }
    }

    /// The editor opens row `row` of the list (on the main queue).
    @MainActor private func open(row: Int, ui: UIState) {
        guard let list = ui.list, list.count > 0 else { return }
        let editor = ui.editor ?? EntryEditor(parent: ui.context)
        ui.editor = editor
        do {
            try editor.open(list.objectID(at: row % list.count))
            ui.edits.opened += 1
        } catch {
            record(error, "open")
        }
    }

    /// A new entry in the editor's scratchpad (on the main queue).
    @MainActor private func add(location: String?, rating: Int16?, ui: UIState) {
        if bug == .cancelledEntry {
            // The starter app: "add" inserts into the view context itself; the
            // user cancels, nothing deletes the empty entry, the next save writes it.
            _ = JournalEntry(context: ui.context)  // INJECTED BUG: abandoned insert
            do { try ui.context.save() } catch { record(error, "save") }
            return
        }
        let editor = ui.editor ?? EntryEditor(parent: ui.context)
        ui.editor = editor
        let entry = editor.add()
        entry.location = location ?? "Rincon"
        entry.rating = NSNumber(value: rating ?? 3)
        entry.height = "3.0"
        entry.period = "12"
        entry.wind = "5.0"
        ui.edits.added += 1
    }

    private func exportURL() -> URL {
        scratch.appendingPathComponent("export-\(UUID().uuidString.prefix(8)).csv")
    }

    private func finishExport(queue: String, _ result: Result<ExportResult, any Error>, url: URL) {
        try? FileManager.default.removeItem(at: url)
        switch result {
        case .success(let r):
            collected.withLock { $0.export = .init(queue: queue, rows: r.rows, seconds: r.seconds, rowsPerSecond: r.rowsPerSecond) }
        case .failure(let error):
            record(error, "export")
        }
    }

    private func startExport(queue: Workload.Queue, ui: UIState) {
        let url = exportURL()
        outstanding.enter()
        switch queue {
        case .main:
            // The starter app: the export runs on the view context, on the main queue.
            let container = self.container
            monitor.onMain("export") {
                let t0 = MonotonicClock.now()
                let result = Result { try JournalExport.exportOnMainContext(container: container, to: url) }
                self.span("export", "export on the main queue", queue: QueueIdentity.main.label, from: t0)
                self.finishExport(queue: "main", result, url: url)
                self.outstanding.leave()
            }
        case .background:
            // The bug: an object of the view context is handed to the export's
            // queue, which changes it.
            let victim: Smuggled<JournalEntry?>? =
                bug != .backgroundTouchesMain ? nil
                : monitor.onMainAndWait("inject.pick") {
                    guard let list = ui.list, list.count > 0 else { return Smuggled(value: nil) }
                    return Smuggled(value: list.entry(at: list.count - 1))
                }
            // The final app: the export in performBackgroundTask, then its hop to the
            // main queue through DispatchQueue.main.async.
            let started = LockedValue<(start: UInt64, queue: String)?>(nil)
            JournalExport.exportInBackground(
                container: container, to: url,
                willExport: { context in
                    context.name = "export"
                    if let victim, let entry = victim.value {
                        entry.rating = NSNumber(value: 1)  // INJECTED BUG: a view-context object changed off the main queue
                    }
                    started.withLock { $0 = (MonotonicClock.now(), context.queueIdentity.label) }
                },
                completion: { result in
                    if let (start, queue) = started.withLock({ $0 }) {
                        let seconds = (try? result.get())?.seconds ?? Double(MonotonicClock.now() - start) / 1e9
                        self.span("export", "export in performBackgroundTask", queue: queue, from: start, to: start + UInt64(seconds * 1e9))
                    }
                    self.finishExport(queue: "background", result, url: url)
                    self.outstanding.leave()
                })
        }
    }

    private func startSearch(ui: UIState) {
        outstanding.enter()
        let predicate = JournalFlows.expensiveSearch
        let request = FetchRequest<JournalEntry>(predicate: predicate, sortDescriptors: SurfJournal.newestFirst)
        let background = nested?.background ?? container.newBackgroundContext()
        if nested == nil { background.name = "search" }
        let bug = self.bug
        background.perform {
            if bug == .temporaryID {
                // INJECTED BUG: an unsaved insert's (temporary) objectID crosses to the main queue.
                let draft = JournalEntry(context: background)
                draft.location = "draft"
                let id = draft.objectID
                self.monitor.onMain("search.draft") { _ = ui.context.object(with: id) }  // INJECTED BUG: temporary-id
            }
            let t0 = MonotonicClock.now()
            let ids: [ManagedObjectID]
            do {
                ids = try background.fetchObjectIDs(request)
            } catch {
                self.record(error, "search")
                self.outstanding.leave()
                return
            }
            let fetchNs = MonotonicClock.now() - t0
            // The bug: the object itself, not its objectID, goes to the main queue.
            var firstRequest = request
            firstRequest.fetchLimit = 1
            let smuggled: Smuggled<JournalEntry?>? =
                bug == .objectAcrossQueues ? Smuggled(value: (try? background.fetch(firstRequest))?.first) : nil
            self.monitor.onMain("search.results") {
                let r0 = MonotonicClock.now()
                if let smuggled, let entry = smuggled.value {
                    _ = entry.location  // INJECTED BUG: a background object read on the main queue
                }
                let page = ids.prefix(40).compactMap { ui.context.object(with: $0) as? JournalEntry }
                if let list = ui.list { ui.lastCells = page.map { list.cell(for: $0) } }
                let rematerialize = MonotonicClock.now() - r0
                self.span("search", "search: fetch \(ids.count) IDs off main, rematerialize 40 on main", queue: nil, from: t0)
                self.collected.withLock {
                    $0.searches += 1
                    $0.matches += ids.count
                    $0.searchFetchNs += fetchNs
                    $0.rematerializeNs += rematerialize
                }
                self.outstanding.leave()
            }
        }
    }

    private func startSync(bursts: Int, inserts: Int, updates: Int, interval: Double, ui: UIState) {
        if bug == .noPerform {
            // The bug: a private-queue context used without perform.
            let context = container.newBackgroundContext()
            context.name = "no-perform"
            _ = try? context.count(for: FetchRequest<JournalEntry>())  // INJECTED BUG: no perform
        }
        if bug == .missingMerge {
            // The rows the list shows, held as a list's controller holds them.
            let main = mainContext
            let pinned = self.pinned
            _ = monitor.onMainAndWait("list.pin") { () -> Int in
                var request = FetchRequest<JournalEntry>(sortDescriptors: SurfJournal.newestFirst)
                request.fetchLimit = 400
                pinned.objects = (try? main.fetch(request)).map { Array($0) } ?? []
                return pinned.objects.count
            }
        }
        outstanding.enter()
        let background: ManagedObjectContext
        let merger: DidSaveMerger?
        if let nested {
            background = nested.background
            merger = nil
        } else {
            background = container.newBackgroundContext()
            background.name = "sync"
            let main = mainContext
            merger = bug == .missingMerge ? nil : DidSaveMerger(
                observing: background, into: main,
                schedule: { [monitor] work in monitor.onMain("merge") { work() } },
                merged: { [weak self] changes, savedAt in
                    self?.verifySynced(changes, in: main, savedAt: savedAt)
                })
        }
        let thread = Thread { [self] in
            for _ in 0..<bursts {
                let burst = syncCounter.add(1, ordering: .relaxed).newValue
                outstanding.enter()
                background.performAndWait {
                    syncBurst(burst, inserts: inserts, updates: updates, in: background)
                }
                outstanding.leave()
                usleep(UInt32(interval * 1e6))
            }
            withExtendedLifetime(merger) {
                // Let the last merge land before the observer goes.
                _ = monitor.onMainAndWait("sync.flush") { () -> Int in 0 }
            }
            outstanding.leave()
        }
        thread.name = "ctxdebug.sync"
        thread.start()
    }

    /// The location a synced entry gets: it says which burst wrote it, so the
    /// main queue can check the value it sees.
    static func syncedLocation(burst: Int, index: Int) -> String { "Synced b\(burst) #\(index)" }
    static func syncedRating(burst: Int) -> Int16 { Int16(burst % 5 + 1) }

    private func syncBurst(_ burst: Int, inserts: Int, updates: Int, in context: ManagedObjectContext) {
        let burstStart = MonotonicClock.now()
        defer { span("sync", "sync burst \(burst)", queue: context.queueIdentity.label, from: burstStart) }
        for i in 0..<inserts {
            let e = JournalEntry(context: context)
            e.date = Date(timeIntervalSince1970: Seeder.newestDate.timeIntervalSince1970 + Double(burst * 10_000 + i))
            e.location = Self.syncedLocation(burst: burst, index: i)
            e.rating = NSNumber(value: Self.syncedRating(burst: burst))
            e.height = "2.5"
            e.period = "10"
            e.wind = "3.0"
        }
        if updates > 0 {
            var request = FetchRequest<JournalEntry>(sortDescriptors: SurfJournal.newestFirst)
            request.fetchLimit = updates
            request.fetchOffset = (burst * 7) % 100
            do {
                for (i, e) in try context.fetch(request).enumerated() where e.location?.hasPrefix("Synced") != true {
                    e.location = Self.syncedLocation(burst: burst, index: 100_000 + i)
                    e.rating = NSNumber(value: Self.syncedRating(burst: burst))
                }
            } catch {
                record(error, "sync fetch")
            }
        }
        let insertedCount = context.insertedObjects.count
        let updatedCount = context.updatedObjects.count
        let changedIDs = Set(context.insertedObjects.map(\.objectID)).union(context.updatedObjects.map(\.objectID))
        let savedAt = MonotonicClock.now()
        do {
            try context.save()
        } catch {
            record(error, "sync save")
            context.rollback()
            return
        }
        collected.withLock {
            $0.bursts += 1
            $0.inserted += insertedCount
            $0.updated += updatedCount
        }
        if bug == .missingMerge {
            // INJECTED BUG (missing-merge): no merge; the main queue refetches the
            // synced rows while it still holds the objects it showed before.
            let main = mainContext
            monitor.onMain("list.refresh") {
                _ = (try? main.fetch(FetchRequest<JournalEntry>(predicate: .beginsWith(\.location, "Synced"))))?.count
            }
        }
        if let nested {
            // Nested: the save went into the main context (on the main queue); check
            // it there, then push it down: main -> root -> store.
            let main = nested.main
            monitor.onMain("nested.merge") {
                self.verifySynced(SaveChanges(updated: changedIDs), in: main, savedAt: savedAt)
            }
            // INJECTED BUG (unsaved-ancestor): the Firebase example never saves main and root.
            if bug != .unsavedAncestor { saveNestedRoot(nested) }
        }
    }

    private func saveNestedRoot(_ nested: NestedStack) {
        outstanding.enter()
        monitor.onMain("nested.save") {
            do {
                try nested.main.save()
            } catch {
                self.record(error, "main save")
            }
            nested.root.perform {
                do { try nested.root.save() } catch { self.record(error, "root save") }
                self.outstanding.leave()
            }
        }
    }

    /// On the main queue: counts the synced changes whose synced values the main
    /// context shows, and the merge latency.
    private func verifySynced(_ changes: SaveChanges, in main: ManagedObjectContext, savedAt: UInt64) {
        let latency = MonotonicClock.now() - savedAt
        var visible = 0
        for id in changes.inserted.union(changes.updated) {
            guard let e = main.object(with: id) as? JournalEntry, let location = e.location,
                location.hasPrefix("Synced b"),
                let burst = Int(location.dropFirst("Synced b".count).prefix { $0.isNumber })
            else { continue }
            if e.rating?.int16Value == Self.syncedRating(burst: burst) { visible += 1 }
        }
        collected.withLock {
            $0.visible += visible
            _ = $0.mergeLatency.record(max(1, latency / 1_000))
        }
    }

    // MARK: Result

    private func result(start: UInt64, end: UInt64, edits: ScenarioResult.EditFigures) -> ScenarioResult {
        let snap = monitor.snapshot()
        let c = collected.withLock { $0 }
        let seconds = Double(end - start) / 1e9
        func ms(_ us: UInt64) -> Double { Double(us) / 1_000 }
        let latency = ScenarioResult.Percentiles(
            p50: ms(snap.latency.valueAtPercentile(50)), p95: ms(snap.latency.valueAtPercentile(95)),
            p99: ms(snap.latency.valueAtPercentile(99)), max: Double(snap.maxLatencyNs) / 1e6)
        let hitchTimeMs = Double(snap.hitchTimeNs) / 1e6
        let ratio = seconds > 0 ? hitchTimeMs / seconds : 0
        let frames = ScenarioResult.FrameFigures(
            count: snap.frames, latencyMs: snap.frames == 0 ? .init(p50: 0, p95: 0, p99: 0, max: 0) : latency,
            hitches: snap.hitches, hitchTimeMs: hitchTimeMs, hitchRatioMsPerSecond: ratio,
            hitchBand: HitchBand.band(ratio), meetsWWDCAim: ratio <= 5)
        let hangs = snap.hangs.map { h in
            HangSymbolication.hang(h, runStart: start, runEnd: end)
        }
        let items = snap.items.map { label, s in
            ScenarioResult.WorkItem(label: label, count: s.count, totalMs: Double(s.totalNs) / 1e6, maxMs: Double(s.maxNs) / 1e6)
        }.sorted { $0.maxMs > $1.maxMs }
        var search: ScenarioResult.SearchFigures?
        if c.searches > 0 {
            search = .init(
                searches: c.searches, matches: c.matches / c.searches,
                fetchMs: Double(c.searchFetchNs) / 1e6 / Double(c.searches),
                rematerializeMs: Double(c.rematerializeNs) / 1e6 / Double(c.searches))
        }
        var sync: ScenarioResult.SyncFigures?
        if c.bursts > 0 {
            let h = c.mergeLatency
            sync = .init(
                bursts: c.bursts, inserted: c.inserted, updated: c.updated, visibleOnMain: c.visible,
                mergeLatencyMs: h.totalCount == 0
                    ? .init(p50: 0, p95: 0, p99: 0, max: 0)
                    : .init(p50: ms(h.valueAtPercentile(50)), p95: ms(h.valueAtPercentile(95)), p99: ms(h.valueAtPercentile(99)), max: ms(h.max)))
        }
        let hasEdits = edits.opened + edits.saved + edits.cancelled + edits.added > 0
        func relMs(_ t: UInt64) -> Double { ((Double(t) - Double(start)) / 1e4).rounded() / 100 }
        let ticks = snap.frameTicks
        let spans = c.spans.sorted { $0.start < $1.start }
        let timeline = Timeline(
            frameStartMs: ticks.map { relMs($0.start) },
            frameLatencyMs: ticks.map { (Double($0.start > $0.due ? $0.start - $0.due : 0) / 1e4).rounded() / 100 },
            spans: spans.map { .init(kind: $0.kind, label: $0.label, startMs: relMs($0.start), endMs: relMs($0.end)) })
        var trace: TraceData?
        if options.recordTrace {
            trace = TraceData(
                runStart: start, runEnd: end, mainQueueItems: snap.itemLog, frames: ticks,
                spans: spans.compactMap { s in s.queue.map { .init(name: s.label, queue: $0, start: s.start, end: s.end) } },
                runtime: [], violations: [])
        }
        return ScenarioResult(
            name: name, summary: summary, durationSeconds: seconds, frames: frames, hangs: hangs,
            longestWorkItems: Array(items.prefix(6)), export: c.export, search: search, sync: sync,
            edits: hasEdits ? edits : nil, errors: c.errors, timeline: timeline, violations: nil, trace: trace)
    }
}

/// Objects the main queue holds on to, as a list's controller does.
/// `@unchecked Sendable`: touched only inside main-queue work items.
final class PinnedObjects: @unchecked Sendable {
    var objects: [JournalEntry] = []
}
