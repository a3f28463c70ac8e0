import ConcurrencyDebug
import Dispatch
import CoreData
import Foundation
import ManagedContext
import Replay
import SurfJournal

/// Hands a value to another queue on purpose: the seeded bugs are exactly this.
struct Smuggled<T>: @unchecked Sendable {  // unchecked: the point of the programs is to misuse T across queues
    var value: T
}

/// The seeded-violation programs: the wrong patterns of the seed material (the model
/// is `everyWrongPattern` in Tests/ManagedContextTests/ConcurrencyCheckTests.swift),
/// one per child process, plus one overlapping race and a control with none.
enum SeededProgram: String, CaseIterable {
    /// WRONG-1: an object fetched on a background context, read on the main queue.
    case objectReadOnMain = "object-read-on-main"
    /// WRONG-2: a main-context object changed from a background queue.
    case mainObjectChangedInBackground = "main-object-changed-in-background"
    /// WRONG-3: a private context used without perform from a callback queue.
    case contextWithoutPerform = "context-without-perform"
    /// WRONG-4: a managed object captured into `DispatchQueue.main.async`.
    case objectCapturedIntoMainAsync = "object-captured-into-main-async"
    /// The owner writes an attribute in its perform block while another thread reads
    /// it without perform, at the same time: a data race in the strict sense.
    case concurrentReadWhileWriting = "concurrent-read-while-writing"
    /// The correct patterns: perform blocks, objectIDs across queues.
    case control = "control-correct-patterns"

    var hasBug: Bool { self != .control }

    var summary: String {
        switch self {
        case .objectReadOnMain: "background object read on the main queue (handed over after its fetch)"
        case .mainObjectChangedInBackground: "view-context object changed from a background queue"
        case .contextWithoutPerform: "private context used without perform from a callback queue"
        case .objectCapturedIntoMainAsync: "managed object captured into DispatchQueue.main.async"
        case .concurrentReadWhileWriting: "object read off its queue while its own queue writes it, overlapping"
        case .control: "control: the correct patterns (perform, objectIDs across queues), no bug"
        }
    }

    /// Runs the program in a child. The main queue must be serviced, so the program
    /// runs on a thread of its own while the main thread calls dispatchMain().
    static func runChild(_ name: String, work: String) -> Never {
        guard let program = SeededProgram(rawValue: name) else {
            FileHandle.standardError.write(Data("ctxdebug bench: unknown program \(name)\n".utf8))
            exit(64)
        }
        let thread = Thread {
            do {
                try program.body(work: URL(fileURLWithPath: work))
            } catch {
                FileHandle.standardError.write(Data("ctxdebug bench: \(program.rawValue) failed: \(error)\n".utf8))
                exit(1)
            }
            exit(0)
        }
        thread.stackSize = 8 << 20
        thread.start()
        dispatchMain()
    }

    private func body(work: URL) throws {
        let storeURL = work.appendingPathComponent("program-\(getpid()).sqlite")
        defer { for f in PersistentContainer.storeFiles(storeURL) { try? FileManager.default.removeItem(at: f) } }
        let container = try SurfJournal.openContainer(at: storeURL)
        try Seeder.seed(container: container, count: 20)
        let view = container.viewContext
        let background = container.newBackgroundContext()
        background.name = "background"
        let fetched: JournalEntry = try background.performAndWait {
            var request = FetchRequest<JournalEntry>(sortDescriptors: SurfJournal.newestFirst)
            request.fetchLimit = 1
            let entry = try background.fetch(request).first!
            _ = entry.location
            return entry
        }
        let bg = Smuggled(value: fetched)
        let id = fetched.objectID
        switch self {
        case .objectReadOnMain:
            view.performAndWait { benchSink(bg.value.location?.count ?? 0) }
        case .mainObjectChangedInBackground:
            let main = Smuggled(value: view.performAndWait { () -> JournalEntry in
                let e = view.object(with: id) as! JournalEntry
                _ = e.rating
                return e
            })
            DispatchQueue(label: "bench.export").sync { main.value.rating = NSNumber(value: 2) }
        case .contextWithoutPerform:
            DispatchQueue(label: "bench.callback").sync { benchSink((try? background.count(for: FetchRequest<JournalEntry>())) ?? 0) }
        case .objectCapturedIntoMainAsync:
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.main.async {
                benchSink(Int(bg.value.rating?.int16Value ?? 0))
                done.signal()
            }
            done.wait()
        case .concurrentReadWhileWriting:
            let writing = DispatchSemaphore(value: 0)
            let started = DispatchSemaphore(value: 0)
            background.perform {
                started.signal()
                for i in 0..<20_000 { bg.value.rating = NSNumber(value: Int16(i % 5)) }
                writing.signal()
            }
            started.wait()
            for _ in 0..<20_000 { benchSink(Int(bg.value.rating?.int16Value ?? 0)) }
            writing.wait()
        case .control:
            try correctUse(view: view, background: background, bg: bg, id: id)
        }
    }

