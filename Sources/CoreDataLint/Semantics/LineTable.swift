/// Line numbers from UTF-8 offsets, without a `SourceLocationConverter`.
struct LineTable {
    private var newlines: [Int32] = []

    /// How many lines end in a newline.
    var newlineCount: Int { newlines.count }

    init(_ text: String) {
        // On the contiguous UTF-8 bytes (a native string's): walking `text.utf8` with its
        // iterator cost about 30 instructions a byte, 1.3% of a lint run.
        let found = text.utf8.withContiguousStorageIfAvailable { bytes -> [Int32] in
            var newlines: [Int32] = []
            newlines.reserveCapacity(bytes.count / 32)
            for offset in bytes.indices where bytes[offset] == UInt8(ascii: "\n") { newlines.append(Int32(offset)) }
            return newlines
        }
        if let found {
            newlines = found
            return
        }
        var offset: Int32 = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "\n") { newlines.append(offset) }
            offset += 1
        }
    }

    /// The UTF-8 offset where 1-based `line` starts.
    func start(ofLine line: Int) -> Int {
        line <= 1 ? 0 : Int(newlines[line - 2]) + 1
    }

    /// The 1-based line of a UTF-8 offset.
    func line(of offset: Int) -> Int {
        var low = 0, high = newlines.count
        while low < high {
            let middle = (low + high) / 2
            if Int(newlines[middle]) < offset { low = middle + 1 } else { high = middle }
        }
        return low + 1
    }
}
