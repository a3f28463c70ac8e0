import ConcurrencyDebug
import Foundation
import Testing
import TestSupport

/// The bad-input catalogue of issue 9 (docs/reliability.md), through the BUILT CLI:
/// each case gives one clear error line, its documented exit status, no crash, and
/// leaves every file as it was.
@Suite("Reliability: bad input through the CLI")
struct BadInputCLITests {
    typealias R = Reliability

    /// A directory with a seeded store of `entries` SurfJournal entries (`good.sqlite`).
    final class Workspace {
        let dir: URL
        init(entries: Int? = 40) throws {
            dir = try temporaryDirectory("reliability-bad-input")
            if let entries {
                let seed = try R.ctxdebug("seed", "--store", path("good.sqlite"), "--entries", "\(entries)")
                try #require(seed.status == 0 && !seed.signaled, "seeding failed: \(seed)")
            }
        }
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        func write(_ name: String, _ data: Data) throws -> String {
            let p = path(name)
            try data.write(to: URL(fileURLWithPath: p))
            return p
        }
        deinit { R.remove(dir) }
    }

    /// The bytes of every file in `paths` (nil for a missing one), to compare before and after.
    static func snapshot(_ paths: [String]) -> [String: Data?] {
        Dictionary(uniqueKeysWithValues: paths.map { ($0, R.bytes($0)) })
    }

    /// A refusal: the status, one error line that mentions each of `mentions`, no crash,
    /// no stack trace.
    static func expectRefused(
        _ run: CommandRun, status: Int32, mentions: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(!run.signaled, "crashed: \(run)", sourceLocation: sourceLocation)
        #expect(run.status == status, "expected exit status \(status): \(run)", sourceLocation: sourceLocation)
        #expect(run.stderr.lowercased().contains("error:"), "no error line: \(run)", sourceLocation: sourceLocation)
        for m in mentions {
            #expect(run.stderr.contains(m), "the message should mention '\(m)': \(run.stderr)", sourceLocation: sourceLocation)
        }
        for crash in ["Fatal error", "Backtracing", "Stack dump", "Segmentation fault"] {
            #expect(!run.stderr.contains(crash), "crash output: \(run.stderr)", sourceLocation: sourceLocation)
        }
    }

