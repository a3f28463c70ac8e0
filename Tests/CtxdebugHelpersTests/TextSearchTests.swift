import CtxdebugHelpers
import Foundation
import Testing

@Suite struct TextSearchTests {
    /// The byte offset of the first `needle` in `text`, found the slow, obvious way.
    private static func reference(_ needle: String, _ text: Substring) -> Int? {
        let bytes = Array(text.utf8), letters = Array(needle.utf8)
        guard !letters.isEmpty else { return 0 }
        guard bytes.count >= letters.count else { return nil }
        return (0...(bytes.count - letters.count)).first { Array(bytes[$0..<($0 + letters.count)]) == letters }
    }

    /// Texts and needles of a three-letter alphabet, so that first bytes repeat and
    /// partial matches (at the end too) are common: the memchr scan agrees with the
    /// obvious search on every one.
    @Test func itFindsWhatTheObviousSearchFinds() {
        var random = SplitMix(seed: 7)
        let letters: [Character] = ["a", "b", "é"]
        for _ in 0..<2_000 {
            let text = String((0..<Int.random(in: 0...24, using: &random)).map { _ in letters.randomElement(using: &random)! })
            let needle = String((0..<Int.random(in: 0...4, using: &random)).map { _ in letters.randomElement(using: &random)! })
            let start = text.index(text.startIndex, offsetBy: Int.random(in: 0...text.count, using: &random))
            let slice = text[start...]
            #expect(TextSearch.firstOffset(of: needle, in: slice) == Self.reference(needle, slice), "\(needle) in \(slice)")
            #expect(TextSearch.containsAny(["zz", needle], in: text) == (Self.reference(needle, text[...]) != nil))
        }
    }

    @Test func edges() {
        #expect(TextSearch.firstOffset(of: "", in: "abc") == 0)
        #expect(TextSearch.firstOffset(of: "abc", in: "ab") == nil)
        #expect(TextSearch.firstOffset(of: "c", in: "abc") == 2)
        #expect(TextSearch.firstOffset(of: "bc", in: "abcb") == 1)
        #expect(!TextSearch.containsAny([], in: "abc"))
        #expect(TextSearch.text(after: "= ", in: "let x = 1") == "1")
    }

    /// A bridged string has no contiguous UTF-8: it is searched through a copy.
    @Test func aStringWithoutContiguousStorage() {
        let bridged = String(NSString(string: "managedObjectContext.perform"))
        #expect(TextSearch.contains("perform", in: bridged))
        #expect(!TextSearch.contains("performAndWait", in: bridged))
    }
}
