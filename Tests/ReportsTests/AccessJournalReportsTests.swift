import Foundation
import ReportFormats
import Reports
import Testing
import ViolationModel

/// `ctxdebug journal`'s text and JSON, and its Chrome trace, from journal contents
/// built by hand (the CLI tests read real journal files).
@Suite("The journal's reports")
struct AccessJournalReportsTests {
    static let ok = AccessJournalContents.Event(
        time: 1_500_000, pid: 10, thread: 3, current: 2, owner: 2, context: 1, subject: 4, member: .max, instance: 0,
        operation: "fetch", allowed: true)
    static let wrong = AccessJournalContents.Event(
        time: 2_000_000, pid: 10, thread: 3, current: AccessJournalContents.mainQueue, owner: 2, context: 1, subject: 4, member: 2,
        instance: 9, operation: "get", allowed: false)
    static let stats = AccessJournalStats(
        fileBytes: 4_096, sessions: 1, blocks: 1, events: 2, violations: 1, threads: 1, queues: 1, corruptBlocks: 0,
        garbageBytes: 5, cutTailBytes: 12, recordBytesPerEvent: 3.333, fileBytesPerEvent: 2_048, operations: ["get": 1, "fetch": 1],
        duration: 500_000)

    static func journal(_ events: [AccessJournalContents.Event] = [ok, wrong]) -> AccessJournalContents {
        AccessJournalContents(
            path: "/tmp/app.journal", sessions: [AccessJournalContents.Session(pid: 10, startWallNanos: 0)],
            queueLabels: [2: "bg <queue>"], threadNames: [10 << 32 | 3: "worker"],
            problems: [
                AccessJournalContents.Problem(kind: "cut-tail", offset: 4_084, length: 12, detail: "no end", description: "the tail was cut")
            ],
            stats: stats, events: events)
    }

    @Test("A dump line: time, process, verdict, operation, queues by number and label, the access's numbers")
    func line() {
        let labels = Self.journal().queueLabels
        #expect(
            AccessJournalReport.line(Self.wrong, labels: labels)
                == "      2.000000 ms  pid 10 thread 3  VIOLATION get  owner 2 'bg <queue>'  by 1  context 1  entity 4  attribute 2  object 9")
        var none = Self.ok
        none.current = AccessJournalContents.noQueue
        #expect(AccessJournalReport.line(none, labels: labels).contains("by 0 (no queue)  context 1  entity 4"))
        #expect(!AccessJournalReport.line(none, labels: labels).contains("attribute"))
    }

    @Test("violations as text: only the violations, then their count; in pieces for a large journal")
    func violationsText() {
        var pieces: [String] = []
        AccessJournalReport.writeEventsText(Self.journal(), violationsOnly: true) { pieces.append($0) }
        let text = pieces.joined()
        #expect(text.split(separator: "\n").count == 2)
        #expect(text.hasSuffix("VIOLATION get  owner 2 'bg <queue>'  by 1  context 1  entity 4  attribute 2  object 9\n1 violation\n"))
        pieces = []
        AccessJournalReport.writeEventsText(Self.journal(Array(repeating: Self.ok, count: 2_000)), violationsOnly: false) { pieces.append($0) }
        #expect(pieces.count > 1)
        #expect(pieces.joined().split(separator: "\n").count == 2_000)
    }

    @Test("dump as JSON: the events with labels, attribute null for none, and the problems")
    func eventsJSON() throws {
        let data = try AccessJournalReport.eventsJSON(Self.journal(), violationsOnly: false)
        #expect(data.last == 0x0A)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let events = try #require(object["events"] as? [[String: Any]])
        #expect(events.map { $0["operation"] as? String } == ["fetch", "get"])
        #expect(events[0]["attribute"] == nil)
        #expect(events[1]["attribute"] as? Int == 2)
        #expect(events[1]["ownerLabel"] as? String == "bg <queue>")
        #expect(events[1]["currentLabel"] == nil)
        #expect((object["problems"] as? [[String: Any]])?.first?["kind"] as? String == "cut-tail")
    }

    @Test("stats as text and JSON")
    func statsReports() throws {
        let text = AccessJournalReport.statsText(Self.journal())
        #expect(text.hasPrefix("journal:      /tmp/app.journal\nsize:         4096 bytes\nsessions:     1 (pid 10 from 1970-01-01T00:00:00.000Z)\n"))
        #expect(text.contains("\nqueues:       1 (2 'bg <queue>')\n"))
        #expect(text.contains("\nbytes/event:  3.33 in records, 2048.00 for the whole file\n"))
        #expect(text.contains("\noperations:   fetch 1, get 1\n"))
        #expect(text.hasSuffix("\nproblems:     1\n  - the tail was cut"))
        let object = try #require(try JSONSerialization.jsonObject(with: AccessJournalReport.statsJSON(Self.journal())) as? [String: Any])
        #expect(object["recordBytesPerEvent"] as? Double == 3.33)
        #expect(object["queues"] as? [String: String] == ["2": "bg <queue>"])
        #expect(object["cutTailBytes"] as? Int == 12)
        #expect(object["garbageBytes"] as? Int == 5)
    }

    @Test("Chrome trace of a journal: a track per thread, a slice per run on one queue, instants for accesses and violations")
    func chromeTrace() throws {
        let events = ChromeTrace.events(journal: Self.journal())
        #expect(events.contains { $0.name == "thread_name" && $0.args.first.map { "\($0.1)" }?.contains("worker (thread 3)") == true })
        #expect(events.filter { $0.cat == "accesses" }.map(\.name) == ["on bg <queue>", "on main queue"])
        #expect(events.contains { $0.cat == "access" && $0.name == "fetch" })
        #expect(events.contains { $0.cat == "violation" && $0.name == "VIOLATION get" })
        let file = String(decoding: ChromeTrace.render(journal: Self.journal()), as: UTF8.self)
        #expect(file.contains("\"journal\":\"/tmp/app.journal\""))
    }
}
