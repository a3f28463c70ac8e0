/// SplitMix64 (Steele, Lea and Flood, 2014): a small deterministic generator, so that
/// the same seed gives the same values on every machine: SurfJournal's seeded entries,
/// and a randomized test or fuzz pass that repeats exactly from its seed. Public so
/// that TestSupport re-exports it to the tests, fuzz targets and benchmarks.
public struct SplitMix: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }
    public init(state: UInt64) { self.state = state }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
