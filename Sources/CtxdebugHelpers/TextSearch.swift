import Foundation

/// Finding a short ASCII needle in source text, on its UTF-8 bytes. Foundation's
/// `contains(_:)` and `range(of:)` on Linux convert both strings to UTF-16 and compare
/// with canonical equivalence (thousands of instructions a call), and the standard
/// library's generic `firstRange(of:)` is slow on large files; the linter and the port
/// ask this of every file, often with a dozen needles.
package enum TextSearch {
    /// The UTF-8 offset of the first `needle` in `text`, or nil (0 for an empty needle).
    package static func firstOffset(of needle: String, in text: Substring) -> Int? {
        var needle = needle
        return needle.withUTF8 { needle in
            if let found = text.utf8.withContiguousStorageIfAvailable({ firstOffset(of: needle, in: $0) }) { return found }
            return Array(text.utf8).withUnsafeBufferPointer { firstOffset(of: needle, in: $0) }
        }
    }

    /// The offset of the first `needle` in `bytes`, or nil (0 for an empty needle): its
    /// first byte found by `memchr`, the rest compared by `memcmp`.
    package static func firstOffset(of needle: UnsafeBufferPointer<UInt8>, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let first = needle.first else { return 0 }
        guard let base = bytes.baseAddress, let letters = needle.baseAddress, bytes.count >= needle.count else { return nil }
        let last = bytes.count - needle.count
        var index = 0
        while index <= last {
            guard let hit = memchr(base + index, Int32(first), last - index + 1) else { return nil }
            index = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            if memcmp(base + index, letters, needle.count) == 0 { return index }
            index += 1
        }
        return nil
    }

    package static func contains(_ needle: String, in text: Substring) -> Bool {
        firstOffset(of: needle, in: text) != nil
    }

    package static func contains(_ needle: String, in text: String) -> Bool {
        contains(needle, in: text[...])
    }

    /// Whether any of `needles` occurs in `text`, byte for byte. As a filter before
    /// parsing it may say yes where Foundation's `contains` says no (a match inside a
    /// decomposed character), never the other way for ASCII needles.
    package static func containsAny(_ needles: [String], in text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            needles.contains { needle in
                var needle = needle
                return needle.withUTF8 { firstOffset(of: $0, in: bytes) != nil }
            }
        }
    }

    /// `text.contains(needle)` as Foundation answers it, for an ASCII `needle`: on the
    /// bytes when `text` is ASCII (nearly every name and message), where Foundation's
    /// search (canonical equivalence, which no ASCII character has) finds exactly the
    /// byte matches, at a few instructions a byte instead of thousands a call; by
    /// Foundation otherwise (and for an empty needle).
    package static func foundationContains(_ needle: StaticString, in text: String) -> Bool {
        let letters = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        let answer = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
            guard !letters.isEmpty, bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            return firstOffset(of: letters, in: bytes) != nil
        }
        if let answer, let answer { return answer }
        return text.contains(needle.description)
    }

    /// The text after the first `needle` in `text`, or nil.
    package static func text(after needle: String, in text: Substring) -> Substring? {
        guard let offset = firstOffset(of: needle, in: text) else { return nil }
        return Substring(text.utf8.dropFirst(offset + needle.utf8.count))
    }
}
