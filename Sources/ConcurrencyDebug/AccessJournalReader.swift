#if canImport(Glibc)
import CtxdebugHelpers
import Glibc
public import ViolationModel
#endif

/// One journaled access.
public struct AccessJournalEvent: Sendable, Hashable {
    /// Nanoseconds since the writing process opened the journal (monotonic clock).
    public var time: UInt64
    /// The process that made the access (its session's).
    public var pid: UInt32
    /// The kernel thread id of the thread that made the access.
    public var thread: UInt32
    /// The queue that was running (the perform block's owner, or main for main-queue
    /// code); `.none` outside both.
    public var current: QueueIdentity
    /// The queue that owns what was touched.
    public var owner: QueueIdentity
    /// The numbers of the access, as `AccessEvent` has them.
    public var context: UInt32
    /// The kind of thing touched (an entity's number, for the runtime).
    public var subject: UInt16
    /// The member touched (an attribute's number); `UInt16.max` for none.
    public var member: UInt16
    /// Which one of its kind was touched (an object's row), as the runtime numbers it.
    public var instance: Int64
    /// Its name: `AccessJournalReader.name(of:)`.
    public var operation: AccessOperation
    /// False for a violation.
    public var allowed: Bool
}

/// A session: one process that opened the journal.
public struct AccessJournalSession: Sendable, Hashable {
    /// Where its session header starts in the file, in bytes.
    public var offset: Int
    /// The process that opened the journal.
    public var pid: UInt32
    /// When the process opened the journal, in nanoseconds since 1970 (UTC).
    public var startWallNanos: UInt64
}

/// A complete block, checksum verified.
public struct AccessJournalBlock: Sendable, Hashable {
    /// Where the block starts in the file, in bytes.
    public var offset: Int
    /// The bytes of the block on disk, header included.
    public var size: Int
    /// The process that wrote it.
    public var pid: UInt32
    /// The kernel thread id of the thread whose buffer it was: a block holds one
    /// thread's events.
    public var thread: UInt32
    /// How many accesses it holds.
    public var eventCount: Int
    /// How many of them were violations (`allowed` false).
    public var violationCount: Int
    /// The first event's time, ns since the session start.
    public var baseTime: UInt64
    /// When the block was written, ns since the session start.
    public var endTime: UInt64
    /// Ticks from the first event to `endTime`.
    public var tickSpan: UInt64

    /// Nanoseconds per tick of this block's clock.
    var nanosecondsPerTick: Double {
        tickSpan == 0 ? 0 : Double(endTime &- baseTime) / Double(tickSpan)
    }
    /// The thread's name when the block was written (`Thread.current.name`, or the
    /// pthread name), if it had one.
    public var threadName: String?
}

/// Something wrong in a journal that the reader stepped over.
public struct AccessJournalProblem: Sendable, Hashable, CustomStringConvertible {
    /// What was wrong; the raw value is the word reports use (`corrupt-block`).
    public enum Kind: String, Sendable {
        /// A block whose checksum or structure is wrong: its events are dropped.
        case corruptBlock = "corrupt-block"
        /// Bytes that are not a block or a session header: skipped to the next one.
        case garbage
        /// An unfinished block at the end: the writer stopped in the middle of it.
        case cutTail = "cut-tail"
    }

    /// What was wrong.
    public var kind: Kind
    /// Where the bytes stepped over start in the file.
    public var offset: Int
    /// How many bytes were stepped over.
    public var length: Int
    /// What the reader found there (a checksum mismatch, a length past the end...).
    public var detail: String

    public var description: String {
        switch kind {
        case .corruptBlock: "corrupt block at offset \(offset) (\(length) bytes): \(detail)"
        case .garbage: "unreadable bytes at offset \(offset) (\(length) bytes): \(detail)"
        case .cutTail: "the tail was cut at offset \(offset) (\(length) bytes of an unfinished block): \(detail)"
        }
    }
}

