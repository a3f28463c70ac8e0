import Foundation

/// Finding a short ASCII needle in source text, on its UTF-8 bytes. The generic
/// `firstRange(of:)` of the standard library is far slower on large files, and the
/// linter asks this of every file.
enum TextSearch {
    /// The UTF-8 offset of the first `needle` in `text`, or nil.
    static func firstOffset(of needle: String, in text: Substring) -> Int? {
        Array(needle.utf8).withUnsafeBufferPointer { needle in
            if let found = text.utf8.withContiguousStorageIfAvailable({ firstOffset(of: needle, in: $0) }) { return found }
            return Array(text.utf8).withUnsafeBufferPointer { firstOffset(of: needle, in: $0) }
        }
    }

    /// The offset of the first `needle` in `bytes`, or nil (0 for an empty needle).
    private static func firstOffset(of needle: UnsafeBufferPointer<UInt8>, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let first = needle.first else { return 0 }
        guard bytes.count >= needle.count else { return nil }
        var index = 0
        while index <= bytes.count - needle.count {
            if bytes[index] == first, needle.indices.allSatisfy({ bytes[index + $0] == needle[$0] }) { return index }
            index += 1
        }
        return nil
    }

    static func contains(_ needle: String, in text: Substring) -> Bool {
        firstOffset(of: needle, in: text) != nil
    }

    static func contains(_ needle: String, in text: String) -> Bool {
        contains(needle, in: text[...])
    }

    /// `text.contains(needle)` as Foundation answers it, for an ASCII `needle`: on the
    /// bytes when `text` is ASCII (nearly every name and message), where Foundation's
    /// search (canonical equivalence, which no ASCII character has) finds exactly the
    /// byte matches, at a few instructions a byte instead of thousands a call; by
    /// Foundation otherwise (and for an empty needle).
    static func foundationContains(_ needle: StaticString, in text: String) -> Bool {
        let letters = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        let answer = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
            guard !letters.isEmpty, bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            return firstOffset(of: letters, in: bytes) != nil
        }
        if let answer, let answer { return answer }
        return text.contains(needle.description)
    }

    /// The text after the first `needle` in `text`, or nil.
    static func text(after needle: String, in text: Substring) -> Substring? {
        guard let offset = firstOffset(of: needle, in: text) else { return nil }
        return Substring(text.utf8.dropFirst(offset + needle.utf8.count))
    }
}
