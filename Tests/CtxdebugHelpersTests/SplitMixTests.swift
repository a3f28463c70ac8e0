import CtxdebugHelpers
import Testing

@Suite struct SplitMixTests {
    /// The first outputs of the reference splitmix64.c (Vigna) from x = 1234567: the
    /// seeded stores and every seeded test depend on these exact values.
    @Test func itMatchesTheReferenceSequence() {
        var generator = SplitMix(seed: 1_234_567)
        #expect([generator.next(), generator.next(), generator.next()]
            == [6_457_827_717_110_365_317, 3_203_168_211_198_807_973, 9_817_491_932_198_370_423])
    }

    @Test func theSameSeedGivesTheSameValues() {
        var a = SplitMix(seed: 42), b = SplitMix(state: 42)
        #expect((0..<100).map { _ in Int.random(in: 0..<1000, using: &a) } == (0..<100).map { _ in Int.random(in: 0..<1000, using: &b) })
    }
}
