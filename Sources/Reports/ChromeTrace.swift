public import Foundation
public import ReplayModel
public import ReportFormats

/// Timelines in the Chrome Trace Event Format (the JSON that ui.perfetto.dev and
/// chrome://tracing open): `ctxdebug replay --trace FILE` and `ctxdebug journal
/// --trace FILE`. What each track and event means is in docs/reports.md.
///
/// Timestamps are microseconds. Complete slices (`"ph":"X"`) on one track always
/// nest: a slice that would overlap another one on its track without nesting (a
/// context used from two threads at once, which is itself a bug) goes to a second
/// track of the same name with " (overlapping)" added.
public enum ChromeTrace {
    /// One trace event. `ts` and `dur` in microseconds.
    public struct Event: Sendable {
        public var name: String
        public var cat: String
        public var ph: String
        public var ts: Double
        public var dur: Double?
        public var pid: Int
        public var tid: Int
        /// Flow id (`s`/`f`).
        public var id: UInt64?
        /// Scope of an instant event (`t` thread, `p` process, `g` global).
        public var s: String?
        /// Flow binding point (`e`: the enclosing slice).
        public var bp: String?
        public var args: [(String, ArgValue)] = []
        /// A slice's start and end in nanoseconds, for exact nesting.
        var startNs: UInt64 = 0
        var endNs: UInt64 = 0
    }

    public enum ArgValue: Sendable {
        case string(String)
        case number(Double)
        case int(Int)
    }

    /// Builds the tracks of one process (a scenario, or one pid of a journal).
    struct Builder {
        let pid: Int
        let origin: UInt64
        var events: [Event] = []
        /// Track names by tid, in creation order.
        var tracks: [(tid: Int, name: String)] = []
        private var tidByKey: [String: Int] = [:]
        var nextTid: Int

        init(pid: Int, origin: UInt64, firstTid: Int = 1) {
            self.pid = pid
            self.origin = origin
            self.nextTid = firstTid
        }

        mutating func track(_ key: String, name: String) -> Int {
            if let t = tidByKey[key] { return t }
            let t = nextTid
            nextTid += 1
            tidByKey[key] = t
            tracks.append((t, name))
            return t
        }

        func us(_ ns: UInt64) -> Double { Double(Int64(bitPattern: ns &- origin)) / 1000 }

        mutating func slice(_ name: String, cat: String, tid: Int, start: UInt64, end: UInt64, args: [(String, ArgValue)] = []) {
            let e = max(start, end)
            events.append(
                Event(name: name, cat: cat, ph: "X", ts: us(start), dur: Double(e - start) / 1000, pid: pid, tid: tid, args: args, startNs: start, endNs: e))
        }

        mutating func instant(_ name: String, cat: String, tid: Int, at time: UInt64, args: [(String, ArgValue)] = []) {
            events.append(Event(name: name, cat: cat, ph: "i", ts: us(time), pid: pid, tid: tid, s: "t", args: args))
        }

