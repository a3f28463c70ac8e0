import CtxdebugHelpers
import ExploreModel
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The child's end of `ctxdebug explore`'s socket: one JSON object per line each way,
/// `ExploreMessage` up and `SchedulingAnswer` down (docs/explore.md, "CLI ↔ child protocol").
///
/// `@unchecked Sendable`: the descriptor is written and read under `lock` only, which
/// also holds the bytes read past the last line.
final class ParentChannel: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let descriptor: Int32
    private let lock = LockedValue<[UInt8]>([])

    init(connectingTo path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)  // not inherited by what the process spawns
        guard fd >= 0 else { throw Failure(description: "cannot make a socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            close(fd)
            throw Failure(description: "the socket path is longer than \(capacity - 1) bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "cannot connect: \(reason)")
        }
        descriptor = fd
    }

    /// Sends one message; a parent that went away is ignored (the process goes on unexplored).
    func send(_ message: ExploreMessage) {
        guard let line = try? message.line() else { return }
        lock.withLock { _ in line.withUnsafeBytes { write($0) } }
    }

    /// Sends a decision and waits for the parent's answer (FIFO's when there is none:
    /// the parent went away).
    func ask(_ decision: SchedulingDecision) -> SchedulingAnswer {
        ControlCost.asking {
            guard let request = try? decision.lineBytes() else { return .run(decision.defaultIndex) }
            let answer = lock.withLock { buffered -> SchedulingAnswer? in
                request.withUnsafeBytes { write($0) }
                guard let newline = readLine(&buffered) else { return nil }
                defer { buffered.removeSubrange(...newline) }
                return buffered.withUnsafeBytes { try? SchedulingAnswer(lineBytes: UnsafeRawBufferPointer(rebasing: $0[..<newline])) }
            }
            return answer ?? .run(decision.defaultIndex)
        }
    }

    /// Writes all of `bytes`. The socket's time, and the parent's, is not the control's
    /// own cost: the system calls are timed apart.
    private func write(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            let (n, error) = ControlCost.exclude {
                let n = Glibc.send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                return (n, errno)
            }
            if n <= 0 {
                if n < 0 && error == EINTR { continue }
                return
            }
            offset += n
        }
    }

    /// Reads until `buffered` holds a whole line: the index of its '\n', or nil when the
    /// parent went away. The wait for the answer is timed apart, as in `write`.
    private func readLine(_ buffered: inout [UInt8]) -> Int? {
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) { return newline }
            let (n, error) = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { chunk -> (Int, Int32) in
                let (n, error) = ControlCost.exclude {
                    let n = recv(descriptor, chunk.baseAddress, chunk.count, 0)
                    return (n, errno)
                }
                if n > 0 { buffered.append(contentsOf: chunk[..<n]) }
                return (n, error)
            }
            if n < 0 && error == EINTR { continue }
            guard n > 0 else { return nil }
        }
    }
}
