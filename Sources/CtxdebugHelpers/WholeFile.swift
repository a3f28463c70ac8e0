package import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Files written whole or not at all: under a hidden temporary name in the same
/// directory, then renamed over the destination, so a reader (or a crash) never sees
/// half a file and an existing file is replaced whole or left as it was. For this
/// package's modules (`package`). (Reading a file whole: WholeFile+Read.swift.)
package enum WholeFile {
    /// The rename at the end failed; the destination is as it was.
    package struct MoveError: Error, CustomStringConvertible {
        package let path: String
        package let reason: String
        package var description: String { "cannot move the file into place at \(path): \(reason)" }
    }

    /// The hidden temporary path beside `path` that `write(to:)` uses.
    package static func temporaryPath(for path: String, suffix: String = ".partial-\(getpid())") -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().appendingPathComponent("." + url.lastPathComponent + suffix).path
    }

    /// Runs `write` on a temporary path beside `path`, then renames it over `path`.
    /// On any failure the temporary file is removed: `write`'s own error is rethrown,
    /// a failed rename throws `MoveError`.
    package static func write(to path: String, suffix: String = ".partial-\(getpid())", _ write: (String) throws -> Void) throws {
        let temporary = temporaryPath(for: path, suffix: suffix)
        do {
            try write(temporary)
        } catch {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw MoveError(path: path, reason: reason)
        }
    }

    /// Writes `data` to `path` whole.
    package static func write(_ data: Data, to path: String) throws {
        try write(to: path) { try data.write(to: URL(fileURLWithPath: $0)) }
    }
}