        /// Moves slices that would break nesting to overflow tracks, then adds the
        /// metadata: process and thread names and sort order.
        mutating func finish(processName: String, sortIndex: Int) -> [Event] {
            var out: [Event] = []
            var overflowOf: [Int: Int] = [:]
            var byTid: [Int: [Event]] = [:]
            var others: [Event] = []
            for e in events {
                if e.ph == "X" { byTid[e.tid, default: []].append(e) } else { others.append(e) }
            }
            for (tid, name) in tracks {
                var pending = byTid[tid] ?? []
                var currentTid = tid
                var level = 0
                while !pending.isEmpty {
                    pending.sort { $0.startNs != $1.startNs ? $0.startNs < $1.startNs : $0.endNs > $1.endNs }
                    var stack: [UInt64] = []  // end times of the open slices
                    var kept: [Event] = []
                    var moved: [Event] = []
                    for var e in pending {
                        let end = e.endNs
                        while let top = stack.last, top <= e.startNs { stack.removeLast() }
                        if let top = stack.last, end > top {
                            moved.append(e)
                            continue
                        }
                        e.tid = currentTid
                        stack.append(end)
                        kept.append(e)
                    }
                    out += kept
                    pending = moved
                    if !moved.isEmpty {
                        level += 1
                        let overflow = nextTid
                        nextTid += 1
                        overflowOf[overflow] = tid
                        tracks.append((overflow, name + " (overlapping\(level > 1 ? " \(level)" : ""))"))
                        currentTid = overflow
                    }
                }
            }
            out += others
            var meta: [Event] = [
                Event(name: "process_name", cat: "__metadata", ph: "M", ts: 0, pid: pid, tid: 0, args: [("name", .string(processName))]),
                Event(name: "process_sort_index", cat: "__metadata", ph: "M", ts: 0, pid: pid, tid: 0, args: [("sort_index", .int(sortIndex))]),
            ]
            for (index, (tid, name)) in tracks.enumerated() {
                meta.append(Event(name: "thread_name", cat: "__metadata", ph: "M", ts: 0, pid: pid, tid: tid, args: [("name", .string(name))]))
                meta.append(Event(name: "thread_sort_index", cat: "__metadata", ph: "M", ts: 0, pid: pid, tid: tid, args: [("sort_index", .int(index))]))
            }
            return meta + out
        }
    }

    // MARK: Replay

    /// The trace of a replay run with `ReplayOptions.recordTrace`: one process per
    /// scenario, with a track for the main queue, the frame clock, and each context
    /// queue. Scenarios without trace data get only their metadata and hangs.
    public static func events(_ report: ReplayReport) -> [Event] {
        let origin =
            report.scenarios.compactMap { r in
                r.trace.map { t in [t.runStart, t.mainQueueItems.first?.start ?? .max, t.runtime.map(\.start).min() ?? .max].min()! }
            }.min() ?? 0
        var all: [Event] = []
        let mainLabel = "com.apple.main-thread"
        for (index, r) in report.scenarios.enumerated() {
            guard let t = r.trace else { continue }
            var b = Builder(pid: index + 1, origin: origin)
            let main = b.track(mainLabel, name: "main queue")
            let clock = b.track("frame clock", name: "frame clock")
            let contextNames = Self.contextNames(t.runtime)
            func queueTrack(_ label: String) -> Int {
                if label == mainLabel { return main }
                let names = contextNames[label].map { " (context " + $0.joined(separator: ", ") + ")" } ?? ""
                return b.track(label, name: label + names)
            }
            for item in t.mainQueueItems {
                b.slice(item.name, cat: "main-queue", tid: main, start: item.start, end: item.end)
            }
            for f in t.frames {
                let late = f.start > f.due ? f.start - f.due : 0
                b.slice("frame \(f.index)", cat: "frame-clock", tid: clock, start: f.due, end: f.start, args: [("late_ms", .number(Double(late) / 1e6))])
            }
            var saves: [UInt64: (tid: Int, start: UInt64, end: UInt64)] = [:]
            for e in t.runtime {
                let tid = queueTrack(e.queueLabel)
                let context = e.contextName ?? "#\(e.contextNumber)"
                var args: [(String, ArgValue)] = [("context", .string(context)), ("queue", .string(e.queueLabel))]
                if let s = e.mergedSaveID { args.append(("save_id", .int(Int(s)))) }
                if let s = e.saveID { args.append(("save_id", .int(Int(s)))) }
                b.slice("\(e.name) \(context)", cat: "context", tid: tid, start: e.start, end: e.end, args: args)
                if let s = e.saveID { saves[s] = (tid, e.start, e.end) }
            }
            // A flow from each save to the merges of its changes. The merge may start
            // before the save returns (the did-save is posted inside it), so the
            // flow leaves the save before the merge starts.
            for e in t.runtime {
                guard let id = e.mergedSaveID, let save = saves[id] else { continue }
                let flowID = UInt64(index + 1) << 48 | UInt64(e.id)
                b.events.append(
                    Event(name: "did-save → merge", cat: "merge", ph: "s", ts: b.us(save.start + (min(save.end, max(save.start, e.start)) - save.start) / 2), pid: b.pid, tid: save.tid, id: flowID, bp: "e"))
                b.events.append(
                    Event(name: "did-save → merge", cat: "merge", ph: "f", ts: b.us(e.start + (e.end - e.start) / 2), pid: b.pid, tid: queueTrack(e.queueLabel), id: flowID, bp: "e"))
            }
            for s in t.spans {
                b.slice(s.name, cat: "work", tid: queueTrack(s.queue), start: s.start, end: s.end)
            }
            Self.addInstants(of: r, t, to: &b, main: main, mainLabel: mainLabel)
            all += b.finish(processName: "scenario \(r.name)", sortIndex: index)
        }
        return all
    }

