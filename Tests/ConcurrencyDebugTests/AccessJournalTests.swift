@_spi(CtxdebugTools) @_spi(Runtime) import ConcurrencyDebug
import Foundation
import TestSupport
import Testing
import Synchronization

@Suite("Journal")
struct AccessJournalTests {
    static let owner = QueueIdentity(rawValue: 5)
    static let other = QueueIdentity(rawValue: 6)

    /// The event the writer test journals for object `n`.
    static func event(_ n: Int64) -> AccessEvent {
        AccessEvent(
            operation: n % 7 == 0 ? .set : .get, owner: owner, context: 2, subject: UInt16(1 + n % 3),
            member: UInt16(n % 5), instance: n)
    }

    @Test("CRC-32C gives the standard check value")
    func crc() {
        let bytes = Array("123456789".utf8)
        #expect(bytes.withUnsafeBytes { AccessJournalFormat.crc32c($0) } == 0xE306_9283)
        let head = bytes.prefix(4).withUnsafeBytes { AccessJournalFormat.crc32c($0) }
        #expect(bytes[4...].withUnsafeBytes { AccessJournalFormat.crc32c($0, continuing: head) } == 0xE306_9283)
    }

    @Test("Round trip: every event comes back, in order per thread, in about 4 bytes each")
    func roundTrip() throws {
        let path = temporaryPath("roundtrip.journal")
        defer { unlink(path) }
        let writer = try AccessJournalWriter(path: path, blockCapacity: 4096)
        let perThread = 20_000
        let threads = 3
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for n in 1...perThread {
                let id = Int64(thread * 1_000_000 + n)
                writer.record(
                    Self.event(id), current: n % 100 == 0 ? Self.other : Self.owner, allowed: n % 100 != 0)
            }
        }
        writer.close()

