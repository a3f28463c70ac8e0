@_spi(Runtime) import ConcurrencyDebug
import Foundation
import Testing
import TestSupport

/// `ctxdebug journal`, through the built binary.
@Suite("ctxdebug journal")
struct JournalCommandTests {
    func ctxdebug(_ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> CommandRun {
        try CLI.ctxdebug(arguments, sourceLocation: sourceLocation)
    }

    /// A journal of 2,000 accesses, 20 of them violations, in blocks of ~1 KiB.
    static func makeJournal() throws -> String {
        let path = temporaryPath("sample.journal")
        let owner = QueueIdentity.makePrivate(label: "cli.owner")
        let writer = try AccessJournalWriter(path: path, blockCapacity: 1024)
        for n in 1...2000 {
            let violation = n % 100 == 0
            writer.record(
                AccessEvent(operation: n % 2 == 0 ? .get : .set, owner: owner, context: 1, subject: 2, member: 3, instance: Int64(n)),
                current: violation ? .main : owner, allowed: !violation)
        }
        writer.close()
        return path
    }

    @Test("stats, as text and as JSON")
    func stats() throws {
        let path = try Self.makeJournal()
        defer { unlink(path) }
        let text = try ctxdebug("journal", "stats", path)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("events:       2000 (20 violations)"))
        #expect(text.stdout.contains("sessions:     1 (pid "))
        #expect(text.stdout.contains("'cli.owner'"))
        #expect(text.stdout.contains("operations:   get 1000, set 1000"))
        #expect(text.stdout.contains("problems:     none"))
        #expect(text.stderr.isEmpty)

        let json = try ctxdebug("journal", "stats", path, "--format", "json")
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["events"] as? Int == 2000)
        #expect(object["violations"] as? Int == 20)
        #expect(object["corruptBlocks"] as? Int == 0)
        let bytesPerEvent = try #require(object["recordBytesPerEvent"] as? Double)
        #expect(bytesPerEvent > 0 && bytesPerEvent <= 16)
    }

    @Test("dump and violations, as text and as JSON")
    func dumpAndViolations() throws {
        let path = try Self.makeJournal()
        defer { unlink(path) }
        let dump = try ctxdebug("journal", "dump", path)
        #expect(dump.status == 0)
        let lines = dump.stdout.split(separator: "\n")
        #expect(lines.count == 2000)
        #expect(lines.filter { $0.contains("VIOLATION") }.count == 20)
        #expect(lines.first?.contains("set  owner ") == true)
        #expect(lines.first?.contains("object 1") == true)

        let json = try ctxdebug("journal", "dump", path, "--format", "json")
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let events = try #require(object["events"] as? [[String: Any]])
        #expect(events.count == 2000)
        #expect(events.map { $0["object"] as? Int } == (1...2000).map { Optional($0) })
        #expect(events.first?["ownerLabel"] as? String == "cli.owner")

        let violations = try ctxdebug("journal", "violations", path, "--format", "json")
        let violationEvents = try #require(
            (try JSONSerialization.jsonObject(with: Data(violations.stdout.utf8)) as? [String: Any])?["events"]
                as? [[String: Any]])
        #expect(violationEvents.map { $0["object"] as? Int } == stride(from: 100, through: 2000, by: 100).map { Optional($0) })
        #expect(violationEvents.allSatisfy { $0["allowed"] as? Bool == false && $0["currentLabel"] as? String == "com.apple.main-thread" })
        let violationText = try ctxdebug("journal", "violations", path)
        #expect(violationText.stdout.hasSuffix("20 violations\n"))
    }

    @Test("A missing file exits 1; a file that is not a journal exits 2")
    func unreadable() throws {
        let missing = try ctxdebug("journal", "stats", "/nonexistent/none.journal")
        #expect(missing.status == 1)
        #expect(missing.stderr == "ctxdebug journal: error: /nonexistent/none.journal: No such file or directory\n")
        #expect(missing.stdout.isEmpty)

        let path = temporaryPath("text.txt")
        defer { unlink(path) }
        try "just some text\n".write(toFile: path, atomically: true, encoding: .utf8)
        let notJournal = try ctxdebug("journal", "dump", path)
        #expect(notJournal.status == 2)
        #expect(notJournal.stderr.contains("not a ctxdebug journal"))
    }

    @Test("A corrupt block is reported and exits 3; the rest is still printed")
    func corruptBlock() throws {
        let path = try Self.makeJournal()
        defer { unlink(path) }
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let original = try AccessJournalReader(bytes: bytes)
        let block = original.blocks[1]
        bytes[block.offset + 50] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let run = try ctxdebug("journal", "stats", path)
        #expect(run.status == 3)
        #expect(run.stderr.contains("error: \(path): corrupt block at offset \(block.offset)"))
        #expect(run.stderr.contains("checksum mismatch"))
        #expect(run.stdout.contains("events:       \(2000 - block.eventCount) "))
        #expect(run.stdout.contains("1 corrupt"))
    }

    @Test("A cut tail is a note, not an error")
    func cutTail() throws {
        let path = try Self.makeJournal()
        defer { unlink(path) }
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let last = try #require(try AccessJournalReader(bytes: bytes).blocks.last)
        try Data(bytes[..<(last.offset + 40)]).write(to: URL(fileURLWithPath: path))

        let run = try ctxdebug("journal", "dump", path)
        #expect(run.status == 0)
        #expect(run.stderr.contains("note: \(path): the tail was cut at offset \(last.offset)"))
        #expect(run.stdout.split(separator: "\n").count == 2000 - last.eventCount)
    }

    @Test("Usage errors exit 64; help documents the exit status")
    func usage() throws {
        let badFormat = try ctxdebug("journal", "stats", "x.journal", "--format", "xml")
        #expect(badFormat.status == 64)
        #expect(badFormat.stderr.contains("xml"))
        let noFile = try ctxdebug("journal", "dump")
        #expect(noFile.status == 64)
        #expect(noFile.stderr.contains("Missing expected argument '<file>'"))
        let help = try ctxdebug("journal", "--help")
        #expect(help.status == 0)
        #expect(help.stdout.contains("stats"))
        #expect(help.stdout.contains("violations"))
        #expect(help.stdout.contains("3   read, but some blocks are corrupt"))
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/journal")

    @Test("A version-1 journal (no operation names in it) prints as the version that wrote it printed it")
    func versionOneJournal() throws {
        let journal = Self.fixtures.appendingPathComponent("v1-seed.journal").path
        func expected(_ name: String) throws -> String {
            try String(contentsOf: Self.fixtures.appendingPathComponent(name), encoding: .utf8)
        }
        // The fixtures were made in their folder, so they name the file without a path.
        func local(_ output: String) -> String { output.replacingOccurrences(of: journal, with: "v1-seed.journal") }
        let dump = try ctxdebug("journal", "dump", journal)
        #expect(dump.status == 0, "\(dump.stderr)")
        #expect(dump.stdout == (try expected("v1-seed.dump.txt")))
        #expect(dump.stdout.contains("ok        insert  owner 2"), "ManagedContext's numbers name the operations")
        let json = try ctxdebug("journal", "dump", "--format", "json", journal)
        #expect(local(json.stdout) == (try expected("v1-seed.dump.json")))
        let stats = try ctxdebug("journal", "stats", journal)
        #expect(local(stats.stdout) == (try expected("v1-seed.stats.txt")))
        #expect(stats.stdout.contains("operations:   set 18, insert 3, reset 1, save 1"))
    }

    @Test("Operation names travel in the journal: a name this process registered reads in another")
    func operationNamesInTheJournal() throws {
        // The ctxdebug binary registers no operation 29: it can only learn the name from the file.
        let frobnicate = AccessOperation.register("frobnicate", as: 29)
        let path = temporaryPath("named.journal")
        defer { unlink(path) }
        let owner = QueueIdentity.makePrivate(label: "cli.named")
        let writer = try AccessJournalWriter(path: path, blockCapacity: 1024)
        for n in 1...600 {
            writer.record(AccessEvent(operation: n % 3 == 0 ? frobnicate : .get, owner: owner, instance: Int64(n)), current: owner, allowed: true)
        }
        writer.close()
        #expect(try AccessJournalReader(path: path).blocks.count > 1, "names must be in every block")

        let stats = try ctxdebug("journal", "stats", path)
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(stats.stdout.contains("operations:   get 400, frobnicate 200"))
        let dump = try ctxdebug("journal", "dump", path)
        #expect(dump.stdout.split(separator: "\n").filter { $0.contains("ok        frobnicate  owner ") }.count == 200)
        #expect(!dump.stdout.contains("op 29"))
    }
}
