import Foundation
import Testing
import TestSupport

/// Chromium for the report tests (installed by Scripts/bootstrap): a headless run on a
/// file, and the console messages in its log.
enum ReportTestSupport {
    /// Headless Chromium on `file`: the DOM after load (`--dump-dom`) and what the
    /// browser logged, console messages included (`--enable-logging=stderr`).
    static func chromium(_ arguments: [String], file: URL) throws -> CommandRun {
        let chromium = try #require(CLI.which("chromium") ?? CLI.which("chromium-browser"), "install chromium (Scripts/bootstrap)")
        let profile = try temporaryDirectory("chromium-profile")
        defer { try? FileManager.default.removeItem(at: profile) }
        return try CLI.run(
            chromium,
            ["--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0", "--user-data-dir=\(profile.path)"]
                + arguments + [file.absoluteString], timeout: 120)
    }

    /// The console messages in Chromium's log (`... CONSOLE(12)] "text", source: ...`).
    static func consoleMessages(_ log: String) -> [String] {
        log.split(separator: "\n").map(String.init).filter { $0.contains(":CONSOLE") || $0.contains("CONSOLE(") }
    }
}
