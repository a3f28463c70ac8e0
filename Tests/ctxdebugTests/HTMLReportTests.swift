import Foundation
import Replay
import TestSupport
import Testing

/// `ctxdebug replay --html`: real replays through the built binary, rendered in
/// headless Chromium.
@Suite("ctxdebug replay --html", .serialized)
struct HTMLReportTests {
    typealias S = ReportTestSupport

    /// The console check itself: a page whose script logs an error shows up in the
    /// log we read (so "no console messages" below means something).
    @Test("Chromium's console messages reach the log the tests read")
    func consoleCaptureWorks() throws {
        let dir = try temporaryDirectory("html-control")
        defer { try? FileManager.default.removeItem(at: dir) }
        let page = dir.appendingPathComponent("control.html")
        try Data("<!DOCTYPE html><html><body><p>x</p><script>console.error('control-error-42')</script></body></html>".utf8).write(to: page)
        let run = try S.chromium(["--dump-dom"], file: page)
        #expect(S.consoleMessages(run.stderr).contains { $0.contains("control-error-42") }, "\(run.stderr)")
    }

    @Test("The HTML of a real replay loads with no console errors, has an SVG chart per scenario, and screenshots to a PNG")
    func rendersInChromium() throws {
        let dir = try temporaryDirectory("html")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("journal.sqlite").path
        let html = dir.appendingPathComponent("report.html")
        let scenarios = ["baseline", "export-main", "export-background", "sync-background", "search-background"]
        let replay = try CLI.ctxdebug(
            ["replay", "--store", store, "--entries", "2000", "--duration", "1"] + scenarios.flatMap { ["--scenario", $0] } + ["--html", html.path])
        try #require(replay.status == 0, "\(replay.stderr)")
        let text = try String(contentsOf: html, encoding: .utf8)
        #expect(text.hasPrefix("<!DOCTYPE html>"))
        // Self-contained: no remote loads and no scripts at all.
        let withoutNamespace = text.replacingOccurrences(of: "xmlns=\"http://www.w3.org/2000/svg\"", with: "")
        #expect(!withoutNamespace.contains("http://") && !withoutNamespace.contains("https://"), "the page links to something")
        #expect(!text.contains(" src=") && !text.contains(" href="), "the page loads or links to something")
        #expect(!text.lowercased().contains("<script"))

        let dom = try S.chromium(["--dump-dom"], file: html)
        #expect(dom.status == 0, "\(dom.stderr)")
        #expect(S.consoleMessages(dom.stderr).isEmpty, "console: \(S.consoleMessages(dom.stderr))")
        #expect(dom.stdout.contains("</html>"))
        for name in scenarios {
            // The scenario's section, holding its frame-latency chart.
            let marker = "data-scenario=\"\(name)\""
            let section = try #require(dom.stdout.range(of: marker), "no section for \(name)")
            let rest = dom.stdout[section.upperBound...]
            let end = rest.range(of: "</section>")?.lowerBound ?? rest.endIndex
            let hasChart = rest[..<end].contains("<svg class=\"chart frame-chart\"")
            let hasFrames = rest[..<end].contains("class=\"series stems\"")
            #expect(hasChart, "no frame chart in \(name)")
            #expect(hasFrames, "no frames drawn in \(name)")
        }
        #expect(dom.stdout.components(separatedBy: "<svg class=\"chart frame-chart\"").count - 1 == scenarios.count)
        #expect(dom.stdout.contains("<svg class=\"chart cdf-chart\""))
        #expect(dom.stdout.contains("<svg class=\"chart hitch-chart\""))
        // The export's span is shaded in the export scenarios' charts.
        #expect(dom.stdout.contains("class=\"span span-export\""))
        #expect(dom.stdout.contains("class=\"span span-sync\""))
        #expect(dom.stdout.contains("<footer>") && dom.stdout.contains("cores"))

        let png = dir.appendingPathComponent("report.png")
        let shot = try S.chromium(["--screenshot=\(png.path)", "--window-size=1280,2000", "--hide-scrollbars"], file: html)
        #expect(shot.status == 0, "\(shot.stderr)")
        let data = try Data(contentsOf: png)
        #expect(data.count > 20_000)
        #expect(Array(data.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        if let keep = ProcessInfo.processInfo.environment["CTXDEBUG_KEEP_SCREENSHOT"] {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(at: png, to: URL(fileURLWithPath: keep))
        }
    }

    @Test("A location of <script>alert(1)</script> in the store shows as text, and no script runs")
    func escapesDataFromTheStore() throws {
        let dir = try temporaryDirectory("html-escape")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("journal.sqlite").path
        let seed = try CLI.ctxdebug(["seed", "--store", store, "--entries", "10"])
        try #require(seed.status == 0, "\(seed.stderr)")
        // Every entry gets the location, so the visible rows show it whatever the scroll position.
        let sqlite = try #require(CLI.which("sqlite3"), "install sqlite3 (Scripts/bootstrap)")
        let update = try CLI.run(sqlite, [store, "UPDATE ZJOURNALENTRY SET ZLOCATION = '<script>alert(1)</script>'; SELECT changes();"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(update.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "10")

        let html = dir.appendingPathComponent("report.html")
        let replay = try CLI.ctxdebug(["replay", "--store", store, "--scenario", "baseline", "--duration", "0.5", "--html", html.path])
        try #require(replay.status == 0, "\(replay.stderr)")
        let text = try String(contentsOf: html, encoding: .utf8)
        #expect(text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!text.contains("<script>alert(1)"))

        let dom = try S.chromium(["--dump-dom"], file: html)
        #expect(dom.status == 0, "\(dom.stderr)")
        // The DOM holds the location as text (serialized escaped), and no script element.
        #expect(dom.stdout.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!dom.stdout.lowercased().contains("<script"))
        // A script that ran (or one the page's policy refused) would log to the console.
        #expect(S.consoleMessages(dom.stderr).isEmpty, "console: \(S.consoleMessages(dom.stderr))")
    }

    @Test("The HTML of a default-size replay (the default entries, default scenarios) stays under 2 MB")
    func defaultReplayUnderTwoMegabytes() throws {
        // The store is kept between runs in the temporary directory. --duration 1 instead
        // of the default 3 keeps the test short; the page's size grows with frames, and
        // the charts draw at most one point per pixel column whatever the length.
        let entries = ReplayOptions.defaultEntries
        let store = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("ctxdebug-tests-default-\(entries).sqlite").path
        let dir = try temporaryDirectory("html-size")
        defer { try? FileManager.default.removeItem(at: dir) }
        let html = dir.appendingPathComponent("report.html")
        let replay = try CLI.ctxdebug(["replay", "--store", store, "--entries", "\(entries)", "--duration", "1", "--html", html.path])
        try #require(replay.status == 0, "\(replay.stderr)")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: html.path)[.size] as? Int)
        #expect(size > 10_000)
        #expect(size < 2 * 1024 * 1024, "the HTML is \(size) bytes")
        let text = try String(contentsOf: html, encoding: .utf8)
        #expect(text.contains("data-scenario=\"export-main\""))
        #expect(text.contains("\(entries) entries"))
    }
}
