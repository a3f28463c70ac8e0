public import Foundation

/// A fresh path under the temporary directory (`TMPDIR`, else /tmp), named after `name`,
/// this process and a random part; nothing is created.
public func temporaryPath(_ name: String) -> String {
    let environment = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 }
    let directory = environment ?? "/tmp"
    return "\(directory)/ctxdebug-tests-\(getpid())-\(UUID().uuidString.prefix(8))-\(name)"
}

/// A fresh, empty directory under the temporary directory, named after `name`.
public func temporaryDirectory(_ name: String) throws -> URL {
    let url = URL(fileURLWithPath: temporaryPath(name))
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A fresh directory that is removed when the value is dropped.
public final class TempDirectory: Sendable {
    public let url: URL

    public init(_ name: String = "dir") {
        url = URL(fileURLWithPath: temporaryPath(name))
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Sends this process's stderr (fd 2) to a file: for output written at exit, which an
/// exit test's `standardErrorContent` does not capture.
public func redirectStandardError(to path: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    precondition(fd >= 0, "cannot open \(path)")
    dup2(fd, 2)
    close(fd)
}