/// Reads a journal written by `AccessJournalWriter`: every complete block whose checksum
/// holds, whatever else is in the file. Damage is never misread: a block with a bad
/// checksum is dropped whole and listed in `problems`, and an unfinished block at the
/// end is reported as a cut tail.
public struct AccessJournalReader: Sendable {
    /// The journal file read.
    public let path: String
    /// Its contents, as read once when the reader was made.
    public let bytes: [UInt8]
    /// The processes that wrote to the journal, in file order.
    public private(set) var sessions: [AccessJournalSession] = []
    /// Every complete block whose checksum holds, in file order.
    public private(set) var blocks: [AccessJournalBlock] = []
    /// What the reader stepped over: corrupt blocks, garbage, a cut tail.
    public private(set) var problems: [AccessJournalProblem] = []
    /// Queue labels recorded with the events.
    public private(set) var queueLabels: [QueueIdentity: String] = [:]
    /// Operation names recorded with the events (format version 2 on).
    public private(set) var operationNames: [AccessOperation: String] = [:]
    private var operationCounts = [Int](repeating: 0, count: 32)
    private var recordBytes = 0
    private var minimumTime = UInt64.max
    private var maximumTime: UInt64 = 0

    /// Reads the file at `path`.
    public init(path: String) throws(AccessJournalError) {
        guard let bytes = WholeFile.read(path) else {
            throw AccessJournalError(code: .cannotAccess, path: path, message: String(cString: strerror(errno)))
        }
        try self.init(bytes: bytes, path: path)
    }

    /// Reads a journal held in memory.
    public init(bytes: [UInt8], path: String = "(memory)") throws(AccessJournalError) {
        self.path = path
        self.bytes = bytes
        guard bytes.count >= AccessJournalFormat.sessionMagic.count,
            Array(bytes[0..<AccessJournalFormat.sessionMagic.count]) == AccessJournalFormat.sessionMagic
        else {
            throw AccessJournalError(
                code: .notAJournal, path: path,
                message: bytes.isEmpty
                    ? "not a ctxdebug journal (the file is empty)"
                    : "not a ctxdebug journal (it does not start with \"CTXDJRNL\")")
        }
        if bytes.count >= 10 {
            let version = UInt16(bytes[8]) | UInt16(bytes[9]) << 8
            if version > AccessJournalFormat.version {
                throw AccessJournalError(
                    code: .unsupportedVersion, path: path,
                    message: "journal format version \(version) is newer than this reader (\(AccessJournalFormat.version))")
            }
        }
        scan()
    }

    // MARK: Scanning

    private enum Found { case session, block, nothing }

    private func what(at offset: Int) -> Found {
        if matches(AccessJournalFormat.sessionMagic, at: offset) { return .session }
        if matches(AccessJournalFormat.blockMagic, at: offset) { return .block }
        return .nothing
    }

    private func matches(_ magic: [UInt8], at offset: Int) -> Bool {
        guard offset + magic.count <= bytes.count else {
            // A prefix of a magic at the very end is a cut tail, not garbage.
            return false
        }
        for index in magic.indices where bytes[offset + index] != magic[index] { return false }
        return true
    }

    /// The next offset after `offset` where a session header or block starts, or nil.
    private func nextStart(after offset: Int) -> Int? {
        var position = offset + 1
        while position + 4 <= bytes.count {
            if bytes[position] == 0x43,
                matches(AccessJournalFormat.blockMagic, at: position) || matches(AccessJournalFormat.sessionMagic, at: position)
            {
                return position
            }
            position += 1
        }
        return nil
    }

    private mutating func scan() {
        var offset: Int? = 0
        while let at = offset, at < bytes.count {
            switch what(at: at) {
            case .session: offset = scanSession(at: at)
            case .block: offset = scanBlock(at: at)
            case .nothing: offset = scanUnknown(at: at)
            }
        }
    }

    /// Reads the session header at `offset`; returns where reading goes on, or nil
    /// at a cut tail.
    private mutating func scanSession(at offset: Int) -> Int? {
        let remaining = bytes.count - offset
        guard remaining >= AccessJournalFormat.sessionHeaderSize else {
            problems.append(AccessJournalProblem(
                kind: .cutTail, offset: offset, length: remaining, detail: "an unfinished session header"))
            return nil
        }
        guard let session = readSession(at: offset) else {
            return skipCorrupt(from: offset, length: AccessJournalFormat.sessionHeaderSize, detail: "session header checksum mismatch")
        }
        sessions.append(session)
        return offset + AccessJournalFormat.sessionHeaderSize
    }

