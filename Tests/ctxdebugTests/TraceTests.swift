import ConcurrencyDebug
import Foundation
import TestSupport
import Testing

/// `ctxdebug replay --trace` and `ctxdebug journal --trace`: the Chrome Trace Event
/// Format JSON of a real run, checked event by event.
@Suite("ctxdebug --trace", .serialized)
struct TraceTests {
    typealias Event = [String: Any]

    static func load(_ url: URL) throws -> [Event] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        let root = try #require(object as? [String: Any])
        return try #require(root["traceEvents"] as? [Event])
    }

    static func number(_ e: Event, _ key: String) -> Double? { (e[key] as? NSNumber)?.doubleValue }

    /// The checks every trace must pass; returns the thread names by (pid, tid).
    @discardableResult
    static func checkWellFormed(_ events: [Event]) -> [String: String] {
        var names: [String: String] = [:]
        var slices: [String: [(ts: Double, end: Double, name: String)]] = [:]
        var usedTracks: Set<String> = []
        var flowStarts: [Double: (ts: Double, track: String)] = [:]
        var flowEnds: [Double: (ts: Double, track: String)] = [:]
        for e in events {
            let ph = e["ph"] as? String
            #expect(ph != nil, "no ph: \(e)")
            #expect(number(e, "ts") != nil, "no ts: \(e)")
            #expect(number(e, "pid") != nil, "no pid: \(e)")
            #expect(number(e, "tid") != nil, "no tid: \(e)")
            #expect(e["name"] is String, "no name: \(e)")
            guard let ph, let ts = number(e, "ts"), let pid = number(e, "pid"), let tid = number(e, "tid") else { continue }
            let track = "\(Int(pid))/\(Int(tid))"
            switch ph {
            case "M":
                if e["name"] as? String == "thread_name" {
                    names[track] = (e["args"] as? [String: Any])?["name"] as? String
                }
            case "X":
                let dur = number(e, "dur")
                #expect(dur != nil, "X without dur: \(e)")
                #expect((dur ?? -1) >= 0, "negative dur: \(e)")
                slices[track, default: []].append((ts, ts + (dur ?? 0), e["name"] as? String ?? ""))
                usedTracks.insert(track)
            case "i":
                #expect(["t", "p", "g"].contains(e["s"] as? String ?? "t"))
                usedTracks.insert(track)
            case "s", "f":
                let id = number(e, "id")
                #expect(id != nil, "flow without id: \(e)")
                if let id {
                    if ph == "s" {
                        #expect(flowStarts[id] == nil, "two starts for flow \(id)")
                        flowStarts[id] = (ts, track)
                    } else {
                        #expect(flowEnds[id] == nil, "two ends for flow \(id)")
                        flowEnds[id] = (ts, track)
                    }
                }
                usedTracks.insert(track)
            default:
                Issue.record("unexpected ph \(ph)")
            }
        }
        // Thread names are set for every track that has events.
        for track in usedTracks { #expect(names[track] != nil, "track \(track) has no thread_name") }
        // Slices on one track nest: sorted by start (longest first), each one ends
        // before the enclosing one does. Timestamps have nanosecond precision.
        let epsilon = 0.0015
        for (track, list) in slices {
            let sorted = list.sorted { $0.ts != $1.ts ? $0.ts < $1.ts : $0.end > $1.end }
            var stack: [(ts: Double, end: Double, name: String)] = []
            for s in sorted {
                while let top = stack.last, top.end <= s.ts + epsilon { stack.removeLast() }
                if let top = stack.last {
                    #expect(s.end <= top.end + epsilon, "on \(names[track] ?? track): '\(s.name)' [\(s.ts), \(s.end)] overlaps '\(top.name)' [\(top.ts), \(top.end)]")
                }
                stack.append(s)
            }
        }
        // Every flow has both ends, the end no earlier than the start, and each end
        // sits in a slice of its track (the save, the merge).
        #expect(Set(flowStarts.keys) == Set(flowEnds.keys), "flows without both ends")
        for (id, start) in flowStarts {
            guard let end = flowEnds[id] else { continue }
            #expect(start.ts <= end.ts + epsilon, "flow \(id) goes back in time")
            for point in [start, end] {
                let inside = (slices[point.track] ?? []).contains { $0.ts - epsilon <= point.ts && point.ts <= $0.end + epsilon }
                #expect(inside, "flow \(id) end at \(point.ts) on \(point.track) is not in a slice")
            }
        }
        return names
    }

    @Test("The trace of a real replay: every event well formed, slices nest, flows from saves to merges, tracks named")
    func replayTrace() throws {
        let dir = try temporaryDirectory("trace")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("journal.sqlite").path
        let trace = dir.appendingPathComponent("trace.json")
        // A small store: the app's export on the main queue (about 0.6 ms a line) stops the
        // frame clock while it runs, and export-main must draw frames after it too.
        let replay = try CLI.ctxdebug([
            "replay", "--store", store, "--entries", "400", "--duration", "1.5",
            "--scenario", "export-main", "--scenario", "export-background", "--scenario", "sync-background", "--scenario", "nested-stack",
            "--trace", trace.path,
        ])
        try #require(replay.status == 0, "\(replay.stderr)")
        let events = try Self.load(trace)
        #expect(events.count > 200)
        let names = Self.checkWellFormed(events)

        // One process per scenario, each with a main-queue and a frame-clock track.
        let processes = events.filter { $0["name"] as? String == "process_name" }.compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
        #expect(processes == ["scenario export-main", "scenario export-background", "scenario sync-background", "scenario nested-stack"])
        for pid in 1...4 {
            #expect(names["\(pid)/1"] == "main queue")
            #expect(names["\(pid)/2"] == "frame clock")
        }
        // Context queues have tracks of their own.
        #expect(names.values.contains { $0.contains("(context export)") })
        #expect(names.values.contains { $0.contains("(context sync)") })

        func slices(_ cat: String, pid: Int) -> [Event] {
            events.filter { $0["ph"] as? String == "X" && $0["cat"] as? String == cat && Self.number($0, "pid") == Double(pid) }
        }
        // Frames on the main queue and on the frame clock; the export as a slice.
        #expect(slices("main-queue", pid: 1).contains { $0["name"] as? String == "frame" })
        #expect(slices("frame-clock", pid: 1).count > 30)
        #expect(slices("work", pid: 1).contains { ($0["name"] as? String ?? "").hasPrefix("export") && Self.number($0, "tid") == 1 })
        #expect(slices("work", pid: 2).contains { ($0["name"] as? String ?? "").hasPrefix("export") && Self.number($0, "tid") != 1 })
        // The runtime's perform blocks, fetches, saves and merges.
        let context = events.filter { $0["cat"] as? String == "context" }.compactMap { $0["name"] as? String }
        for kind in ["perform ", "performAndWait ", "fetch ", "save sync", "merge viewContext"] {
            #expect(context.contains { $0.hasPrefix(kind) }, "no '\(kind)' slice")
        }
        // sync-background: each burst's save flows to its merge on the main queue.
        let flowStarts = events.filter { $0["ph"] as? String == "s" && Self.number($0, "pid") == 3 }
        let flowEnds = events.filter { $0["ph"] as? String == "f" && Self.number($0, "pid") == 3 }
        #expect(flowStarts.count >= 8, "\(flowStarts.count) flows")
        #expect(flowEnds.allSatisfy { Self.number($0, "tid") == 1 })
        #expect(flowStarts.allSatisfy { Self.number($0, "tid") != 1 })
        // Timestamps are microseconds: the runs last about a second each.
        let lastEnd = events.compactMap { e -> Double? in
            guard e["ph"] as? String == "X", let ts = Self.number(e, "ts"), let d = Self.number(e, "dur") else { return nil }
            return ts + d
        }.max() ?? 0
        #expect(lastEnd > 4_000_000 && lastEnd < 600_000_000, "last slice ends at \(lastEnd) µs")
    }

    @Test("A replay with violations in report mode marks them as instant events")
    func violationsInTrace() throws {
        let dir = try temporaryDirectory("trace-violations")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("journal.sqlite").path
        let trace = dir.appendingPathComponent("trace.json")
        let html = dir.appendingPathComponent("report.html")
        let replay = try CLI.ctxdebug(
            ["replay", "--store", store, "--entries", "2000", "--duration", "0.5", "--inject-bug", "object-across-queues", "--trace", trace.path, "--html", html.path],
            environment: ConcurrencyDebug.Variable.environment([.concurrency: "1", .onViolation: "report"]))
        #expect(replay.status == 66, "\(replay.stderr)")
        let events = try Self.load(trace)
        Self.checkWellFormed(events)
        let violations = events.filter { $0["cat"] as? String == "violation" }
        #expect(!violations.isEmpty)
        #expect(violations.allSatisfy { $0["ph"] as? String == "i" })
        // The HTML lists the violation with its stack.
        let text = try String(contentsOf: html, encoding: .utf8)
        #expect(text.contains("class=\"violation\""))
        #expect(text.contains("BUG DETECTED"))
        #expect(text.contains("<ol class=\"stack\""))
    }

    @Test("journal --trace: a track per thread, an instant per access, violations marked")
    func journalTrace() throws {
        let journal = try JournalCommandTests.makeJournal()
        defer { try? FileManager.default.removeItem(atPath: journal) }
        let dir = try temporaryDirectory("journal-trace")
        defer { try? FileManager.default.removeItem(at: dir) }
        let trace = dir.appendingPathComponent("journal-trace.json")
        let run = try CLI.ctxdebug(["journal", "stats", journal, "--trace", trace.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("events:       2000"))
        let events = try Self.load(trace)
        let names = Self.checkWellFormed(events)
        #expect(!names.isEmpty)
        let accesses = events.filter { $0["cat"] as? String == "access" }
        let violations = events.filter { $0["cat"] as? String == "violation" }
        #expect(accesses.count == 1980)
        #expect(violations.count == 20)
        #expect(violations.allSatisfy { ($0["name"] as? String ?? "").hasPrefix("VIOLATION") && $0["ph"] as? String == "i" })
        #expect(events.contains { $0["cat"] as? String == "accesses" && $0["ph"] as? String == "X" })

        let unwritable = try CLI.ctxdebug(["journal", "stats", journal, "--trace", "/nonexistent/dir/t.json"])
        #expect(unwritable.status == 73, "\(unwritable.stderr)")
    }
}
