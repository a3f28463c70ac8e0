import ArgumentParser
import ConcurrencyDebug
import CtxdebugHelpers
import Foundation
import ManagedContext
import Replay
import Reports
import SurfJournal

/// Parses a scenario or bug name, listing the valid ones when it is not one.
private func parseName<T: RawRepresentable & CaseIterable>(_ text: String, _ what: String) throws -> T where T.RawValue == String {
    if let value = T(rawValue: text) { return value }
    throw ValidationError("unknown \(what) '\(text)'; expected one of: \(T.allCases.map(\.rawValue).joined(separator: ", ")).")
}

/// `ctxdebug replay`: replays the SurfJournal workload against the real main queue
/// and reports what each scenario costs the UI.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay the SurfJournal app and measure how long the UI (main) queue is blocked.",
        discussion: """
            A frame clock puts the list's work on the real main queue at --fps while each \
            scenario runs; a watchdog samples the stack of the main queue when it blocks for \
            --hang-threshold or more. With no options: seeds the default store (in \
            $XDG_DATA_HOME/ctxdebug or ~/.local/share/ctxdebug) if needed, runs baseline, \
            export-main and export-background, and prints one table and the verdicts.

            Scenarios:
            \(ScenarioName.allCases.map { "  \($0.rawValue): \($0.summary)" }.joined(separator: "\n"))

            Bugs for --inject-bug (turns on CTXDEBUG_CONCURRENCY=1 unless it is set, and the \
            opt-in diagnostic the bug is caught as unless CTXDEBUG_DIAGNOSTICS is set):
            \(InjectedBug.allCases.map { "  \($0.rawValue): \($0.summary)" }.joined(separator: "\n"))

            Diagnostics (docs/diagnostics.md): at CTXDEBUG_CONCURRENCY=1 the default set runs: \
            \(Diagnostics.allKinds.filter { Diagnostics.defaultKinds.contains($0) }.map(\.rawValue).joined(separator: ", ")), \
            bugs in every program. The opt-in kinds flag choices a correct program may make on \
            purpose: \(Diagnostics.allKinds.filter { Diagnostics.optInKinds.contains($0) }.map(\.rawValue).joined(separator: ", ")). \
            Turn them on by name or all at once: CTXDEBUG_DIAGNOSTICS=default,missing-merge or \
            CTXDEBUG_DIAGNOSTICS=all (and all,-name to leave one out).

            Each scenario runs on a fresh copy of the store; the store itself is never changed.

            Exit status: 0 done; 64 bad flag value; 65 bad input (store not a store, \
            corrupt or of another model, malformed workload file: the error names its line \
            and column); 73 the output or a working copy cannot be written; 66 concurrency \
            violations under CTXDEBUG_ON_VIOLATION=report; killed by SIGTRAP (shell status \
            133) when a violation traps.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Option(
        name: .customLong("scenario"),
        help: ArgumentHelp("A scenario to run (repeat for several). Default: baseline, export-main, export-background.", valueName: "NAME"),
        transform: { try parseName($0, "scenario") as ScenarioName })
    var scenarios: [ScenarioName] = []

    @Option(help: ArgumentHelp("Entries to seed into the store when it has to be created.", valueName: "N"))
    var entries: Int = ReplayOptions.defaultEntries

    @Option(help: ArgumentHelp("The store to replay on (seeded with --entries if missing). Default: the seeded store in the XDG data directory.", valueName: "PATH"))
    var store: String?

    @Option(help: ArgumentHelp("Frames per second of the frame clock.", valueName: "N"))
    var fps: Int = 60

    @Option(help: ArgumentHelp("Each scenario runs at least this long, and until its work is done.", valueName: "SECONDS"))
    var duration: Double = 3

    @Option(help: ArgumentHelp("A main-queue stall this long or longer is a hang.", valueName: "MS"))
    var hangThreshold: Double = 250

    @Option(help: ArgumentHelp("A JSON workload file to replay instead of the scenarios (docs/workload-format.md).", valueName: "FILE"))
    var workload: String?

    @Option(help: "Output format.")
    var format: Format = .text

    @Option(help: ArgumentHelp("Write the report to FILE instead of stdout.", valueName: "FILE"))
    var output: String?

    @Option(help: ArgumentHelp("Also write a self-contained HTML report with charts to FILE (docs/reports.md).", valueName: "FILE"))
    var html: String?

    @Option(
        help: ArgumentHelp(
            "Also write a timeline to FILE in the Chrome Trace Event Format, for ui.perfetto.dev (docs/reports.md).", valueName: "FILE"))
    var trace: String?

    @Option(
        help: ArgumentHelp("Add a classic concurrency bug to its scenario so the checker catches it: \(InjectedBug.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "NAME"),
        transform: { try parseName($0, "bug") as InjectedBug })
    var injectBug: InjectedBug?

    func validate() throws {
        guard entries >= 0 && entries <= 50_000_000 else { throw ValidationError("--entries must be between 0 and 50000000 (got \(entries)).") }
        guard fps >= 1 && fps <= 1_000 else { throw ValidationError("--fps must be between 1 and 1000 (got \(fps)).") }
        guard duration > 0 && duration <= 3_600 else { throw ValidationError("--duration must be more than 0 and at most 3600 seconds (got \(duration)).") }
        guard hangThreshold >= 10 && hangThreshold <= 60_000 else {
            throw ValidationError("--hang-threshold must be between 10 and 60000 ms (got \(hangThreshold)).")
        }
        if workload != nil && !scenarios.isEmpty {
            throw ValidationError("--workload replaces the scenarios; give either --workload or --scenario, not both.")
        }
        if let injectBug {
            // A bug lives in one built-in scenario; anywhere else it would inject
            // nothing and report a clean run.
            let host = injectBug.hostScenario.rawValue
            if workload != nil {
                throw ValidationError("--inject-bug \(injectBug.rawValue) runs in the built-in \(host) scenario, not in a workload file: leave out --workload.")
            }
            if !scenarios.isEmpty && !scenarios.contains(injectBug.hostScenario) {
                throw ValidationError("--inject-bug \(injectBug.rawValue) lives in the \(host) scenario, which --scenario leaves out: add --scenario \(host), or leave out --scenario.")
            }
        }
    }

    func run() throws {
        var options = try replayOptions()
        let outputURL = try Self.writable(output, "--output")
        let htmlURL = try Self.writable(html, "--html")
        let traceURL = try Self.writable(trace, "--trace")
        options.recordTrace = traceURL != nil
        if let injectBug { Self.turnOnChecking(for: injectBug) }
        let bar = ProgressBar(label: "replay")
        options.progress = { p in
            switch p {
            case .seeding(let done, let total):
                bar.update(done, of: total)
            case .scenario(let index, let count, _, let elapsed, let duration):
                let per = 1000
                bar.update(index * per + min(per, Int(elapsed / max(0.1, duration) * Double(per))), of: count * per)
            case .finished:
                bar.finish()
            }
        }
        let format = self.format
        let finalOptions = options

        // The replay measures the real main queue, so the main queue must be
        // serviced: the work runs on a thread of its own while this thread gives
        // itself to dispatchMain(). The thread ends the process.
        let worker = Thread {
            let status: ExitStatus
            do {
                let report = try Replayer.run(finalOptions)
                bar.finish()
                try Self.write(report, format: format, output: outputURL, html: htmlURL, trace: traceURL)
                status = .success
            } catch {
                bar.finish()
                status = ExitStatus(CommandSupport.fail(error, doing: "replay"))
            }
            fflush(nil)
            status.endProcess()
        }
        worker.name = "ctxdebug.replay"
        worker.stackSize = 8 << 20
        worker.start()
        dispatchMain()
    }

    /// The replay's options from the flags (validated already), with the workload
    /// file read and the store's directory checked.
    private func replayOptions() throws -> ReplayOptions {
        var options = ReplayOptions()
        options.entries = entries
        options.fps = fps
        options.duration = duration
        options.hangThresholdMs = hangThreshold
        options.injectBug = injectBug
        if let store { options.storeURL = URL(fileURLWithPath: store) }
        if !scenarios.isEmpty {
            var seen = Set<ScenarioName>()
            options.scenarios = scenarios.filter { seen.insert($0).inserted }
        } else if let injectBug {
            options.scenarios = [injectBug.hostScenario]
        }
        if let workload {
            do {
                options.workload = try Workload.load(contentsOf: URL(fileURLWithPath: workload))
            } catch {
                throw CommandSupport.fail(error, doing: "read the workload")
            }
        }
        if let store, !FileManager.default.fileExists(atPath: store) {
            let dir = URL(fileURLWithPath: store).deletingLastPathComponent().path
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
                throw CommandSupport.fail("The store's directory \(dir) does not exist. Create it (mkdir -p \(dir)) or choose another --store.", status: .dataError)
            }
        }
        return options
    }

    /// The URL of an output flag, refused before the replay runs when its directory
    /// cannot be written.
    private static func writable(_ path: String?, _ flag: String) throws -> URL? {
        guard let path else { return nil }
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent().path
        guard access(dir, W_OK) == 0 else {
            throw CommandSupport.fail("Cannot write \(flag) \(url.path): the directory \(dir) is missing or not writable.", status: .cannotCreate)
        }
        return url
    }

    /// An injected bug is a real data race: checking must be on to catch it.
    private static func turnOnChecking(for injectBug: InjectedBug) {
        let env = ProcessInfo.processInfo.environment
        let level = ConcurrencyDebug.Variable.concurrency
        if level.value(in: env) == nil {
            level.set("1")
            say("ctxdebug: --inject-bug \(injectBug.rawValue): turning on \(level)=1 so the checker catches it.")
        } else if level.value(in: env) == "0" {
            say("ctxdebug: warning: \(level)=0, so the injected bug will not be caught (it is a real data race).")
        }
        InjectedBugDiagnostics.enable(for: injectBug, environment: env)
    }

    private static func write(_ report: ReplayReport, format: Format, output: URL?, html: URL?, trace: URL?) throws {
        let data: Data
        switch format {
        case .text: data = Data(TextReport.render(report).utf8)
        case .json: data = try JSONReport.render(report)
        }
        if let html { try writeAtomically(Data(HTMLReport.render(report).utf8), to: html) }
        if let trace { try writeAtomically(ChromeTrace.render(report), to: trace) }
        if let output {
            try writeAtomically(data, to: output)
        } else {
            say(data, to: .standardOutput)
        }
    }

    /// Writes under a temporary name in the same directory, then renames: an
    /// existing FILE is replaced whole or left as it was.
    static func writeAtomically(_ data: Data, to url: URL) throws {
        do {
            try ReportFile.write(data, to: url.path)
        } catch {
            throw ReplayError(.cannotWrite, "Cannot write \(url.path): \(error.reason)")
        }
    }
}