    /// Reads the block at `offset`; returns where reading goes on, or nil at a cut tail.
    private mutating func scanBlock(at offset: Int) -> Int? {
        let remaining = bytes.count - offset
        guard remaining >= AccessJournalFormat.blockHeaderSize else {
            problems.append(AccessJournalProblem(
                kind: .cutTail, offset: offset, length: remaining, detail: "an unfinished block header"))
            return nil
        }
        let body = Int(bytes.load(UInt32.self, at: offset + 4))
        let size = AccessJournalFormat.blockHeaderSize + body
        if body > AccessJournalFormat.maximumBlockBody {
            return skipCorrupt(from: offset, length: nil, detail: "block length \(body) is not believable")
        }
        if size > remaining {
            guard let next = nextStart(after: offset) else {
                problems.append(AccessJournalProblem(
                    kind: .cutTail, offset: offset, length: remaining,
                    detail: "a block of \(size) bytes, \(remaining) of them written"))
                return nil
            }
            problems.append(AccessJournalProblem(
                kind: .corruptBlock, offset: offset, length: next - offset,
                detail: "block length \(body) runs past the end of the file"))
            return next
        }
        let stored = bytes.load(UInt32.self, at: offset + 8)
        let computed = bytes.withUnsafeBytes { raw in
            AccessJournalFormat.crc32c(UnsafeRawBufferPointer(rebasing: raw[(offset + 12)..<(offset + size)]))
        }
        if stored != computed {
            // The length is outside the checksum: damage to it can point anywhere, even
            // exactly at a later magic. So reading goes on at the first magic after this
            // one, never at the end the length claims; a block skipped over would be lost.
            let next = nextStart(after: offset) ?? bytes.count
            let detail = "checksum mismatch (stored \(hex32(stored)), computed \(hex32(computed)))"
            problems.append(AccessJournalProblem(
                kind: .corruptBlock, offset: offset, length: next - offset,
                detail: next == offset + size ? detail : detail + "; its length (\(body) bytes) is not where the next block starts"))
            return next
        }
        if let block = decodeBlock(at: offset, size: size) {
            blocks.append(block)
        } else {
            problems.append(AccessJournalProblem(
                kind: .corruptBlock, offset: offset, length: size,
                detail: "records do not decode (checksum held: written by a different format?)"))
        }
        return offset + size
    }

    /// Bytes that start neither a session nor a block: skips to the next start, or
    /// returns nil at the end.
    private mutating func scanUnknown(at offset: Int) -> Int? {
        let remaining = bytes.count - offset
        if let next = nextStart(after: offset) {
            problems.append(AccessJournalProblem(kind: .garbage, offset: offset, length: next - offset, detail: "not a block"))
            return next
        }
        if remaining < 8 && isMagicPrefix(at: offset) {
            problems.append(AccessJournalProblem(
                kind: .cutTail, offset: offset, length: remaining, detail: "an unfinished block header"))
        } else {
            problems.append(AccessJournalProblem(kind: .garbage, offset: offset, length: remaining, detail: "not a block"))
        }
        return nil
    }

    private func isMagicPrefix(at offset: Int) -> Bool {
        let tail = Array(bytes[offset...])
        return AccessJournalFormat.blockMagic.starts(with: tail) || AccessJournalFormat.sessionMagic.starts(with: tail)
    }

    /// Records a corrupt region starting at `offset` and returns where reading goes on:
    /// the next session header or block magic (or the end).
    private mutating func skipCorrupt(from offset: Int, length: Int?, detail: String) -> Int {
        let next = nextStart(after: offset) ?? bytes.count
        problems.append(AccessJournalProblem(kind: .corruptBlock, offset: offset, length: length ?? (next - offset), detail: detail))
        return next
    }

