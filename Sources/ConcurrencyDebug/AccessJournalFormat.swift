import CConcurrencyDebug

/// The journal's on-disk format; `docs/journal-format.md` describes it byte by byte.
///
/// (`@_spi(CtxdebugTools)`: for the journal fuzz target, not API.)
///
/// A file is a sequence of session headers (one per process that opened it) and
/// blocks. All integers are little-endian. Each block carries a CRC-32C of its body;
/// a reader keeps every block whose checksum holds and reports the rest.
@_spi(CtxdebugTools) public enum AccessJournalFormat {
    /// "CTXDJRNL": the first 8 bytes of a session header.
    static let sessionMagic: [UInt8] = Array("CTXDJRNL".utf8)
    /// 2 added the operation-name record; a version-1 file has none, and its operations
    /// are named by the reading process's registrations.
    static let version: UInt16 = 2
    static let sessionHeaderSize = 32

    /// "CBLK" as bytes on disk (0x4B4C4243 read as a little-endian UInt32).
    static let blockMagic: [UInt8] = Array("CBLK".utf8)
    static let blockHeaderSize = 48
    /// Blocks larger than this are not believed (a corrupt length).
    static let maximumBlockBody = 1 << 22

    // Record byte 0.
    static let operationMask: UInt8 = 0x1F
    static let allowedBit: UInt8 = 0x20
    static let reservedBits0: UInt8 = 0xC0

    // Record byte 1 (events): which fields follow because they changed.
    static let ownerChanged: UInt8 = 0x01
    static let currentChanged: UInt8 = 0x02
    static let contextChanged: UInt8 = 0x04
    static let subjectChanged: UInt8 = 0x08
    static let memberChanged: UInt8 = 0x10
    static let instanceChanged: UInt8 = 0x20
    static let reservedBits1: UInt8 = 0xC0

    // Control records (byte 0 is 0): byte 1 says which.
    static let threadNameRecord: UInt8 = 1
    static let queueLabelRecord: UInt8 = 2
    /// Version 2: an operation's number and name.
    static let operationNameRecord: UInt8 = 3
    /// Longest name or label stored.
    static let maximumNameLength = 200

    @_spi(CtxdebugTools) public static func crc32c(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        ctxdebug_crc32c(crc, bytes.baseAddress, bytes.count)
    }

    /// An event's time, ns since the session start, as every reader computes it from
    /// its block's header: base time + ticks since the base × (end − base) / tick span.
    @inline(__always)
    static func eventTime(ticksSinceBase ticks: UInt64, baseTime: UInt64, endTime: UInt64, tickSpan: UInt64) -> UInt64 {
        let scale = tickSpan == 0 ? 0 : Double(endTime &- baseTime) / Double(tickSpan)
        let nanoseconds = Double(ticks) * scale
        return baseTime &+ (nanoseconds < 1.8e19 ? UInt64(nanoseconds) : 0)
    }

    @inline(__always)
    static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    @inline(__always)
    static func unzigzag(_ value: UInt64) -> Int64 {
        Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }
}

/// Appends to raw memory; the caller makes sure there is room.
struct ByteWriter {
    var base: UnsafeMutablePointer<UInt8>
    var offset: Int

    @inline(__always)
    mutating func byte(_ value: UInt8) {
        base[offset] = value
        offset += 1
    }

    @inline(__always)
    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            base[offset] = UInt8(truncatingIfNeeded: value) | 0x80
            offset += 1
            value >>= 7
        }
        base[offset] = UInt8(truncatingIfNeeded: value)
        offset += 1
    }

    @inline(__always)
    mutating func varint(_ value: UInt) { varint(UInt64(value)) }

    mutating func bytes(_ text: String, limit: Int) {
        var text = text
        text.withUTF8 { utf8 in
            let count = min(utf8.count, limit)
            varint(UInt64(count))
            for index in 0..<count { byte(utf8[index]) }
        }
    }

    @inline(__always)
    func store<T: FixedWidthInteger>(_ value: T, at position: Int) {
        withUnsafeBytes(of: value.littleEndian) { bytes in
            for index in 0..<bytes.count { base[position + index] = bytes[index] }
        }
    }
}

/// Reads from raw memory, with bounds checks: a malformed record is an error, never
/// a read past the end.
struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    var offset: Int

    struct Malformed: Error {}

    var isAtEnd: Bool { offset >= bytes.count }

    @inline(__always)
    mutating func byte() throws(Malformed) -> UInt8 {
        guard offset < bytes.count else { throw Malformed() }
        let value = bytes[offset]
        offset += 1
        return value
    }

    @inline(__always)
    mutating func varint() throws(Malformed) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < bytes.count, shift < 64 else { throw Malformed() }
            let byte = bytes[offset]
            offset += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    mutating func string() throws(Malformed) -> String {
        let count = Int(try varint())
        guard count <= AccessJournalFormat.maximumNameLength, offset + count <= bytes.count else { throw Malformed() }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)]), as: UTF8.self)
        offset += count
        return text
    }

    func load<T: FixedWidthInteger>(_: T.Type, at position: Int) -> T {
        var value: T = 0
        withUnsafeMutableBytes(of: &value) { target in
            for index in 0..<target.count { target[index] = bytes[position + index] }
        }
        return T(littleEndian: value)
    }
}
