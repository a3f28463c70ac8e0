import Foundation
import Testing
import TestSupport

/// Helpers for the reliability tests (docs/reliability.md), over `CLI`: the built binary
/// with a time limit, the sqlite3 CLI as an independent reader of stores, tmpfs mounts
/// and seeds.
enum Reliability {
    /// Runs the built `ctxdebug` (killed after 300 s).
    static func ctxdebug(
        _ arguments: String..., environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> CommandRun {
        try CLI.ctxdebug(arguments, environment: environment, timeout: 300, sourceLocation: sourceLocation)
    }

    /// Runs the sqlite3 CLI on `store`; nil (with the reason recorded) when it fails.
    static func sqlite(_ store: String, _ sql: String) throws -> CommandRun {
        let sqlite3 = try #require(CLI.which("sqlite3"), "install sqlite3 (Scripts/bootstrap)")
        return try CLI.run(sqlite3, ["-bail", "-batch", "-separator", " ", store, sql], timeout: 300)
    }

    static func remove(_ url: URL) { try? FileManager.default.removeItem(at: url) }

    /// The bytes of a file, or nil when it does not exist.
    static func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    /// The seed for a randomized test: `RELIABILITY_SEED` if set, else the clock.
    static func seed() -> UInt64 {
        if let s = ProcessInfo.processInfo.environment["RELIABILITY_SEED"], let v = UInt64(s) { return v }
        return UInt64(Date().timeIntervalSince1970 * 1000)
    }

    /// Runs `body` with a directory mounted as a tmpfs of `size` (e.g. "256k"), remounted
    /// read-only first when `readOnly`. Returns nil, with the reason, when this process
    /// cannot mount (not root, no CAP_SYS_ADMIN, in a container without it).
    static func withTmpfs<T>(size: String, readOnly: Bool = false, prepare: (URL) throws -> Void = { _ in }, _ body: (URL) throws -> T) throws -> (T?, skipped: String?) {
        let dir = try temporaryDirectory(readOnly ? "reliability-ro-mount" : "reliability-tmpfs")
        defer { remove(dir) }
        guard let mount = CLI.which("mount"), let umount = CLI.which("umount") else { return (nil, "no mount(8) on PATH") }
        let m = try CLI.run(mount, ["-t", "tmpfs", "-o", "size=\(size),mode=0755", "tmpfs", dir.path])
        guard m.status == 0, !m.signaled else { return (nil, "cannot mount a tmpfs here: \(m.stderr.trimmingCharacters(in: .whitespacesAndNewlines))") }
        defer { _ = try? CLI.run(umount, ["-l", dir.path]) }
        try prepare(dir)
        if readOnly {
            let r = try CLI.run(mount, ["-o", "remount,ro", dir.path])
            guard r.status == 0 else { return (nil, "cannot remount the tmpfs read-only: \(r.stderr)") }
        }
        return (try body(dir), nil)
    }
}
