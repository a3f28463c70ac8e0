import ReplayModel
import ViolationModel

/// Small, fixed inputs for the renderers: built from the models alone, as a tool
/// that reads ctxdebug's files would.
enum Fixtures {
    static let root = "/src/project"

    static func frame(_ address: UInt, _ function: String?, _ file: String?, _ line: Int?, runtime: Bool = false) -> StackFrame {
        StackFrame(address: address, function: function, file: file, line: line, module: "/usr/lib/App", isRuntime: runtime)
    }

    static func violation(_ kind: ViolationKind = .wrongQueue, frames: [StackFrame], count: Int = 1, message: String = "BUG DETECTED: x")
        -> Violation
    {
        Violation(
            kind: kind,
            access: AccessDescription(
                operation: "get", entity: "Note", attribute: "text", contextName: "editor", ownerQueueLabel: "editor.queue",
                fixHint: "use perform"),
            message: message, queueLabel: "com.apple.main-thread", threadID: 7, threadName: "", addresses: [0x1], frames: frames,
            count: count)
    }

    static func reportFile(pid: Int32, _ violations: [Violation]) -> ViolationReportFile {
        var file = ViolationReportFile(violations: violations)
        file.pid = pid
        return file
    }

    /// A wrong-queue access at Tests/App/EditorTests.swift:12, below a frame of the runtime.
    static let editorStack = [
        frame(0x10, "ManagedContext.Attribute.subscript", "/src/project/Sources/ManagedContext/PropertyWrappers.swift", 40, runtime: true),
        frame(0x20, "App.Editor.show()", "/src/project/Tests/App/EditorTests.swift", 12),
        frame(0x30, "start_thread", "./nptl/pthread_create.c", 442),
    ]

    static func scenario(_ name: String, p99: Double, hangs: [ScenarioResult.Hang] = [], trace: TraceData? = nil) -> ScenarioResult {
        ScenarioResult(
            name: name, summary: "\(name) summary", durationSeconds: 2,
            frames: ScenarioResult.FrameFigures(
                count: 120, latencyMs: ScenarioResult.Percentiles(p50: 1.25, p95: 4, p99: p99, max: p99 + 1), hitches: 3,
                hitchTimeMs: 12, hitchRatioMsPerSecond: 6, hitchBand: "good", meetsWWDCAim: false),
            hangs: hangs, longestWorkItems: [ScenarioResult.WorkItem(label: "frame", count: 120, totalMs: 50, maxMs: 9.5)],
            export: nil, search: nil, sync: nil, edits: nil, errors: [], timeline: Timeline(frameStartMs: [0, 16.7], frameLatencyMs: [0, 0.5]),
            violations: nil, visibleRows: nil, trace: trace)
    }

    static let hang = ScenarioResult.Hang(
        label: "export <main>", startMs: 100, durationMs: 420, sampleCount: 3,
        heaviestFunction: "SurfJournal.CSVExport.writeRows(to:)",
        stack: [
            ScenarioResult.Frame(function: "Glibc.write", file: nil, line: nil, module: "libc.so.6"),
            ScenarioResult.Frame(function: "SurfJournal.CSVExport.writeRows(to:)", file: "/src/project/Sources/SurfJournal/CSVExport.swift", line: 33, module: nil),
        ])

    static func report(_ scenarios: [ScenarioResult]) -> ReplayReport {
        ReplayReport(
            generatedAt: "2026-11-24T00:00:00Z",
            settings: ReplayReport.Settings(
                entries: 1_000, store: "/tmp/store.sqlite", fps: 60, durationSeconds: 2, hangThresholdMs: 250, checkingLevel: 0,
                cores: 2, buildConfiguration: "debug"),
            scenarios: scenarios, verdicts: ["The background export cost the UI nothing."])
    }
}