    static func randomBytes(_ count: Int, seed: UInt64) -> Data {
        var rng = SplitMix(seed: seed)
        return Data((0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
    }

    // MARK: stores

    @Test("export, replay: a store of random bytes is refused (65), unchanged, and the old output kept")
    func randomBytesStore() throws {
        let w = try Workspace(entries: nil)
        let store = try w.write("random.sqlite", Self.randomBytes(8192, seed: 9))
        let output = try w.write("out.csv", Data("previous export\n".utf8))
        let before = Self.snapshot([store, output, store + "-wal", store + "-shm"])
        Self.expectRefused(try R.ctxdebug("export", "--store", store, "--output", output), status: 65, mentions: ["not an SQLite database", store])
        Self.expectRefused(
            try R.ctxdebug("replay", "--store", store, "--scenario", "baseline", "--duration", "0.1"), status: 65,
            mentions: ["not an SQLite database"])
        #expect(Self.snapshot([store, output, store + "-wal", store + "-shm"]) == before)
    }

    @Test("export: a truncated store is refused (65) and left as it was")
    func truncatedStore() throws {
        let w = try Workspace(entries: 3000)
        // One file, no -wal: checkpoint the seeded store first.
        let checkpoint = try R.sqlite(w.path("good.sqlite"), "PRAGMA journal_mode=DELETE;")
        try #require(checkpoint.status == 0, "\(checkpoint)")
        let whole = try #require(R.bytes(w.path("good.sqlite")))
        try #require(whole.count > 65536)
        let store = try w.write("cut.sqlite", whole.prefix(whole.count / 2 + 100))
        let before = Self.snapshot([store])
        Self.expectRefused(try R.ctxdebug("export", "--store", store, "--output", w.path("out.csv")), status: 65, mentions: ["cut short"])
        #expect(Self.snapshot([store]) == before)
        #expect(!FileManager.default.fileExists(atPath: w.path("out.csv")))
    }

    @Test("export, replay: a store of another schema is refused (65) and not switched to WAL")
    func anotherSchema() throws {
        let w = try Workspace(entries: nil)
        let store = w.path("invoices.sqlite")
        let made = try R.sqlite(store, "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices VALUES (1, 9.5);")
        try #require(made.status == 0, "\(made)")
        let before = Self.snapshot([store])
        Self.expectRefused(try R.ctxdebug("export", "--store", store, "--output", w.path("out.csv")), status: 65, mentions: ["invoices"])
        Self.expectRefused(try R.ctxdebug("replay", "--store", store, "--scenario", "baseline", "--duration", "0.1"), status: 65, mentions: ["invoices"])
        #expect(Self.snapshot([store]) == before)
        let mode = try R.sqlite(store, "PRAGMA journal_mode;")
        #expect(mode.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "delete")
    }

    @Test("export: a missing store (65); seed: a missing directory (65) or an existing file (65), nothing created or overwritten")
    func missingPaths() throws {
        let w = try Workspace()
        Self.expectRefused(
            try R.ctxdebug("export", "--store", w.path("nope.sqlite"), "--output", w.path("out.csv")), status: 65,
            mentions: ["There is no store at", "ctxdebug seed"])
        Self.expectRefused(
            try R.ctxdebug("seed", "--store", w.path("no/such/dir/s.sqlite"), "--entries", "5"), status: 65,
            mentions: ["does not exist", "mkdir -p"])
        #expect(!FileManager.default.fileExists(atPath: w.path("no")))
        let before = Self.snapshot([w.path("good.sqlite")])
        Self.expectRefused(try R.ctxdebug("seed", "--store", w.path("good.sqlite"), "--entries", "5"), status: 65, mentions: ["already exists"])
        #expect(Self.snapshot([w.path("good.sqlite")]) == before)
        Self.expectRefused(
            try R.ctxdebug("export", "--store", w.path("good.sqlite"), "--output", w.path("no/such/dir/out.csv")), status: 73,
            mentions: ["No such file or directory"])
        Self.expectRefused(
            try R.ctxdebug("replay", "--store", w.path("good.sqlite"), "--scenario", "baseline", "--duration", "0.1", "--output", w.path("no/dir/r.txt")),
            status: 73, mentions: ["missing or not writable"])
    }

    @Test("Bad flag values: 64 with the accepted values")
    func badFlags() throws {
        let w = try Workspace(entries: nil)
        Self.expectRefused(try R.ctxdebug("seed", "--store", w.path("s.sqlite"), "--entries=-3"), status: 64, mentions: ["--entries"])
        Self.expectRefused(try R.ctxdebug("seed", "--store", w.path("s.sqlite"), "--entries", "lots"), status: 64, mentions: ["--entries"])
        Self.expectRefused(try R.ctxdebug("export", "--store", w.path("s.sqlite"), "--output", w.path("o.csv"), "--queue", "sideways"), status: 64, mentions: ["main", "background"])
        Self.expectRefused(try R.ctxdebug("replay", "--scenario", "nope"), status: 64, mentions: ["baseline"])
        #expect(!FileManager.default.fileExists(atPath: w.path("s.sqlite")))
    }

    // MARK: read-only directory and full disk

    @Test("A read-only directory: seed, export and replay refuse to write there (73) and change nothing")
    func readOnlyDirectory() throws {
        let w = try Workspace()
        let (done, skipped) = try R.withTmpfs(
            size: "1m", readOnly: true,
            prepare: { dir in try Data("previous export\n".utf8).write(to: dir.appendingPathComponent("out.csv")) }
        ) { dir -> Bool in
            let output = dir.appendingPathComponent("out.csv").path
            let before = Self.snapshot([output])
            Self.expectRefused(
                try R.ctxdebug("seed", "--store", dir.appendingPathComponent("new.sqlite").path, "--entries", "5"), status: 73,
                mentions: ["not writable"])
            Self.expectRefused(
                try R.ctxdebug("export", "--store", w.path("good.sqlite"), "--output", output), status: 73, mentions: ["Read-only file system"])
            Self.expectRefused(
                try R.ctxdebug("export", "--store", w.path("good.sqlite"), "--output", dir.appendingPathComponent("new.csv").path), status: 73,
                mentions: ["Read-only file system"])
            Self.expectRefused(
                try R.ctxdebug("replay", "--store", w.path("good.sqlite"), "--scenario", "baseline", "--duration", "0.1", "--output", dir.appendingPathComponent("r.txt").path),
                status: 73, mentions: ["not writable"])
            #expect(Self.snapshot([output]) == before)
            let listing = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            #expect(listing == ["out.csv"], "nothing new in the read-only directory: \(listing)")
            return true
        }
        if let skipped { print("readOnlyDirectory: SKIPPED: \(skipped)") } else { #expect(done == true) }
    }

    @Test("A full disk: seed fails (74) and removes its partial store; export fails (73) and keeps the old file")
    func fullDisk() throws {
        let w = try Workspace(entries: 2000)
        let (done, skipped) = try R.withTmpfs(
            size: "64k", prepare: { dir in try Data("previous export\n".utf8).write(to: dir.appendingPathComponent("out.csv")) }
        ) { dir -> Bool in
            let store = dir.appendingPathComponent("s.sqlite").path
            Self.expectRefused(try R.ctxdebug("seed", "--store", store, "--entries", "20000"), status: 74, mentions: ["disk is full"])
            for suffix in ["", "-wal", "-shm"] {
                #expect(!FileManager.default.fileExists(atPath: store + suffix), "the partial store\(suffix) must be removed")
            }
            let output = dir.appendingPathComponent("out.csv").path
            let before = Self.snapshot([output])
            Self.expectRefused(try R.ctxdebug("export", "--store", w.path("good.sqlite"), "--output", output), status: 73, mentions: ["No space left on device"])
            #expect(Self.snapshot([output]) == before)
            let listing = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            #expect(listing == ["out.csv"], "no temporary file left behind: \(listing)")
            return true
        }
        if let skipped { print("fullDisk: SKIPPED: \(skipped)") } else { #expect(done == true) }
    }

    // MARK: CTXDEBUG_* variables

    /// Every variable the checker reads, with bad values: a warning naming the variable
    /// (or, for settings only used later, silence), exit 0, and the export still right.
    static let badEnvironment: [(ConcurrencyDebug.Variable, String, warning: String?)] = [
        (.concurrency, "yes please", "CTXDEBUG_CONCURRENCY=\"yes please\" is not valid"),
        (.concurrency, "7", "CTXDEBUG_CONCURRENCY=\"7\" is not valid"),
        (.concurrency, "", "CTXDEBUG_CONCURRENCY=\"\" is not valid"),
        (.concurrency, "99999999999999999999", "is not valid"),
        (.onViolation, "explode", "CTXDEBUG_ON_VIOLATION=\"explode\" is not valid"),
        (.report, "", "CTXDEBUG_REPORT=\"\" is not valid"),
        (.exitCode, "999", "CTXDEBUG_EXITCODE=\"999\" is not valid"),
        (.exitCode, "-1", "CTXDEBUG_EXITCODE=\"-1\" is not valid"),
        (.exitCode, "abc", "CTXDEBUG_EXITCODE=\"abc\" is not valid"),
        (.suppressions, "/nonexistent/supp", "CTXDEBUG_SUPPRESSIONS=\"/nonexistent/supp\" cannot be read"),
        (.suppressions, "/", "CTXDEBUG_SUPPRESSIONS=\"/\" cannot be read (Is a directory)"),
        (.journal, "/nonexistent/dir/j", "CTXDEBUG_JOURNAL=\"/nonexistent/dir/j\" cannot be opened"),
        (.journal, "", "CTXDEBUG_JOURNAL=\"\" is not valid"),
        (.reportDirectory, "", "CTXDEBUG_REPORT_DIR=\"\" is not valid"),
        (.reportDirectory, "/nonexistent/dir", nil),
        (.diagnostics, "bogus,-nothing", "unknown diagnostic 'bogus'"),
        (.mainQueueWait, "-3", "CTXDEBUG_MAIN_QUEUE_WAIT_MS=\"-3\" is not a non-negative number"),
        (.mainQueueIORows, "abc", "CTXDEBUG_MAIN_QUEUE_IO_ROWS=\"abc\" is not a non-negative number"),
        (.mainQueueIOTime, "nan", "CTXDEBUG_MAIN_QUEUE_IO_MS=\"nan\" is not a non-negative number"),
        (.mainQueueWait, "1e308", nil),
    ]

    static func runExport(_ w: Workspace, _ variable: ConcurrencyDebug.Variable, _ value: String) throws -> (CommandRun, csv: Data?) {
        let output = w.path("out-\(UUID().uuidString.prefix(6)).csv")
        var values: [ConcurrencyDebug.Variable: String] = [.concurrency: "1"]
        values[variable] = value
        let env = ConcurrencyDebug.Variable.environment(values)
        let run = try CLI.ctxdebug(["export", "--store", w.path("good.sqlite"), "--output", output], environment: env, timeout: 300)
        return (run, R.bytes(output))
    }

    @Test("Bad values in every CTXDEBUG_* variable: a warning naming it, and the command still works", arguments: 0..<badEnvironment.count)
    func badEnvironmentValue(_ index: Int) throws {
        let (variable, value, warning) = Self.badEnvironment[index]
        let w = try Workspace(entries: 25)
        let reference = try R.ctxdebug("export", "--store", w.path("good.sqlite"), "--output", w.path("reference.csv"))
        try #require(reference.status == 0, "\(reference)")
        let (run, csv) = try Self.runExport(w, variable, value)
        #expect(!run.signaled && run.status == 0, "\(variable)=\"\(value)\": \(run)")
        if let warning {
            #expect(run.stderr.contains("ctxdebug: warning:") && run.stderr.contains(warning), "\(variable)=\"\(value)\": \(run.stderr)")
        }
        #expect(!run.stderr.contains("Fatal error"), "\(run.stderr)")
        #expect(csv != nil && csv == R.bytes(w.path("reference.csv")), "\(variable)=\"\(value)\": the export must be the same")
    }

    @Test("A huge number in CTXDEBUG_MAIN_QUEUE_IO_ROWS does not crash the process")
    func hugeRowThreshold() throws {
        let w = try Workspace(entries: 25)
        let (run, csv) = try Self.runExport(w, .mainQueueIORows, "1e30")
        // It used to trap in Int(Double) past Int.max; the value is now clamped.
        #expect(!run.signaled && run.status == 0, "\(run)")
        #expect(csv != nil)
    }

    // MARK: workload files

    static let badWorkloads: [(name: String, text: String, at: String, says: String)] = [
        ("syntax", "{\"version\": 1,\n \"timeline\": [\n  {\"action\": \"scroll\" \"rowsPerSecond\": 1}\n ]}\n", ":3:23:", "expected ',' or '}'"),
        ("missing-field", "{\"version\": 1,\n \"timeline\": [\n  {\"action\": \"scroll\", \"rowsPerSecnd\": 90}\n ]}\n", ":3:3:", "needs \"rowsPerSecond\""),
        ("unknown-key", "{\"version\": 1, \"timeline\": [], \"extra\": 1}", ":1:", "extra"),
        ("version", "{\"version\": 2, \"timeline\": []}", ":1:13:", "version"),
        ("type", "{\"version\": 1, \"timeline\": [{\"action\": \"pause\", \"seconds\": \"x\"}]}", ":1:60:", "must be a number"),
        ("range", "{\"version\": 1, \"timeline\": [{\"action\": \"pause\", \"seconds\": -1}]}", ":1:60:", "must be between"),
        ("huge-number", "{\"version\": 1, \"timeline\": [{\"action\": \"open\", \"row\": 99999999999999999999999}]}", ":1:55:", "must be between"),
        ("empty", "", ":1:1:", "empty"),
        ("deep", String(repeating: "[", count: 100_000), ":1:", "too deep"),
        ("unterminated", "{\"version\": 1, \"timeline\": [{\"action\": \"sa", ":1:43:", "unexpected end of file"),
        ("bad-utf8", "{\"version\": 1, \"name\": \"\u{FFFD}\", \"timeline\": []", ":1:7:", "unknown key"),
    ]

    @Test("A malformed workload file: 65, and the error names the file, line and column", arguments: 0..<badWorkloads.count)
    func malformedWorkload(_ index: Int) throws {
        let (name, text, at, says) = Self.badWorkloads[index]
        let w = try Workspace(entries: 10)
        var data = Data(text.utf8)
        if name == "bad-utf8" { data = Data([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D]) }
        let file = try w.write("\(name).json", data)
        let run = try R.ctxdebug("replay", "--workload", file, "--store", w.path("good.sqlite"), "--duration", "0.1")
        Self.expectRefused(run, status: 65, mentions: [file + at, says, "docs/workload-format.md"])
    }

    @Test("A missing or binary workload file: 65 with a message")
    func unreadableWorkload() throws {
        let w = try Workspace(entries: 10)
        Self.expectRefused(
            try R.ctxdebug("replay", "--workload", w.path("nonexistent.json"), "--store", w.path("good.sqlite")), status: 65,
            mentions: ["Cannot read the workload file"])
        let binary = try w.write("binary.json", Self.randomBytes(300, seed: 3) + Data([0]))
        Self.expectRefused(try R.ctxdebug("replay", "--workload", binary, "--store", w.path("good.sqlite")), status: 65, mentions: [binary + ":1:"])
    }

    // MARK: journals

    /// A journal written by a checked run of the CLI itself (level 3).
    static func makeJournal(_ w: Workspace) throws -> String {
        let journal = w.path("run.journal")
        let run = try CLI.ctxdebug(
            ["export", "--store", w.path("good.sqlite"), "--output", w.path("j.csv")],
            environment: ConcurrencyDebug.Variable.environment([.concurrency: "3", .journal: journal]), timeout: 300)
        try #require(run.status == 0, "\(run)")
        let stats = try R.ctxdebug("journal", "stats", journal)
        try #require(stats.status == 0 && stats.stdout.contains("problems:     none"), "\(stats)")
        return journal
    }

    @Test("A corrupt journal: 3 with the damage reported; random bytes 2; missing or a directory 1; a cut tail 0 with a note")
    func corruptJournal() throws {
        let w = try Workspace(entries: 300)
        let journal = try Self.makeJournal(w)
        var bytes = try #require(R.bytes(journal))
        // The export journals its context accesses (its fetch, a dictionary fetch since
        // issue 25, makes no per-attribute reads): a session header and one block with
        // a body of a few events, enough for the flip below.
        try #require(bytes.count > 32 + 48 + 16)
        // Flip a byte well inside the first block's body (the session header is 32 bytes,
        // the block header 48).
        bytes[32 + 48 + 10] ^= 0x5A
        let damaged = try w.write("damaged.journal", bytes)
        let before = Self.snapshot([damaged])
        for command in ["stats", "dump", "violations"] {
            let run = try R.ctxdebug("journal", command, damaged)
            #expect(!run.signaled && run.status == 3, "journal \(command): \(run)")
            #expect(run.stderr.lowercased().contains("corrupt"), "journal \(command): \(run.stderr)")
        }
        #expect(Self.snapshot([damaged]) == before)

        let random = try w.write("random.journal", Self.randomBytes(4096, seed: 5))
        Self.expectRefused(try R.ctxdebug("journal", "stats", random), status: 2, mentions: ["not a ctxdebug journal"])
        Self.expectRefused(try R.ctxdebug("journal", "dump", w.path("missing.journal")), status: 1, mentions: ["missing.journal"])
        Self.expectRefused(try R.ctxdebug("journal", "stats", w.dir.path), status: 1, mentions: [w.dir.path])
        let empty = try w.write("empty.journal", Data())
        Self.expectRefused(try R.ctxdebug("journal", "stats", empty), status: 2, mentions: ["not a ctxdebug journal"])

        let whole = try #require(R.bytes(journal))
        let cut = try w.write("cut.journal", whole.prefix(whole.count - 7))
        let run = try R.ctxdebug("journal", "stats", cut)
        #expect(!run.signaled && run.status == 0, "\(run)")
        #expect(run.stderr.contains("cut"), "a note about the cut tail: \(run.stderr)")
    }
}
