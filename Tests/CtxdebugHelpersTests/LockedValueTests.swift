import Foundation
import Testing
import CtxdebugHelpers

/// `LockedValue` is the one lock of the runtime and the replay: it tells
/// ThreadSanitizer about each acquire and release, which a bare `Mutex` (futex
/// waits in the prebuilt Synchronization library) does not. A bare `Mutex` in the
/// replay's monitor gave ThreadSanitizer reports on a correct replay
/// (`ctxdebug bench` item 3's control), and would give them to any app run under
/// ThreadSanitizer with ctxdebug linked.
@Suite struct LockedValueTests {
    @Test func itSerializesItsValue() async {
        let counter = LockedValue(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<1_000 { counter.withLock { $0 += 1 } } }
            }
        }
        #expect(counter.withLock { $0 } == 8_000)
    }

    /// Every lock in Sources is a `LockedValue`, except in CoreDataLint (which links none of
    /// the runtime and runs no app code).
    @Test func noSourceUsesABareMutex() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var bare: [String] = []
        var scanned = 0
        for case let url as URL in files where url.pathExtension == "swift" {
            let path = url.path
            if path.hasSuffix("/LockedValue.swift") || path.contains("/CoreDataLint/") { continue }
            scanned += 1
            let text = try String(contentsOf: url, encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains("Mutex<") || line.contains("Mutex(") {
                bare.append("\(url.lastPathComponent):\(n + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(scanned > 50, "found the package's sources")
        #expect(bare.isEmpty, "use LockedValue, which ThreadSanitizer sees: \(bare)")
    }
}
