import Foundation

/// The two lines a child of `ctxdebug explore` writes and reads at every scheduling
/// point, without `JSONEncoder` and `JSONDecoder`: a decision, and its answer
/// `{"run":N}`. They cost tens of microseconds a point through Foundation's coders, on
/// the explored program's hot path (docs/benchmarks.md, "the control's cost"). The bytes
/// are the encoder's own (keys sorted, slashes unescaped: `ExploreMessage.line`); any
/// string this writer would have to escape, and any other answer, goes through the coders.
enum DecisionLine {
    /// The decision's line, '\n' included; nil when a string needs escaping.
    static func encode(_ decision: SchedulingDecision) -> Data? { bytes(decision).map { Data($0) } }

    /// The decision's line as bytes, '\n' included; nil when a string needs escaping.
    static func bytes(_ decision: SchedulingDecision) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128 + 24 * decision.enabled.count + 48 * decision.candidates.count)
        // Keys in sorted order: actor, candidates, context, defaultIndex, enabled, point, step.
        append(#"{"actor":"#, to: &bytes)
        guard string(decision.actor, to: &bytes) else { return nil }
        append(#","candidates":["#, to: &bytes)
        for (index, candidate) in decision.candidates.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "{"))
            if let context = candidate.context {
                append(#""context":"#, to: &bytes)
                guard string(context, to: &bytes) else { return nil }
                bytes.append(UInt8(ascii: ","))
            }
            append(#""point":"#, to: &bytes)
            guard string(candidate.point.rawValue, to: &bytes) else { return nil }
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(UInt8(ascii: "]"))
        if let context = decision.context {
            append(#","context":"#, to: &bytes)
            guard string(context, to: &bytes) else { return nil }
        }
        append(#","defaultIndex":"#, to: &bytes)
        decimal(decision.defaultIndex, to: &bytes)
        append(#","enabled":["#, to: &bytes)
        for (index, key) in decision.enabled.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            guard string(key, to: &bytes) else { return nil }
        }
        append(#"],"point":"#, to: &bytes)
        guard string(decision.point.rawValue, to: &bytes) else { return nil }
        append(#","step":"#, to: &bytes)
        decimal(decision.step, to: &bytes)
        append("}\n", to: &bytes)
        return bytes
    }

    /// N of an answer that is exactly `{"run":N}` (N a decimal, no sign), else nil.
    static func decodeRun(_ line: Data) -> Int? { line.withUnsafeBytes(decodeRun) }

    /// `decodeRun` of a line's bytes.
    static func decodeRun(_ raw: UnsafeRawBufferPointer) -> Int? {
        let prefix: StaticString = #"{"run":"#
        let head = UnsafeRawBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        let count = raw.count
        guard count > head.count + 1, count <= head.count + 10, raw[count - 1] == UInt8(ascii: "}"),
            raw.prefix(head.count).elementsEqual(head)
        else { return nil }
        let digits = raw[head.count..<(count - 1)]
        if digits.count > 1 && digits.first == UInt8(ascii: "0") { return nil }  // not JSON: the decoder says so
        var value = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// The line's fixed parts, copied as one block (appending a `String`'s UTF-8 view goes
    /// a byte at a time).
    private static func append(_ text: StaticString, to bytes: inout [UInt8]) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// A non-negative integer's decimal digits (a negative one, which no step or index
    /// is, as `String` writes it).
    private static func decimal(_ value: Int, to bytes: inout [UInt8]) {
        guard value >= 0 else { return bytes.append(contentsOf: String(value).utf8) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for Int.max's 19 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            var rest = value
            var index = buffer.count
            repeat {
                index -= 1
                buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[index...]))
        }
    }

    /// A JSON string, when nothing in it needs escaping (printable ASCII, no quote or
    /// backslash); false otherwise.
    private static func string(_ text: String, to bytes: inout [UInt8]) -> Bool {
        var text = text
        return text.withUTF8 { utf8 in
            for byte in utf8 {
                guard byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") else { return false }
            }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            return true
        }
    }
}