        let reader = try AccessJournalReader(path: path)
        #expect(reader.problems.isEmpty)
        #expect(reader.sessions.count == 1)
        #expect(reader.sessions.first?.pid == UInt32(getpid()))
        let events = reader.events
        #expect(events.count == perThread * threads)
        var byThread: [UInt32: [AccessJournalEvent]] = [:]
        for event in events { byThread[event.thread, default: []].append(event) }
        #expect(byThread.count <= threads)
        var seen = Set<Int64>()
        for (_, list) in byThread {
            // One thread's events keep their order and their times never go back.
            #expect(zip(list, list.dropFirst()).allSatisfy { $0.time <= $1.time })
            for event in list {
                let expected = Self.event(event.instance)
                #expect(event.operation == expected.operation)
                #expect(event.subject == expected.subject && event.member == expected.member)
                #expect(event.context == 2 && event.owner == Self.owner)
                #expect(event.allowed == (event.instance % 1_000_000 % 100 != 0))
                #expect(event.current == (event.allowed ? Self.owner : Self.other))
                seen.insert(event.instance)
            }
        }
        #expect(seen.count == perThread * threads)
        let stats = reader.stats
        #expect(stats.events == perThread * threads)
        #expect(stats.violations == perThread * threads / 100)
        #expect(reader.violations().count == stats.violations)
        #expect(stats.recordBytesPerEvent <= 16, "record bytes per event: \(stats.recordBytesPerEvent)")
        #expect(stats.fileBytesPerEvent <= 16, "file bytes per event: \(stats.fileBytesPerEvent)")
        #expect(reader.queueLabels[Self.owner] != nil)
    }

    /// 5,000 accesses of one thread in blocks of 1 KiB (at least 10 blocks), read back.
    static func oneThreadJournal(_ name: String) throws -> AccessJournalReader {
        let path = temporaryPath(name)
        defer { unlink(path) }
        let writer = try AccessJournalWriter(path: path, blockCapacity: 1024)
        for n in 1...5000 { writer.record(event(Int64(n)), current: owner, allowed: true) }
        writer.close()
        let journal = try AccessJournalReader(path: path)
        try #require(journal.blocks.count >= 10)
        return journal
    }

    @Test("A flipped byte is detected by the checksum; the other blocks read back, nothing misread")
    func flippedBytes() throws {
        let original = try Self.oneThreadJournal("flipped.journal")
        #expect(original.problems.isEmpty)

        for (blockIndex, offsetInBlock) in [(2, 40), (5, 33), (7, 9), (8, 4)] {
            var bytes = original.bytes
            let block = original.blocks[blockIndex]
            bytes[block.offset + offsetInBlock] ^= 0x10
            let damaged = try AccessJournalReader(bytes: bytes)
            #expect(!damaged.isIntact)
            #expect(damaged.problems.count == 1, "\(damaged.problems)")
            #expect(damaged.problems.first?.offset == block.offset)
            #expect(damaged.blocks.count == original.blocks.count - 1)
            let expectedEvents = original.blocks.filter { $0.offset != block.offset }.reduce(0) { $0 + $1.eventCount }
            let events = damaged.events
            #expect(events.count == expectedEvents)
            // Never misread: every event read is one that was written, unchanged.
            #expect(events.allSatisfy { $0.operation == Self.event($0.instance).operation && $0.subject == Self.event($0.instance).subject })
        }
    }

    /// The length is outside the checksum, so damage to it can point anywhere; when it
    /// points exactly at a later block's magic, the blocks in between must still be read
    /// (found by CI with seed 1795831976336 of the random-offset test: one flipped length
    /// byte lost 131 intact blocks).
    @Test("A damaged length pointing exactly at a later block: the blocks in between are still read")
    func damagedLengthPointingAtALaterBlock() throws {
        let original = try Self.oneThreadJournal("length-points-on.journal")

        for (damagedIndex, pointedAtIndex) in [(2, 6), (0, 9), (5, 7)] {
            var bytes = original.bytes
            let block = original.blocks[damagedIndex]
            let pointedAt = original.blocks[pointedAtIndex]
            let body = UInt32(pointedAt.offset - block.offset - 48)
            withUnsafeBytes(of: body.littleEndian) { for i in 0..<4 { bytes[block.offset + 4 + i] = $0[i] } }
            let damaged = try AccessJournalReader(bytes: bytes)
            let context = "block \(damagedIndex)'s length points at block \(pointedAtIndex)"
            #expect(damaged.problems.map(\.kind) == [.corruptBlock], "\(damaged.problems) — \(context)")
            #expect(damaged.problems.first?.offset == block.offset, "\(context)")
            #expect(damaged.problems.first?.length == block.size, "the corrupt block is reported with its real extent — \(context)")
            #expect(
                damaged.blocks.map(\.offset) == original.blocks.map(\.offset).filter { $0 != block.offset }, "\(context)")
        }
    }

    @Test("A cut tail is reported, and every complete block before it is read")
    func cutTail() throws {
        let path = temporaryPath("cut.journal")
        defer { unlink(path) }
        let writer = try AccessJournalWriter(path: path, blockCapacity: 1024)
        for n in 1...3000 { writer.record(Self.event(Int64(n)), current: Self.owner, allowed: true) }
        writer.close()
        let whole = try AccessJournalReader(path: path)
        let last = try #require(whole.blocks.last)
        for cut in [last.offset + 3, last.offset + 20, last.offset + last.size - 1] {
            let reader = try AccessJournalReader(bytes: Array(whole.bytes[..<cut]))
            #expect(reader.isIntact)
            #expect(reader.cutTail?.offset == last.offset)
            #expect(reader.cutTail?.length == cut - last.offset)
            #expect(reader.blocks.count == whole.blocks.count - 1)
            #expect(reader.events.map(\.instance) == Array(1...Int64(3000 - last.eventCount)))
        }
    }

    @Test("Not a journal, an empty file and a missing file are errors")
    func notAJournal() throws {
        #expect(throws: AccessJournalError.self) { try AccessJournalReader(bytes: Array("hello, world".utf8)) }
        #expect(throws: AccessJournalError.self) { try AccessJournalReader(bytes: []) }
        do {
            _ = try AccessJournalReader(path: "/nonexistent/x.journal")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .cannotAccess)
        }
    }

    @Test("SIGKILL in the middle of writing: the complete blocks read back, with no gap")
    func killedWriter() async throws {
        let path = temporaryPath("killed.journal")
        defer { unlink(path) }
        await #expect(processExitsWith: .signal(SIGKILL)) { [path = path as String] in
            let writer = try AccessJournalWriter(path: path, blockCapacity: 2048)
            let killer = Thread {
                // Kill the process once some blocks are on disk, while the writer goes on.
                while (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 < 40_000 {
                    usleep(200)
                }
                kill(getpid(), SIGKILL)
            }
            killer.start()
            var n: Int64 = 0
            while true {
                n += 1
                writer.record(AccessJournalTests.event(n), current: AccessJournalTests.owner, allowed: true)
            }
        }
        let reader = try AccessJournalReader(path: path)
        #expect(reader.isIntact, "\(reader.problems)")
        let objects = reader.events.map(\.instance)
        #expect(objects.count > 1000)
        // Every complete block was kept: the events are 1, 2, 3, ... with no gap.
        #expect(objects == Array(1...Int64(objects.count)))
    }

    @Test("CTXDEBUG_JOURNAL: the process journals every checked access, flushed at exit")
    func processJournal() async throws {
        let path = temporaryPath("process.journal")
        defer { unlink(path) }
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) { [path = path as String] in
            ConcurrencyDebug.Variable.set([.journal: path, .onViolation: "log"])
            let owner = QueueIdentity.makePrivate(label: "test.journal-owner")
            let counter = QueueConfined(0, owner: owner, name: "journaled")
            runAs(owner) {
                for _ in 0..<10 { counter.value += 1 }
            }
            DispatchQueue(label: "test.journal-offender").sync { _ = counter.value }
        }
        let stderr = utf8(try #require(result).standardErrorContent)
        #expect(stderr.contains("level 3, on violation: log, journal: \(path)"))
        let reader = try AccessJournalReader(path: path)
        #expect(reader.isIntact)
        let events = reader.events
        #expect(events.count == 11)
        #expect(events.filter { $0.operation == .set && $0.allowed }.count == 10)
        let violations = reader.violations()
        #expect(violations.count == 1)
        #expect(violations.first?.operation == .get)
        #expect(violations.first.map { reader.queueLabels[$0.owner] } == "test.journal-owner")
        #expect(violations.first?.current == QueueIdentity.none)
    }

    @Test("The checker names only its own operations; a client registers the rest")
    func operationVocabulary() {
        let fresh = AccessOperationNames()
        #expect(fresh.name(of: AccessOperation.get.rawValue) == "get")
        #expect(fresh.name(of: AccessOperation.set.rawValue) == "set")
        #expect(fresh.name(of: AccessOperation.other.rawValue) == "access")
        // No Core Data word is the checker's own: 3...19 and 21...31 are its clients'.
        for raw in AccessOperation.validRawValues where ![1, 2, 20].contains(raw) {
            #expect(fresh.name(of: raw) == nil, "operation \(raw)")
        }
        fresh.register("touch", as: 31)
        fresh.register("touch", as: 31)  // the same name again is fine
        #expect(fresh.name(of: 31) == "touch")
    }

    @Test("Each block names the operations it uses; a version-1 reader's fallback is the registrations")
    func operationNamesInBlocks() throws {
        let path = temporaryPath("names.journal")
        defer { unlink(path) }
        let poke = AccessOperation.register("poke", as: 28)
        let writer = try AccessJournalWriter(path: path, blockCapacity: 1024)
        for n in 1...3000 {
            writer.record(AccessEvent(operation: n % 2 == 0 ? poke : .get, owner: Self.owner, instance: Int64(n)), current: Self.owner, allowed: true)
        }
        writer.close()
        let reader = try AccessJournalReader(path: path)
        #expect(reader.problems.isEmpty)
        try #require(reader.blocks.count > 2)
        #expect(reader.operationNames == [poke: "poke", .get: "get"])
        #expect(reader.name(of: poke) == "poke")
        #expect(reader.stats.operations == ["poke": 1500, "get": 1500])
        // Every block decodes on its own: each carries the names it uses.
        let bytes = reader.bytes
        for block in reader.blocks {
            let alone = Array(bytes[0..<32]) + Array(bytes[block.offset..<(block.offset + block.size)])
            #expect(try AccessJournalReader(bytes: alone).operationNames[poke] == "poke")
        }
        // Once per block, not per event: control record 3, operation 28, 4 bytes of UTF-8.
        let record: [UInt8] = [0, 3, 28, 4] + Array("poke".utf8)
        let occurrences = (0...(bytes.count - record.count)).filter { bytes[$0..<($0 + record.count)].elementsEqual(record) }
        #expect(occurrences.count == reader.blocks.count)
    }

    @Test("Flushes from another thread while the owner journals: every event once, in order, none lost")
    func flushWhileAppending() throws {
        let path = temporaryPath("concurrent-flush.journal")
        defer { unlink(path) }
        // Small blocks: the owner's staging rounds, its full blocks and the flushes' partial
        // blocks all interleave.
        let writer = try AccessJournalWriter(path: path, blockCapacity: 1024)
        let total: Int64 = 60_000
        let started = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let finished = Atomic<Bool>(false)
        Thread.detachNewThread {
            started.signal()
            for n in 1...total { writer.record(Self.event(n), current: Self.owner, allowed: n % 100 != 0) }
            finished.store(true, ordering: .releasing)
            done.signal()
        }
        started.wait()
        var flushes = 0
        while !finished.load(ordering: .acquiring) {
            writer.flush()
            flushes += 1
        }
        done.wait()
        writer.close()

        let reader = try AccessJournalReader(path: path)
        #expect(reader.problems.isEmpty, "\(reader.problems)")
        let events = reader.events
        // Each block is one thread's, in time order; the owner's blocks are in file order.
        #expect(events.map(\.instance) == Array(1...total), "\(flushes) flushes")
        for event in events {
            let expected = Self.event(event.instance)
            #expect(event.operation == expected.operation && event.subject == expected.subject && event.member == expected.member)
            #expect(event.allowed == (event.instance % 100 != 0))
        }
        #expect(flushes > 0)
    }

    @Test("Accesses still staged are written by flush(), and by close()")
    func stagedAccessesAreFlushed() throws {
        let path = temporaryPath("staged.journal")
        defer { unlink(path) }
        let writer = try AccessJournalWriter(path: path)
        // Fewer accesses than one staging round: none is encoded until a flush.
        for n in 1...5 { writer.record(Self.event(Int64(n)), current: Self.owner, allowed: true) }
        writer.flush()
        #expect(try AccessJournalReader(path: path).events.map(\.instance) == [1, 2, 3, 4, 5])
        for n in 6...8 { writer.record(Self.event(Int64(n)), current: Self.owner, allowed: true) }
        writer.close()
        #expect(try AccessJournalReader(path: path).events.map(\.instance) == Array(1...8))
        // After close, accesses are dropped, and nothing breaks.
        for n in 9...100 { writer.record(Self.event(Int64(n)), current: Self.owner, allowed: true) }
        #expect(try AccessJournalReader(path: path).events.count == 8)
    }

    /// A writer used to make a pthread key of its own, and never gave it back: after
    /// about 1,000 journals in one process (a long test run) `pthread_key_create` failed,
    /// its error went unread, and the writer stored its buffers in key 0, another
    /// library's slot: heap corruption ("free(): double free detected in tcache 2").
    @Test("Opening many journals uses up no thread-local keys, and each journal keeps its own accesses")
    func manyWritersUseNoKeys() throws {
        for n in 0..<1_100 {
            let path = temporaryPath("many-\(n).journal")
            defer { unlink(path) }
            let writer = try AccessJournalWriter(path: path)
            writer.record(Self.event(Int64(n + 1)), current: Self.owner, allowed: true)
            writer.close()
            if n % 100 == 0 { #expect(try AccessJournalReader(path: path).events.map(\.instance) == [Int64(n + 1)]) }
        }
        var key = pthread_key_t()
        let created = pthread_key_create(&key, nil)
        #expect(created == 0, "a thread-local key is still free after 1,100 journals (pthread_key_create gave \(created))")
        if created == 0 { pthread_key_delete(key) }
    }

    @Test("One thread, two journals in turn: each access goes to the journal it was recorded in")
    func twoWritersOnOneThread() throws {
        let first = temporaryPath("first.journal"), second = temporaryPath("second.journal")
        defer { unlink(first); unlink(second) }
        let a = try AccessJournalWriter(path: first), b = try AccessJournalWriter(path: second)
        for n in 1...40 { a.record(Self.event(Int64(n)), current: Self.owner, allowed: true) }
        for n in 101...150 { b.record(Self.event(Int64(n)), current: Self.owner, allowed: true) }
        for n in 41...45 { a.record(Self.event(Int64(n)), current: Self.owner, allowed: true) }
        a.close()
        b.close()
        #expect(try AccessJournalReader(path: first).events.map(\.instance) == Array(1...45))
        #expect(try AccessJournalReader(path: second).events.map(\.instance) == Array(101...150))
    }
}