    private func readSession(at offset: Int) -> AccessJournalSession? {
        bytes.withUnsafeBytes { raw in
            let reader = ByteReader(bytes: raw, offset: 0)
            let crc = AccessJournalFormat.crc32c(UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + 24)]))
            guard crc == reader.load(UInt32.self, at: offset + 24) else { return nil }
            return AccessJournalSession(
                offset: offset, pid: reader.load(UInt32.self, at: offset + 12),
                startWallNanos: reader.load(UInt64.self, at: offset + 16))
        }
    }

    /// Decodes a block once to check its structure and gather stats.
    private mutating func decodeBlock(at offset: Int, size: Int) -> AccessJournalBlock? {
        var block = AccessJournalBlock(
            offset: offset, size: size, pid: 0, thread: 0, eventCount: 0, violationCount: 0, baseTime: 0,
            endTime: 0, tickSpan: 0)
        var labels: [QueueIdentity: String] = [:]
        var names: [AccessOperation: String] = [:]
        var operations = [Int](repeating: 0, count: 32)
        var first = UInt64.max
        var last: UInt64 = 0
        let decoded: Bool = bytes.withUnsafeBytes { raw in
            let header = ByteReader(bytes: raw, offset: 0)
            block.pid = header.load(UInt32.self, at: offset + 16)
            block.thread = header.load(UInt32.self, at: offset + 20)
            block.baseTime = header.load(UInt64.self, at: offset + 24)
            block.endTime = max(block.baseTime, header.load(UInt64.self, at: offset + 32))
            block.tickSpan = header.load(UInt64.self, at: offset + 40)
            let expected = Int(header.load(UInt32.self, at: offset + 12))
            let body = UnsafeRawBufferPointer(rebasing: raw[(offset + AccessJournalFormat.blockHeaderSize)..<(offset + size)])
            do {
                try Self.decodeRecords(
                    body, block: block,
                    control: { kind, queue, text in
                        if kind == AccessJournalFormat.threadNameRecord {
                            block.threadName = text
                        } else if kind == AccessJournalFormat.operationNameRecord {
                            names[AccessOperation(rawValue: UInt8(queue))] = text
                        } else {
                            labels[QueueIdentity(rawValue: queue)] = text
                        }
                    },
                    event: { event in
                        block.eventCount += 1
                        if !event.allowed { block.violationCount += 1 }
                        operations[Int(event.operation.rawValue & 31)] += 1
                        first = min(first, event.time)
                        last = max(last, event.time)
                    })
            } catch {
                return false
            }
            return block.eventCount == expected
        }
        guard decoded else { return nil }
        queueLabels.merge(labels) { $1 }
        operationNames.merge(names) { $1 }
        for index in operations.indices { operationCounts[index] += operations[index] }
        recordBytes += size - AccessJournalFormat.blockHeaderSize
        if block.eventCount > 0 {
            minimumTime = min(minimumTime, first)
            maximumTime = max(maximumTime, last)
        }
        return block
    }

    /// Decodes the records of one block body.
    static func decodeRecords(
        _ body: UnsafeRawBufferPointer, block: AccessJournalBlock,
        control: (UInt8, UInt, String) -> Void, event: (AccessJournalEvent) -> Void
    ) throws(ByteReader.Malformed) {
        var reader = ByteReader(bytes: body, offset: 0)
        let scale = block.nanosecondsPerTick
        var ticks: UInt64 = 0
        var current = AccessJournalEvent(
            time: block.baseTime, pid: block.pid, thread: block.thread, current: .none, owner: .none, context: 0,
            subject: 0, member: .max, instance: 0, operation: .get, allowed: true)
        while !reader.isAtEnd {
            let head = try reader.byte()
            let second = try reader.byte()
            if head == 0 {
                switch second {
                case AccessJournalFormat.threadNameRecord:
                    control(second, 0, try reader.string())
                case AccessJournalFormat.queueLabelRecord:
                    let queue = UInt(try reader.varint())
                    control(second, queue, try reader.string())
                case AccessJournalFormat.operationNameRecord:
                    let operation = try reader.byte()
                    guard AccessOperation.validRawValues.contains(operation) else { throw ByteReader.Malformed() }
                    control(second, UInt(operation), try reader.string())
                default:
                    throw ByteReader.Malformed()
                }
                continue
            }
            guard head & AccessJournalFormat.reservedBits0 == 0, second & AccessJournalFormat.reservedBits1 == 0,
                head & AccessJournalFormat.operationMask != 0
            else { throw ByteReader.Malformed() }
            current.operation = AccessOperation(rawValue: head & AccessJournalFormat.operationMask)
            current.allowed = head & AccessJournalFormat.allowedBit != 0
            ticks &+= try reader.varint()
            let nanoseconds = Double(ticks) * scale
            current.time = block.baseTime &+ (nanoseconds < 1.8e19 ? UInt64(nanoseconds) : 0)
            if second & AccessJournalFormat.ownerChanged != 0 { current.owner = QueueIdentity(rawValue: UInt(try reader.varint())) }
            if second & AccessJournalFormat.currentChanged != 0 {
                current.current = QueueIdentity(rawValue: UInt(try reader.varint()))
            }
            if second & AccessJournalFormat.contextChanged != 0 {
                guard let value = UInt32(exactly: try reader.varint()) else { throw ByteReader.Malformed() }
                current.context = value
            }
            if second & AccessJournalFormat.subjectChanged != 0 {
                guard let value = UInt16(exactly: try reader.varint()) else { throw ByteReader.Malformed() }
                current.subject = value
            }
            if second & AccessJournalFormat.memberChanged != 0 {
                guard let value = UInt16(exactly: try reader.varint()) else { throw ByteReader.Malformed() }
                current.member = value &- 1
            }
            if second & AccessJournalFormat.instanceChanged != 0 {
                current.instance &+= AccessJournalFormat.unzigzag(try reader.varint())
            }
            event(current)
        }
    }

    // MARK: Reading

    /// Calls `body` with every event of every good block, in file order (each block
    /// holds one thread's events in time order; blocks of different threads interleave
    /// in the order they were written).
    public func forEachEvent<E: Error>(_ body: (AccessJournalEvent) throws(E) -> Void) throws(E) {
        var failure: E?
        bytes.withUnsafeBytes { raw in
            for block in blocks {
                let bodyBytes = UnsafeRawBufferPointer(
                    rebasing: raw[(block.offset + AccessJournalFormat.blockHeaderSize)..<(block.offset + block.size)])
                var stop = false
                try? Self.decodeRecords(
                    bodyBytes, block: block, control: { _, _, _ in },
                    event: { event in
                        if stop { return }
                        do throws(E) { try body(event) } catch {
                            failure = error
                            stop = true
                        }
                    })
                if stop { return }
            }
        }
        if let failure { throw failure }
    }

    /// Every event of every good block, in file order.
    public var events: [AccessJournalEvent] {
        var all: [AccessJournalEvent] = []
        all.reserveCapacity(blocks.reduce(0) { $0 + $1.eventCount })
        forEachEvent { all.append($0) }
        return all
    }

    /// The events that were violations (not allowed).
    public func violations() -> [AccessJournalEvent] {
        var found: [AccessJournalEvent] = []
        forEachEvent { event in if !event.allowed { found.append(event) } }
        return found
    }

    /// Thread names recorded with the blocks, by (pid, thread).
    public var threadNames: [UInt64: String] {
        var names: [UInt64: String] = [:]
        for block in blocks { if let name = block.threadName { names[UInt64(block.pid) << 32 | UInt64(block.thread)] = name } }
        return names
    }

    /// What `operation` is called: the name the writing process stored in the journal,
    /// or else (a version-1 journal, or a number its writer left unnamed) the name
    /// registered in this process (`AccessOperation.register(_:as:)`), or "op N".
    public func name(of operation: AccessOperation) -> String {
        operationNames[operation] ?? operation.description
    }

    /// True when there is nothing wrong but, at most, a cut tail (normal after a crash).
    public var isIntact: Bool { problems.allSatisfy { $0.kind == .cutTail } }

    /// The cut tail, if the writer stopped in the middle of a block.
    public var cutTail: AccessJournalProblem? { problems.first { $0.kind == .cutTail } }

    /// The journal in numbers: events, violations, threads, sessions, operations by
    /// name, and the bytes stepped over (what `ctxdebug journal` prints first).
    public var stats: AccessJournalStats {
        let events = blocks.reduce(0) { $0 + $1.eventCount }
        var threads = Set<UInt64>()
        for block in blocks { threads.insert(UInt64(block.pid) << 32 | UInt64(block.thread)) }
        var operations: [String: Int] = [:]
        for (raw, count) in operationCounts.enumerated() where count > 0 {
            operations[name(of: AccessOperation(rawValue: UInt8(raw))), default: 0] += count
        }
        return AccessJournalStats(
            fileBytes: bytes.count, sessions: sessions.count, blocks: blocks.count, events: events,
            violations: blocks.reduce(0) { $0 + $1.violationCount }, threads: threads.count,
            queues: Set(queueLabels.keys).count,
            corruptBlocks: problems.filter { $0.kind == .corruptBlock }.count,
            garbageBytes: problems.filter { $0.kind == .garbage }.reduce(0) { $0 + $1.length },
            cutTailBytes: problems.filter { $0.kind == .cutTail }.reduce(0) { $0 + $1.length },
            recordBytesPerEvent: events == 0 ? 0 : Double(recordBytes) / Double(events),
            fileBytesPerEvent: events == 0 ? 0 : Double(bytes.count) / Double(events),
            operations: operations,
            duration: maximumTime >= minimumTime ? maximumTime - minimumTime : 0)
    }
}

extension [UInt8] {
    func load<T: FixedWidthInteger>(_: T.Type, at position: Int) -> T {
        var value: T = 0
        for index in 0..<MemoryLayout<T>.size { value |= T(truncatingIfNeeded: self[position + index]) << (8 * index) }
        return value
    }
}

private func hex32(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
}
