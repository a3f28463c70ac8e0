@_spi(Runtime) package import ConcurrencyDebug
import CtxdebugHelpers
import ExploreModel
import Foundation

/// A process run by `ctxdebug explore -- COMMAND`: every context it makes belongs to
/// one controlled run whose decisions the parent takes, over the Unix socket named by
/// `CTXDEBUG_EXPLORE_SOCKET` (docs/explore.md, "Across processes").
enum ProcessExploration {
    /// The process's scheduler, or nil when the process is not explored. Read once.
    static let scheduler: ControlledScheduler? = {
        let environment = ConcurrencyDebug.Variable.current()
        guard let path = socketPath(in: environment) else { return nil }
        let settings = Settings(environment)
        let channel: ParentChannel
        do {
            channel = try ParentChannel(connectingTo: path)
        } catch {
            warn("CTXDEBUG_EXPLORE_SOCKET=\(path): \(error). This process runs unexplored; run it under `ctxdebug explore -- COMMAND`, or unset the variable.")
            return nil
        }
        channel.send(.hello(version: ExploreMessage.version, pid: getpid()))
        let scheduler = ControlledScheduler(
            granularity: settings.granularity, allowsUncontrolled: settings.allowsUncontrolled, adoptsDriver: true,
            capturesSites: settings.sendsSites, describesCandidates: true,
            onFailure: { failure in
                channel.send(.failure(ScheduleFailure(kind: failure.kind, message: failure.message, detail: failure.detailText)))
            },
            chooser: { question in channel.ask(question) })
        // libdispatch's entry points become scheduling points when `ctxdebug explore` put
        // its preload library in this process (DispatchControl.swift).
        DispatchControl.install(scheduler)
        Watchdog.start(scheduler, hangTimeout: settings.hangTimeout)
        Ending.install(scheduler, channel, sendsSites: settings.sendsSites)
        return scheduler
    }()

    /// The parent's socket, when `ctxdebug explore` runs this process.
    static func socketPath(in environment: [String: String]) -> String? {
        guard let path = ConcurrencyDebug.Variable.exploreSocket.value(in: environment).map({ String(EnvironmentValue.trimmed($0)) }), !path.isEmpty
        else { return nil }
        return path
    }

    struct Settings {
        var granularity = ExploreGranularity.coarse
        var allowsUncontrolled = false
        var hangTimeout = 2.0
        var sendsSites = false

        init(_ environment: [String: String]) {
            if let text = ConcurrencyDebug.Variable.exploreGranularity.value(in: environment) {
                if let value = ExploreGranularity(rawValue: EnvironmentValue.trimmed(text).lowercased()) {
                    granularity = value
                } else {
                    warn("CTXDEBUG_EXPLORE_GRANULARITY=\(text) is not coarse or fine; using coarse.")
                }
            }
            allowsUncontrolled = ConcurrencyDebug.Variable.exploreAllowUncontrolled.value(in: environment).map { EnvironmentValue.trimmed($0) == "1" } ?? false
            sendsSites = ConcurrencyDebug.Variable.exploreSites.value(in: environment).map { EnvironmentValue.trimmed($0) == "1" } ?? false
            if let text = ConcurrencyDebug.Variable.exploreHangTimeout.value(in: environment) {
                if let value = Double(EnvironmentValue.trimmed(text)), value > 0, value.isFinite {
                    hangTimeout = value
                } else {
                    warn("CTXDEBUG_EXPLORE_HANG_TIMEOUT=\(text) is not a positive number of seconds; using 2.")
                }
            }
        }
    }

    static func warn(_ message: String) {
        FileHandle.standardError.write(Data("ctxdebug: \(message)\n".utf8))
    }

    /// At exit: the steps' source sites when the parent asked for them, then the end.
    enum Ending {
        nonisolated(unsafe) static var pending: (ControlledScheduler, ParentChannel, Bool)?

        static func install(_ scheduler: ControlledScheduler, _ channel: ParentChannel, sendsSites: Bool) {
            pending = (scheduler, channel, sendsSites)
            atexit {
                guard let (scheduler, channel, sendsSites) = ProcessExploration.Ending.pending else { return }
                if sendsSites {
                    let frames = StackTrace.userFrames(scheduler.steps.map(\.chosenAddresses))
                    channel.send(.sites(frames.map { $0.map(ExplorationSite.text) }))
                }
                channel.send(.end)
            }
        }
    }

    /// A process's run has no end to wait for: a thread notices when it stops moving
    /// while work waits.
    enum Watchdog {
        static func start(_ scheduler: ControlledScheduler, hangTimeout: Double) {
            let thread = Thread {
                var seen = -1
                while true {
                    Thread.sleep(forTimeInterval: hangTimeout)
                    let (progress, waiting) = scheduler.progressAndWaiting
                    if progress == seen && waiting {
                        scheduler.declareHang(after: hangTimeout)
                        return
                    }
                    seen = progress
                }
            }
            thread.name = "ctxdebug explore watchdog"
            thread.start()
        }
    }
}

/// Where a scheduling point was reached, as the schedule file writes it.
package enum ExplorationSite {
    /// "Export.swift:41 in App.export()", or "in XCTest.WaiterManager…" for a frame
    /// with no source position (a library without debug info).
    package static func text(_ frame: StackFrame) -> String {
        let function = frame.function.map { " in \($0)" } ?? ""
        guard let file = frame.file.map({ ($0 as NSString).lastPathComponent }) else {
            return function.isEmpty ? "?" : String(function.dropFirst())
        }
        return "\(file):\(frame.line ?? 0)\(function)"
    }
}

extension ControlledRunFailure {
    /// The stack that goes with it, symbolicated, or nil.
    var detailText: String? {
        detail ?? (addresses.isEmpty ? nil : StackTrace.symbolicate(addresses).joined(separator: "\n"))
    }
}
