import Foundation
import ReplayModel
import Reports
import Testing

/// The replay's text, JSON, HTML and Chrome trace, from a result model built by hand.
@Suite("The replay's reports")
struct ReplayReportsTests {
    @Test("Text: a column per scenario, the verdicts, the hangs' stacks with the app's frames")
    func text() {
        let report = Fixtures.report([Fixtures.scenario("baseline", p99: 3.5), Fixtures.scenario("export-main", p99: 410, hangs: [Fixtures.hang])])
        let text = TextReport.render(report)
        #expect(text.hasPrefix("ctxdebug replay: 1000 entries, 60 fps, hang threshold 250 ms, checking off (debug build, 2 cores)\n\n"))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        func cells(_ label: String) -> [Substring]? {
            lines.first { $0.hasPrefix(label) }.map { Array($0.dropFirst(label.count).split(separator: " ")) }
        }
        #expect(lines[2].split(separator: " ") == ["baseline", "export-main"])
        #expect(cells("frame latency p99 (ms)") == ["3.5", "410.0"])
        #expect(cells("longest hang (ms)") == ["-", "420"])
        #expect(text.contains("- The background export cost the UI nothing.\n"))
        #expect(text.contains("  export-main: 'export <main>' blocked 420 ms from 100 ms, 3 samples; most seen: CSVExport.writeRows\n"))
        // Only the app's own frames are listed when there are some.
        #expect(text.contains("    SurfJournal.CSVExport.writeRows (CSVExport.swift:33)\n"))
        #expect(!text.contains("Glibc.write"))
        #expect(TextReport.grouped(1_234_567) == "1,234,567")
    }

    @Test("JSON: schema 1, decodes to the same figures, without the raw trace")
    func json() throws {
        let trace = TraceData(runStart: 0, runEnd: 1, mainQueueItems: [], frames: [], spans: [], runtime: [], violations: [])
        let report = Fixtures.report([Fixtures.scenario("baseline", p99: 3.5, trace: trace)])
        let data = try JSONReport.render(report)
        #expect(data.last == 0x0A)
        let decoded = try JSONReport.decode(data)
        #expect(decoded.schemaVersion == ReplayReport.currentSchemaVersion)
        #expect(decoded.scenarios.map(\.frames.latencyMs.p99) == [3.5])
        #expect(decoded.scenarios.first?.timeline?.frameLatencyMs == [0, 0.5])
        #expect(decoded.scenarios.first?.trace == nil)
        #expect(!String(decoding: data, as: UTF8.self).contains("runStart"))
    }

    @Test("HTML: one page, no script, every string from the data escaped")
    func html() {
        let page = HTMLReport.render(Fixtures.report([Fixtures.scenario("export-main", p99: 410, hangs: [Fixtures.hang])]))
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        #expect(!page.contains("<script"))
        #expect(page.contains("export &lt;main&gt;"))
        #expect(!page.contains("export <main>"))
    }

    /// A save on a background context and the merge of its changes on the main queue.
    static var trace: TraceData {
        let ms: UInt64 = 1_000_000
        return TraceData(
            runStart: 1_000 * ms, runEnd: 1_100 * ms,
            mainQueueItems: [TraceData.Slice(name: "frame", queue: "com.apple.main-thread", start: 1_001 * ms, end: 1_002 * ms)],
            frames: [TraceData.FrameTick(index: 0, due: 1_000 * ms, start: 1_001 * ms)],
            spans: [],
            runtime: [
                TraceData.RuntimeSpan(
                    id: 5, name: "save", contextNumber: 2, contextName: "background", queueLabel: "bg", isMainQueue: false,
                    start: 1_010 * ms, end: 1_020 * ms, saveID: 5),
                TraceData.RuntimeSpan(
                    id: 6, name: "merge", contextNumber: 1, contextName: "view", queueLabel: "com.apple.main-thread", isMainQueue: true,
                    start: 1_015 * ms, end: 1_016 * ms, mergedSaveID: 5),
            ],
            violations: [TraceData.ViolationInstant(time: 1_030 * ms, kind: "wrong-queue", queue: "bg", message: "BUG DETECTED")])
    }

    @Test("Chrome trace: the runtime's spans on their queues' tracks, a flow from a save to its merge")
    func chromeTrace() throws {
        let events = ChromeTrace.events(Fixtures.report([Fixtures.scenario("sync", p99: 3, trace: Self.trace)]))
        let save = try #require(events.first { $0.name == "save background" })
        let merge = try #require(events.first { $0.name == "merge view" })
        #expect(save.cat == "context" && save.ph == "X")
        #expect(save.dur == 10_000)
        #expect(save.args.contains { $0.0 == "save_id" })
        #expect(merge.args.contains { $0.0 == "save_id" })
        let flowStart = try #require(events.first { $0.ph == "s" })
        let flowEnd = try #require(events.first { $0.ph == "f" })
        #expect(flowStart.id == flowEnd.id)
        #expect(flowStart.tid == save.tid)
        #expect(flowEnd.tid == merge.tid)
        let names = events.filter { $0.name == "thread_name" }.compactMap { event -> String? in
            if case .string(let name)? = event.args.first?.1 { return name } else { return nil }
        }
        #expect(names.contains("bg (context background)"))
        #expect(events.contains { $0.name == "violation: wrong-queue" && $0.ph == "i" })
        let file = String(decoding: ChromeTrace.render(Fixtures.report([Fixtures.scenario("sync", p99: 3, trace: Self.trace)])), as: UTF8.self)
        #expect(file.hasPrefix("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"tool\":\"ctxdebug replay\""))
    }
}

@Suite("Function names of sampled stacks")
struct SymbolNameTests {
    @Test("The demangler's prefixes go; the short name is the last two parts without arguments")
    func names() {
        #expect(SymbolName.stripped("generic specialization <Swift.Int> of static App.Cache.fill(_:)") == "App.Cache.fill(_:)")
        #expect(SymbolName.stripped("merged SurfJournal.Seeding.run()") == "SurfJournal.Seeding.run()")
        #expect(SymbolName.shortName("SurfJournal.CSVExport.writeRows(to:)") == "CSVExport.writeRows")
        #expect(SymbolName.shortName("main") == "main")
    }
}
