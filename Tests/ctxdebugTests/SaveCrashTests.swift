import Foundation
import Testing
import TestSupport

/// Crash safety of saves (issue 9, docs/reliability.md): `ctxdebug-stress-writer`
/// saves continuously and acknowledges each save on stdout after `save()` returns;
/// this kills it with SIGKILL at random moments, many times over the same store, and
/// after each kill checks the store with the sqlite3 CLI (an independent reader).
@Suite("Reliability: crash safety of saves")
struct SaveCrashTests {
    static let rowsPerSave = 3

    /// What the store holds, read by sqlite3.
    struct StoreState {
        var integrity: String
        /// `w<n>` groups that do not have exactly `rowsPerSave` rows.
        var halfGroups: Int
        /// Distinct `w<n>` groups, and the largest n.
        var groups: Int
        var maxSave: Int
        /// The marker entry's wind: the last save the store holds.
        var marker: Int?
        var zmaxCoversRows: Bool
    }

    static func read(_ store: String) throws -> StoreState? {
        let tables = try Reliability.sqlite(store, "SELECT count(*) FROM sqlite_master WHERE name = 'ZJOURNALENTRY';")
        try #require(tables.status == 0, "sqlite3 could not read the store: \(tables)")
        if tables.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0" { return nil }
        let sql = """
            PRAGMA integrity_check;
            SELECT count(*) FROM (SELECT ZLOCATION FROM ZJOURNALENTRY WHERE ZLOCATION LIKE 'w%' GROUP BY ZLOCATION HAVING count(*) != \(rowsPerSave));
            SELECT count(DISTINCT ZLOCATION), coalesce(max(CAST(substr(ZLOCATION, 2) AS INTEGER)), 0) FROM ZJOURNALENTRY WHERE ZLOCATION LIKE 'w%';
            SELECT coalesce((SELECT ZWIND FROM ZJOURNALENTRY WHERE ZLOCATION = 'marker'), 'none');
            SELECT coalesce((SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'JournalEntry'), -1) >= coalesce((SELECT max(Z_PK) FROM ZJOURNALENTRY), 0);
            """
        let r = try Reliability.sqlite(store, sql)
        try #require(r.status == 0, "sqlite3 failed on the store: \(r)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 5, "unexpected sqlite3 output: \(r.stdout)")
        let groups = lines[2].split(separator: " ")
        return StoreState(
            integrity: lines[0], halfGroups: Int(lines[1]) ?? -1, groups: Int(groups[0]) ?? -1, maxSave: Int(groups[1]) ?? -1,
            marker: Int(lines[3]), zmaxCoversRows: lines[4] == "1")
    }

    @Test("SIGKILL at random moments while saving: integrity ok, every acknowledged save there, none half there")
    func killedWhileSaving() throws {
        let cycles = Int(ProcessInfo.processInfo.environment["RELIABILITY_SAVE_CRASH_CYCLES"] ?? "") ?? 120
        let seed = Reliability.seed()
        var rng = SplitMix(seed: seed)
        let dir = try temporaryDirectory("reliability-save-crash")
        defer { Reliability.remove(dir) }
        let store = dir.appendingPathComponent("Crash.sqlite").path

        var acknowledged = 0  // the largest save acknowledged by any run so far
        var killedMidRun = 0
        var killedBeforeFirstAck = 0
        var totalAcks = 0
        let start = Date()
        for cycle in 1...cycles {
            let child = try ChildProcess(try CLI.product("ctxdebug-stress-writer"), ["--store", store, "--rows", "\(Self.rowsPerSave)"])
            // A random moment. One cycle in five: while the process starts and opens (or
            // creates) the store. The others: once it has opened the store ("start"),
            // somewhere in the saves that follow, however slow the machine is.
            let early = Int.random(in: 0..<5, using: &rng) == 0
            let delay = early ? UInt32.random(in: 0...60_000, using: &rng) : UInt32.random(in: 0...150_000, using: &rng)
            if !early {
                let waitUntil = Date().addingTimeInterval(30)
                while !child.stdoutSoFar.contains("start ") && child.process.isRunning && Date() < waitUntil { usleep(1000) }
            }
            usleep(delay)
            kill(child.pid, SIGKILL)
            let run = child.wait(timeout: 60)
            let context = "cycle \(cycle) of \(cycles) (seed \(seed), RELIABILITY_SEED=\(seed) repeats it), killed \(delay / 1000) ms after \(early ? "it started" : "it opened the store")"
            // It must have died of the kill, not of an error of its own.
            try #require(run.signaled && run.status == SIGKILL, "the writer ended on its own: \(run) — \(context)")
            let acks = run.stdout.split(separator: "\n").compactMap { line -> Int? in
                line.hasPrefix("ack ") ? Int(line.dropFirst(4)) : nil
            }
            if let last = acks.last {
                #expect(last > acknowledged, "saves go on from where the store was — \(context)")
                acknowledged = last
                totalAcks += acks.count
                killedMidRun += 1
            } else {
                killedBeforeFirstAck += 1
            }

            guard let state = try Self.read(store) else {
                // Killed before the store's tables were ever committed: nothing acknowledged yet.
                #expect(acknowledged == 0, "the store lost its tables — \(context)")
                continue
            }
            #expect(state.integrity == "ok", "integrity_check: \(state.integrity) — \(context)")
            #expect(state.halfGroups == 0, "\(state.halfGroups) saves are half there — \(context)")
            #expect(state.maxSave >= acknowledged, "acknowledged save \(acknowledged) is missing; the store ends at \(state.maxSave) — \(context)")
            #expect(state.groups == state.maxSave, "saves 1…\(state.maxSave) should all be there, found \(state.groups) — \(context)")
            #expect(state.marker == state.maxSave, "the marker says \(state.marker.map(String.init) ?? "nothing"), the rows say \(state.maxSave) — \(context)")
            #expect(state.zmaxCoversRows, "Z_PRIMARYKEY.Z_MAX is below the largest Z_PK — \(context)")
            // At most the one save in flight at the kill may be in the store without its ack.
            #expect(state.maxSave <= acknowledged + 1, "the store holds saves never started — \(context)")
            acknowledged = state.maxSave
        }
        let seconds = Date().timeIntervalSince(start)
        print(
            "save crash safety: \(cycles) SIGKILL cycles survived in \(String(format: "%.1f", seconds)) s "
                + "(\(killedMidRun) while saving, \(killedBeforeFirstAck) before the first ack); "
                + "\(totalAcks) acknowledged saves, \(acknowledged) saves in the store; seed \(seed)")
        // The kills must have landed among the saves, not only before them.
        #expect(killedMidRun >= cycles / 2, "too few kills landed while saving (\(killedMidRun) of \(cycles))")
        #expect(totalAcks >= cycles, "too few saves were acknowledged (\(totalAcks)) to prove anything")
    }
}