    /// Each context queue's contexts, by queue label, so that its track names them.
    static func contextNames(_ runtime: [TraceData.RuntimeSpan]) -> [String: [String]] {
        var contextNames: [String: [String]] = [:]
        for e in runtime where !e.isMainQueue {
            let name = e.contextName ?? "#\(e.contextNumber)"
            if !(contextNames[e.queueLabel]?.contains(name) ?? false) { contextNames[e.queueLabel, default: []].append(name) }
        }
        return contextNames
    }

    /// The hangs on the main queue's track and the violations on the queue that made each.
    static func addInstants(of r: ScenarioResult, _ t: TraceData, to b: inout Builder, main: Int, mainLabel: String) {
        for h in r.hangs {
            let at = t.runStart &+ UInt64(max(0, h.startMs) * 1e6)
            b.instant("hang: \(h.label) (\(Int(h.durationMs)) ms)", cat: "hang", tid: main, at: at, args: [
                ("duration_ms", .number(h.durationMs)), ("heaviest", .string(h.heaviestFunction.map(SymbolName.shortName) ?? "-")),
            ])
        }
        for v in t.violations {
            let tid = v.queue == mainLabel ? main : b.track(v.queue, name: v.queue)
            b.instant("violation: \(v.kind)", cat: "violation", tid: tid, at: v.time, args: [("message", .string(v.message))])
        }
    }

    /// The JSON file of `events(report)`.
    public static func render(_ report: ReplayReport) -> Data {
        let s = report.settings
        return encode(events(report), otherData: [
            ("tool", "ctxdebug replay"), ("generatedAt", report.generatedAt), ("entries", "\(s.entries)"), ("fps", "\(s.fps)"),
            ("checkingLevel", "\(s.checkingLevel)"), ("cores", "\(s.cores)"), ("build", s.buildConfiguration),
        ])
    }

    // MARK: Journal

    /// At most this many accesses get an event of their own; beyond, only the
    /// per-queue runs (slices) and the violations are drawn.
    public static let journalAccessLimit = 200_000

