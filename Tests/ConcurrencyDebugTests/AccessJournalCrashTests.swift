import ConcurrencyDebug
import Foundation
import Testing
import TestSupport

/// Crash safety of the journal beyond AccessJournalTests (issue 9, docs/reliability.md):
/// many SIGKILLs at random moments with random block sizes and thread counts, and
/// damage at many random offsets, which is always detected and never misread.
@Suite("Reliability: crash safety of the journal")
struct AccessJournalCrashTests {
    static func seed() -> UInt64 {
        if let s = ProcessInfo.processInfo.environment["RELIABILITY_SEED"], let v = UInt64(s) { return v }
        return UInt64(Date().timeIntervalSince1970 * 1000)
    }

    /// Object keys carry their thread: thread t's n-th event is object t * 1e9 + n.
    static let threadStride: Int64 = 1_000_000_000

    static let killCycles = Int(ProcessInfo.processInfo.environment["RELIABILITY_JOURNAL_KILL_CYCLES"] ?? "") ?? 24

    /// One kill: 1–3 writer threads, a random block size, killed once the file passes a
    /// random size (possibly 0: before the first block) and a random extra delay.
    @Test("SIGKILL at random moments: every complete block reads back, per thread with no gap", arguments: 0..<killCycles)
    func killedAtRandom(_ cycle: Int) async throws {
        let seed = Self.seed() &+ UInt64(cycle) &* 7919
        var rng = SplitMix(state: seed)
        let threads = Int.random(in: 1...3, using: &rng)
        let capacity = [256, 1024, 2048, 4096, 16 * 1024].randomElement(using: &rng)!
        let threshold = Int.random(in: 0...300_000, using: &rng)
        let extraDelay = UInt32.random(in: 0...20_000, using: &rng)
        let path = temporaryPath("killed-\(cycle).journal")
        defer { unlink(path) }
        let context = "cycle \(cycle): \(threads) threads, blocks of \(capacity), killed past \(threshold) bytes + \(extraDelay) µs (seed \(seed))"

        await #expect(processExitsWith: .signal(SIGKILL), "\(context)") {
            [path = path as String, threads = threads as Int, capacity = capacity as Int, threshold = threshold as Int, extraDelay = extraDelay as UInt32] in
            let writer = try AccessJournalWriter(path: path, blockCapacity: capacity)
            let killer = Thread {
                while (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 < threshold { usleep(100) }
                usleep(extraDelay)
                kill(getpid(), SIGKILL)
            }
            killer.start()
            for t in 1..<threads {
                Thread.detachNewThread {
                    var n: Int64 = 0
                    while true {
                        n += 1
                        writer.record(AccessJournalTests.event(Int64(t) * AccessJournalCrashTests.threadStride + n), current: AccessJournalTests.owner, allowed: n % 50 != 0)
                    }
                }
            }
            var n: Int64 = 0
            while true {
                n += 1
                writer.record(AccessJournalTests.event(n), current: AccessJournalTests.owner, allowed: n % 50 != 0)
            }
        }

        let reader = try AccessJournalReader(path: path)
        // Only a cut tail, never a corrupt block or garbage.
        #expect(reader.isIntact, "\(reader.problems) — \(context)")
        #expect(reader.problems.allSatisfy { $0.kind == .cutTail }, "\(reader.problems) — \(context)")
        if let tail = reader.cutTail {
            #expect(tail.offset + tail.length == reader.bytes.count, "the cut tail is at the end — \(context)")
        }
        #expect(reader.sessions.count == 1, "\(context)")
        var byThread: [Int64: [Int64]] = [:]
        for event in reader.events {
            byThread[event.instance / Self.threadStride, default: []].append(event.instance % Self.threadStride)
            // Never misread: each event is exactly the one written for its object.
            let expected = AccessJournalTests.event(event.instance)
            #expect(event.operation == expected.operation && event.subject == expected.subject && event.member == expected.member, "\(context)")
            #expect(event.allowed == (event.instance % Self.threadStride % 50 != 0), "\(context)")
        }
        for (thread, objects) in byThread {
            // Each thread's blocks are written in order: what is read is 1, 2, 3, ... with no gap.
            #expect(objects == Array(1...Int64(objects.count)), "thread \(thread) has a gap — \(context)")
        }
        let total = byThread.values.reduce(0) { $0 + $1.count }
        #expect(total == reader.blocks.reduce(0) { $0 + $1.eventCount }, "\(context)")
    }

    /// A journal of ~60 blocks from three threads.
    static func sampleJournal() throws -> AccessJournalReader {
        let path = temporaryPath("sample-for-damage.journal")
        defer { unlink(path) }
        let writer = try AccessJournalWriter(path: path, blockCapacity: 512)
        DispatchQueue.concurrentPerform(iterations: 3) { t in
            for n in 1...2500 {
                writer.record(AccessJournalTests.event(Int64(t) * threadStride + Int64(n)), current: AccessJournalTests.owner, allowed: n % 50 != 0)
            }
        }
        writer.close()
        let reader = try AccessJournalReader(path: path)
        try #require(reader.problems.isEmpty)
        try #require(reader.blocks.count >= 40)
        return reader
    }