    /// The control program: the same objects used correctly (by objectID, inside
    /// perform, merged through a save), which no rule may flag.
    private func correctUse(view: ManagedObjectContext, background: ManagedObjectContext, bg: Smuggled<JournalEntry>, id: ManagedObjectID) throws {
        let ids = try background.performAndWait { try background.fetchObjectIDs(FetchRequest<JournalEntry>()) }
        view.performAndWait {
            let objects = ids.map { view.object(with: $0) as! JournalEntry }
            benchSink(objects.compactMap(\.location).count)
        }
        let done = DispatchSemaphore(value: 0)
        background.perform {
            bg.value.rating = NSNumber(value: 4)
            try? background.save()
            done.signal()
        }
        done.wait()
        DispatchQueue.main.async {
            let e = view.object(with: id) as! JournalEntry
            benchSink(Int(e.rating?.int16Value ?? 0))
            done.signal()
        }
        done.wait()
    }
}

/// The detection half of item 3: each `--inject-bug` case and each seeded program,
/// under ThreadSanitizer (its build, checking off) and under ctxdebug (level 1,
/// report mode), and which of them reported it.
enum DetectionBench {
    static func run(tsanBinary: String?, replayStore: URL, replayEntries: Int, replayDuration: Double, work: URL) throws -> [BenchDetection] {
        let plain = BenchSupport.selfExecutable
        var rows: [BenchDetection] = []

        func ctxdebugRun(_ arguments: [String]) throws -> (Bool, Int) {
            let report = work.appendingPathComponent("violations-\(UUID().uuidString.prefix(6)).json")
            defer { try? FileManager.default.removeItem(at: report) }
            let run = try BenchSupport.run(
                plain, arguments,
                environment: ["CTXDEBUG_CONCURRENCY": "1", "CTXDEBUG_ON_VIOLATION": "report", "CTXDEBUG_REPORT": report.path], work: work)
            let file = (try? Data(contentsOf: report)).flatMap { try? JSONDecoder().decode(ViolationReportFile.self, from: $0) }
            if run.status != 0 && run.status != 66 {
                throw BenchError("`ctxdebug \(arguments.joined(separator: " "))` at level 1 failed with status \(run.status): \(run.standardError.suffix(1_500))")
            }
            return (run.status == 66 || (file?.distinctCount ?? 0) > 0, file?.distinctCount ?? 0)
        }

        /// ThreadSanitizer's warnings, each as "headline at File.swift:LINE" (the first
        /// source location in its report), distinct.
        func tsanRun(_ arguments: [String]) throws -> [String]? {
            guard let tsanBinary else { return nil }
            let run = try BenchSupport.run(
                tsanBinary, arguments,
                environment: ["CTXDEBUG_CONCURRENCY": "0", "TSAN_OPTIONS": "halt_on_error=0 exitcode=0 history_size=2"], work: work)
            let warnings = tsanWarnings(run.standardError)
            if (run.status != 0 || run.signaled) && warnings.isEmpty {
                throw BenchError("`ctxdebug \(arguments.joined(separator: " "))` under ThreadSanitizer failed with status \(run.status): \(run.standardError.suffix(1_500))")
            }
            return warnings
        }

        let replayArguments = [
            "replay", "--store", replayStore.path, "--entries", "\(replayEntries)", "--duration", "\(replayDuration)",
            "--format", "json", "--output", work.appendingPathComponent("detect-replay.json").path,
        ]
        let hosts = Set(InjectedBug.allCases.map(\.hostScenario)).sorted { $0.rawValue < $1.rawValue }
        let controlArguments = replayArguments + hosts.flatMap { ["--scenario", $0.rawValue] }
        let replayControl = try tsanRun(controlArguments)
        for bug in InjectedBug.allCases {
            let arguments = replayArguments + ["--inject-bug", bug.rawValue]
            rows.append(
                row("replay --inject-bug \(bug.rawValue)", kind: "injected bug", hasBug: true, tsan: try tsanRun(arguments), control: replayControl, ctx: try ctxdebugRun(arguments)))
        }
        rows.append(
            row(
                "replay " + hosts.map { "--scenario \($0.rawValue)" }.joined(separator: " ") + " (control, no bug)", kind: "control", hasBug: false,
                tsan: replayControl, control: [], ctx: try ctxdebugRun(controlArguments)))

        let programControl = try tsanRun(["bench", "--child", "program", "--program", SeededProgram.control.rawValue, "--child-output", work.path])
        for program in SeededProgram.allCases {
            let arguments = ["bench", "--child", "program", "--program", program.rawValue, "--child-output", work.path]
            let tsan = program == .control ? programControl : try tsanRun(arguments)
            rows.append(
                row(
                    program.rawValue, kind: program.hasBug ? "seeded program: \(program.summary)" : program.summary, hasBug: program.hasBug,
                    tsan: tsan, control: program == .control ? [] : programControl, ctx: try ctxdebugRun(arguments)))
        }
        return rows
    }