    /// The trace of an access journal: one process per pid, one track per thread.
    /// Each run of accesses a thread made on one queue (with gaps under 100 µs) is a
    /// slice named after the queue; each access is an instant in it (up to
    /// `journalAccessLimit`), and each violation an instant in the "violation" category.
    public static func events(journal: AccessJournalContents) -> [Event] {
        let labels = journal.queueLabels
        let names = journal.threadNames
        func label(_ q: UInt) -> String {
            if q == AccessJournalContents.noQueue { return "(no queue)" }
            if q == AccessJournalContents.mainQueue { return "main queue" }
            return labels[q] ?? "queue \(q)"
        }
        // Events by (pid, thread), in time order.
        var byThread: [UInt64: [AccessJournalContents.Event]] = [:]
        journal.forEachEvent { e in byThread[UInt64(e.pid) << 32 | UInt64(e.thread), default: []].append(e) }
        let origin = byThread.values.compactMap { $0.map(\.time).min() }.min() ?? 0
        var builders: [UInt32: Builder] = [:]
        var accessBudget = journalAccessLimit
        for key in byThread.keys.sorted() {
            var list = byThread[key]!
            list.sort { $0.time < $1.time }
            let pid = UInt32(key >> 32), thread = UInt32(key & 0xffff_ffff)
            var b = builders[pid] ?? Builder(pid: Int(pid), origin: origin)
            let tid = b.track("\(thread)", name: names[key].map { "\($0) (thread \(thread))" } ?? "thread \(thread)")
            var runStart = 0
            func flush(_ end: Int) {
                guard end > runStart else { return }
                let first = list[runStart], last = list[end - 1]
                var ops: [String: Int] = [:]
                for e in list[runStart..<end] { ops[e.operation, default: 0] += 1 }
                let opsText = ops.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                b.slice("on \(label(first.current))", cat: "accesses", tid: tid, start: first.time, end: max(last.time, first.time + 1_000), args: [
                    ("accesses", .int(end - runStart)), ("operations", .string(opsText)),
                ])
            }
            for (i, e) in list.enumerated() {
                if i > runStart && (e.current != list[i - 1].current || e.time - list[i - 1].time > 100_000) {
                    flush(i)
                    runStart = i
                }
                var args: [(String, ArgValue)] = [("owner", .string(label(e.owner))), ("by", .string(label(e.current)))]
                if e.context != 0 { args.append(("context", .int(Int(e.context)))) }
                if e.subject != 0 { args.append(("entity", .int(Int(e.subject)))) }
                if e.member != .max { args.append(("attribute", .int(Int(e.member)))) }
                if e.instance != 0 { args.append(("object", .int(Int(e.instance)))) }
                if !e.allowed {
                    b.instant("VIOLATION \(e.operation)", cat: "violation", tid: tid, at: e.time, args: args)
                } else if accessBudget > 0 {
                    accessBudget -= 1
                    b.instant(e.operation, cat: "access", tid: tid, at: e.time, args: args)
                }
            }
            flush(list.count)
            builders[pid] = b
        }
        var all: [Event] = []
        for (i, pid) in builders.keys.sorted().enumerated() {
            all += builders[pid]!.finish(processName: "pid \(pid)", sortIndex: i)
        }
        return all
    }

    public static func render(journal: AccessJournalContents) -> Data {
        encode(events(journal: journal), otherData: [("tool", "ctxdebug journal"), ("journal", journal.path)])
    }

    // MARK: JSON

    /// `{"traceEvents":[...],"displayTimeUnit":"ms","otherData":{...}}`, one event a line.
    public static func encode(_ events: [Event], otherData: [(String, String)]) -> Data {
        var out = "{\"displayTimeUnit\":\"ms\",\"otherData\":{"
        out += otherData.map { "\(Escape.jsonString($0.0)):\(Escape.jsonString($0.1))" }.joined(separator: ",")
        out += "},\"traceEvents\":[\n"
        for (i, e) in events.enumerated() {
            if i > 0 { out += ",\n" }
            out += "{\"name\":\(Escape.jsonString(e.name)),\"cat\":\(Escape.jsonString(e.cat)),\"ph\":\"\(e.ph)\",\"ts\":\(number(e.ts))"
            if let d = e.dur { out += ",\"dur\":\(number(d))" }
            out += ",\"pid\":\(e.pid),\"tid\":\(e.tid)"
            if let id = e.id { out += ",\"id\":\(id)" }
            if let s = e.s { out += ",\"s\":\"\(s)\"" }
            if let bp = e.bp { out += ",\"bp\":\"\(bp)\"" }
            if !e.args.isEmpty {
                out += ",\"args\":{"
                out += e.args.map { key, value in
                    let v: String
                    switch value {
                    case .string(let s): v = Escape.jsonString(s)
                    case .number(let d): v = number(d)
                    case .int(let n): v = "\(n)"
                    }
                    return "\(Escape.jsonString(key)):\(v)"
                }.joined(separator: ",")
                out += "}"
            }
            out += "}"
        }
        out += "\n]}\n"
        return Data(out.utf8)
    }

    /// Microseconds with nanosecond precision.
    static func number(_ x: Double) -> String {
        guard x.isFinite else { return "0" }
        let rounded = (x * 1000).rounded() / 1000
        if rounded == rounded.rounded() && abs(rounded) < 1e15 { return String(Int64(rounded)) }
        return String(format: "%.3f", rounded)
    }

}
