#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files read whole, with plain `read(2)`: no Foundation, since the checker reads at
/// exit and just before a trap.
extension WholeFile {
    /// The file at `path` as text (UTF-8, invalid bytes repaired), or nil when it
    /// cannot be read (`errno` says why).
    package static func readText(_ path: String) -> String? {
        guard let bytes = read(path) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The bytes of the file at `path`, or nil when it cannot be read (`errno` says
    /// why; a directory is `EISDIR`).
    package static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        // open(2) succeeds on a directory and read(2) then fails with EISDIR, which
        // readAll takes for the end: say so instead of reading it as an empty file.
        var status = stat()
        if fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            errno = EISDIR
            return nil
        }
        return readAll(fd)
    }

    /// Reads `fd` (a file or a pipe) to its end.
    package static func readAll(_ fd: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var status = stat()
        if fstat(fd, &status) == 0, status.st_size > 0 { bytes.reserveCapacity(Int(status.st_size) + 1) }
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }
}

/// read(2), out of the reach of `WholeFile.read(_:)`'s name.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