    /// Checks a damaged copy: damage is reported, every block that holds no damaged
    /// byte is read back whole, no damaged block is decoded, and every event read is one
    /// that was written.
    static func checkDamaged(_ original: AccessJournalReader, _ bytes: [UInt8], damaged offsets: [Int], _ context: String) throws {
        let reader: AccessJournalReader
        do {
            reader = try AccessJournalReader(bytes: bytes)
        } catch {
            // Only damage to the first 10 bytes (session magic or version) may refuse the file.
            #expect(offsets.contains { $0 < 10 }, "refused: \(error) — \(context)")
            return
        }
        // The session header's 4 reserved bytes (28–31) are outside its checksum and
        // unused: damage there may go unnoticed, and then nothing read may differ.
        let reservedOnly = offsets.allSatisfy { o in original.sessions.contains { o >= $0.offset + 28 && o < $0.offset + 32 } }
        if reservedOnly {
            #expect(reader.events == original.events, "damage to reserved bytes changed what was read — \(context)")
            return
        }
        #expect(!reader.problems.isEmpty, "the damage went unnoticed — \(context)")
        let hit = { (b: AccessJournalBlock) in offsets.contains { $0 >= b.offset && $0 < b.offset + b.size } }
        let readOffsets = Set(reader.blocks.map(\.offset))
        for block in original.blocks {
            if hit(block) {
                #expect(!readOffsets.contains(block.offset), "a damaged block at \(block.offset) was decoded — \(context)")
            } else {
                #expect(readOffsets.contains(block.offset), "the intact block at \(block.offset) was lost — \(context)")
            }
        }
        #expect(reader.blocks.count == original.blocks.filter { !hit($0) }.count, "\(context)")
        var seen = Set<Int64>()
        for event in reader.events {
            let expected = AccessJournalTests.event(event.instance)
            #expect(
                event.operation == expected.operation && event.subject == expected.subject && event.member == expected.member
                    && event.owner == AccessJournalTests.owner && event.context == 2,
                "misread event \(event) — \(context)")
            #expect(seen.insert(event.instance).inserted, "an event read twice — \(context)")
        }
    }

    static let damageRounds = Int(ProcessInfo.processInfo.environment["RELIABILITY_JOURNAL_DAMAGE_ROUNDS"] ?? "") ?? 500

    @Test("One flipped byte at many random offsets: detected by the checksums, never misread")
    func flippedAtRandomOffsets() throws {
        let original = try Self.sampleJournal()
        let seed = Self.seed()
        var rng = SplitMix(state: seed)
        for round in 0..<Self.damageRounds {
            var bytes = original.bytes
            let offset = Int.random(in: 0..<bytes.count, using: &rng)
            bytes[offset] ^= UInt8.random(in: 1...255, using: &rng)
            try Self.checkDamaged(original, bytes, damaged: [offset], "round \(round), byte \(offset) (seed \(seed))")
        }
    }

    @Test("Several flipped bytes, and overwritten runs, at random offsets: detected, never misread")
    func damagedAtRandomOffsets() throws {
        let original = try Self.sampleJournal()
        let seed = Self.seed() &+ 1
        var rng = SplitMix(state: seed)
        for round in 0..<(Self.damageRounds / 3) {
            var bytes = original.bytes
            var offsets: [Int] = []
            if round % 2 == 0 {
                for _ in 0..<Int.random(in: 2...6, using: &rng) {
                    let offset = Int.random(in: 32..<bytes.count, using: &rng)
                    bytes[offset] ^= UInt8.random(in: 1...255, using: &rng)
                    offsets.append(offset)
                }
            } else {
                // A run of zeros or random bytes, as a torn sector would leave.
                let start = Int.random(in: 32..<bytes.count, using: &rng)
                let length = min(Int.random(in: 1...700, using: &rng), bytes.count - start)
                let zeros = Bool.random(using: &rng)
                for i in start..<(start + length) {
                    let new: UInt8 = zeros ? 0 : UInt8.random(in: 0...255, using: &rng)
                    if bytes[i] != new {
                        bytes[i] = new
                        offsets.append(i)
                    }
                }
                if offsets.isEmpty { continue }
            }
            try Self.checkDamaged(original, bytes, damaged: offsets, "round \(round), offsets \(offsets.prefix(8)) (seed \(seed))")
        }
    }

    /// The length is the one field outside the checksum, so it is damaged here
    /// exhaustively rather than by chance, in a block near the start, one in the middle
    /// and the last one: its two low bytes to every other value (lengths that can land
    /// anywhere in the file), its two high bytes to a few (lengths past the end).
    @Test("Every value of the low length bytes, in three blocks: detected, every other block kept")
    func everyDamagedLength() throws {
        let original = try Self.sampleJournal()
        let blocks = original.blocks
        for block in [blocks[1], blocks[blocks.count / 2], blocks[blocks.count - 1]] {
            for byte in (block.offset + 4)..<(block.offset + 8) {
                let flips: [UInt8] = byte < block.offset + 6 ? Array(1...255) : [0x01, 0x80, 0xFF]
                for flip in flips {
                    var bytes = original.bytes
                    bytes[byte] ^= flip
                    try Self.checkDamaged(original, bytes, damaged: [byte], "byte \(byte) ^ \(flip)")
                }
            }
        }
    }

    @Test("Cut at every offset of the last two blocks: a cut tail, every complete block kept")
    func cutEverywhere() throws {
        let original = try Self.sampleJournal()
        let blocks = original.blocks
        let from = blocks[blocks.count - 2].offset
        for cut in from..<original.bytes.count {
            let reader = try AccessJournalReader(bytes: Array(original.bytes[..<cut]))
            #expect(reader.isIntact, "cut at \(cut): \(reader.problems)")
            let complete = blocks.filter { $0.offset + $0.size <= cut }
            #expect(reader.blocks.map(\.offset) == complete.map(\.offset), "cut at \(cut)")
            let isBoundary = complete.last.map { $0.offset + $0.size == cut } ?? false
            #expect((reader.cutTail == nil) == isBoundary, "cut at \(cut): \(String(describing: reader.cutTail))")
        }
    }
}
