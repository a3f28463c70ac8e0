import CtxdebugHelpers
import ExploreModel
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The child's end of `ctxdebug explore`'s socket: one JSON object per line each way
/// (docs/explore.md, "Across processes").
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
    func send(_ message: [String: Any]) {
        guard let line = Self.line(message) else { return }
        lock.withLock { _ in write(line) }
    }

    /// Sends a decision and waits for the parent's answer.
    func ask(_ question: SchedulingDecision) -> SchedulingAnswer {
        let message: [String: Any] = [
            "step": question.step, "actor": question.actor, "point": question.point.rawValue,
            "context": question.context as Any, "enabled": question.enabled, "defaultIndex": question.defaultIndex,
            "candidates": question.candidates.map { ["point": $0.point.rawValue, "context": $0.context as Any] },
        ]
        guard let request = Self.line(message) else { return .run(question.defaultIndex) }
        let reply = lock.withLock { buffered -> String? in
            write(request)
            return readLine(&buffered)
        }
        guard let line = reply else { return .run(question.defaultIndex) }
        if line.hasPrefix("diverged") { return .diverged(String(line.dropFirst("diverged".count)).trimmingCharacters(in: .whitespaces)) }
        return .run(Int(line.trimmingCharacters(in: .whitespaces)) ?? question.defaultIndex)
    }

    private static func line(_ message: [String: Any]) -> Data? {
        guard var data = try? JSONSerialization.data(withJSONObject: message, options: [.sortedKeys]) else { return nil }
        data.append(UInt8(ascii: "\n"))
        return data
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

    private func readLine(_ buffered: inout [UInt8]) -> String? {
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
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
