/// Which properties of an object changed: one bit per attribute (or per to-one
/// relationship) index, for any number of them. The first 64 live inline, so the
/// common entity costs no allocation; wider entities spill into an array.
struct ChangeMask: Hashable, Sendable {
    private var low: UInt64 = 0
    private var high: [UInt64] = []

    init() {}

    /// Every index in `0..<count`.
    static func all(_ count: Int) -> ChangeMask {
        var mask = ChangeMask()
        for i in 0..<count { mask.insert(i) }
        return mask
    }

    var isEmpty: Bool { low == 0 && high.allSatisfy { $0 == 0 } }

    func contains(_ index: Int) -> Bool {
        if index < 64 { return low & (1 << UInt64(index)) != 0 }
        let word = index / 64 - 1
        return word < high.count && high[word] & (1 << UInt64(index % 64)) != 0
    }

    mutating func insert(_ index: Int) {
        if index < 64 {
            low |= 1 << UInt64(index)
            return
        }
        let word = index / 64 - 1
        if word >= high.count { high.append(contentsOf: repeatElement(0, count: word - high.count + 1)) }
        high[word] |= 1 << UInt64(index % 64)
    }

    mutating func formUnion(_ other: ChangeMask) {
        low |= other.low
        if other.high.count > high.count { high.append(contentsOf: repeatElement(0, count: other.high.count - high.count)) }
        for (i, word) in other.high.enumerated() { high[i] |= word }
    }

    static func == (a: ChangeMask, b: ChangeMask) -> Bool {
        guard a.low == b.low else { return false }
        let n = max(a.high.count, b.high.count)
        for i in 0..<n where (i < a.high.count ? a.high[i] : 0) != (i < b.high.count ? b.high[i] : 0) { return false }
        return true
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(low)
        var words = high
        while words.last == 0 { words.removeLast() }
        hasher.combine(words)
    }
}