    /// ThreadSanitizer's warnings in `stderr`, each as "headline at File.swift:LINE" (the
    /// first source location in its report), distinct.
    static func tsanWarnings(_ stderr: String) -> [String] {
        var warnings: [String] = []
        var current: String?
        func finish() {
            if let current, !warnings.contains(current) { warnings.append(current) }
            current = nil
        }
        for line in stderr.split(separator: "\n") {
            if line.contains("WARNING: ThreadSanitizer:") {
                finish()
                var headline = line.split(separator: ":", maxSplits: 2).dropFirst(2).joined().trimmingCharacters(in: .whitespaces)
                if let paren = headline.range(of: " (pid=") { headline = String(headline[..<paren.lowerBound]) }
                current = headline
            } else if let headline = current, !headline.contains(" at "),
                let match = line.firstMatch(of: /([A-Za-z0-9_+]+\.(?:swift|c|h)):(\d+)/)
            {
                current = "\(headline) at \(match.1):\(match.2)"
            } else if line.hasPrefix("SUMMARY:") {
                finish()
            }
        }
        finish()
        return warnings
    }

    /// A case counts as reported by ThreadSanitizer only for warnings in source files
    /// its control (the same harness, no bug) did not warn about.
    static func row(_ name: String, kind: String, hasBug: Bool, tsan: [String]?, control: [String]?, ctx: (Bool, Int)) -> BenchDetection {
        // By source file: the harness's own races come and go from run to run at
        // neighbouring lines, and under either headline.
        func file(_ warning: String) -> String {
            guard let at = warning.range(of: " at ", options: .backwards) else { return warning }
            return String(warning[at.upperBound...].split(separator: ":").first ?? "")
        }
        let controlFiles = Set((control ?? []).map(file))
        let fresh = tsan.map { warnings in warnings.filter { !controlFiles.contains(file($0)) } }
        return BenchDetection(
            name: name, kind: kind, hasBug: hasBug, threadSanitizer: fresh.map { !$0.isEmpty },
            threadSanitizerWarnings: fresh ?? [], threadSanitizerControlWarnings: hasBug ? (tsan ?? []).filter { controlFiles.contains(file($0)) } : [],
            ctxdebug: ctx.0, ctxdebugViolations: ctx.1)
    }
}
