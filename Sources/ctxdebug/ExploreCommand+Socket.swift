import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The listening end of the explore protocol's Unix stream socket (docs/explore.md,
/// "CLI ↔ child protocol"): one per schedule of a worker, at a fresh path, so a process
/// left from an earlier schedule can never reach a later one.
final class ExploreListener {
    let path: String
    let descriptor: Int32

    /// Binds and listens at `path` (removed first if a stale socket is there).
    init(path: String) throws(ExploreSocketError) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw ExploreSocketError(what: "the socket path \(path) is too long for a Unix socket; set TMPDIR to a shorter directory")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw ExploreSocketError(what: "cannot make a socket", errno: errno) }
        unlink(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else {
            let error = ExploreSocketError(what: "cannot listen at \(path)", errno: errno)
            close(descriptor)
            throw error
        }
        self.path = path
        self.descriptor = descriptor
    }

    /// The next connection waiting, if any (never blocks: called after `poll`).
    func accept() -> ExploreConnection? {
        // accept4 is not imported: accept, then close-on-exec, with no spawn between
        // (another worker's COMMAND must not inherit this connection).
        let connection = CommandProcess.spawnLock.withLock { _ -> Int32 in
            let connection = Glibc.accept(descriptor, nil, nil)
            if connection >= 0 { _ = fcntl(connection, F_SETFD, FD_CLOEXEC) }
            return connection
        }
        return connection >= 0 ? ExploreConnection(descriptor: connection) : nil
    }

    deinit {
        close(descriptor)
        unlink(path)
    }
}

/// One accepted connection: the child's lines in, the parent's answers out.
final class ExploreConnection {
    let descriptor: Int32
    private var buffer: [UInt8] = []
    private(set) var isClosed = false

    init(descriptor: Int32) { self.descriptor = descriptor }

    /// Reads what is there (once `poll` said so) and returns the whole lines it
    /// completes, without their '\n'. Sets `isClosed` at the end of the stream; a last
    /// line without its '\n' is then dropped (the child was stopped while writing it).
    func readLines() -> [Data] {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count < 0 && (errno == EINTR || errno == EAGAIN) { return [] }
        if count <= 0 {
            isClosed = true
            return []
        }
        buffer += chunk[0..<count]
        var lines: [Data] = []
        var start = 0
        while let newline = buffer[start...].firstIndex(of: 0x0A) {
            lines.append(Data(buffer[start..<newline]))
            start = newline + 1
        }
        buffer.removeFirst(start)
        return lines
    }

    /// Sends one line (with its '\n'); false when the child is gone (no SIGPIPE: MSG_NOSIGNAL).
    @discardableResult
    func send(line: Data) -> Bool {
        let bytes = Array(line)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    deinit { close(descriptor) }
}

/// Waits until one of `descriptors` can be read, or `milliseconds` pass. Returns the
/// ones that can (a hang-up counts: the read then sees the end).
func pollReadable(_ descriptors: [Int32], milliseconds: Int32) -> Set<Int32> {
    var fds = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    let ready = poll(&fds, nfds_t(fds.count), milliseconds)
    guard ready > 0 else { return [] }
    return Set(fds.filter { $0.revents != 0 }.map(\.fd))
}

/// A socket that could not be made, in words.
struct ExploreSocketError: Error, CustomStringConvertible {
    var what: String
    var description: String { what }

    init(what: String) { self.what = what }
    init(what: String, errno code: Int32) { self.what = "\(what): \(String(cString: strerror(code)))" }
}
