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
        lock.withLock { _ in write(line) }
    }

    /// Sends a decision and waits for the parent's answer (FIFO's when there is none:
    /// the parent went away).
    func ask(_ decision: SchedulingDecision) -> SchedulingAnswer {
        ControlCost.asking {
            guard let request = try? ExploreMessage.decision(decision).line() else { return .run(decision.defaultIndex) }
            // The round trip is the parent's time, not the control's own cost.
            let reply = ControlCost.exclude {
                lock.withLock { buffered -> Data? in
                    write(request)
                    return readLine(&buffered)
                }
            }
            guard let reply, let answer = try? SchedulingAnswer(line: reply) else { return .run(decision.defaultIndex) }
            return answer
        }
    }

    private func write(_ data: Data) {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if n <= 0 {
                    if n < 0 && errno == EINTR { continue }
                    return
                }
                offset += n
            }
        }
    }

    private func readLine(_ buffered: inout [UInt8]) -> Data? {
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Data(buffered[..<newline])
                buffered.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 256)
            let n = recv(descriptor, &chunk, chunk.count, 0)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            buffered += chunk[..<n]
        }
    }
}
