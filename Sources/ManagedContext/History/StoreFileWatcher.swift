import CtxdebugHelpers
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Wakes when another connection (of this process or another) may have committed to a
/// store: an inotify watch on the store's directory, for writes to the store's `-wal`
/// and for the `-shm` file's time, which a process of this runtime touches after each
/// history-tracked commit (a commit's last WAL write comes before SQLite updates the
/// wal-index in the `-shm`, which is memory-mapped and raises no event, so a reader
/// woken by that write alone could look too early).
///
/// One thread blocks in `poll(2)` on the inotify descriptor and a pipe that stops it:
/// no polling loop, no core spent while nothing is written. A wake that finds nothing
/// new looks once more 50 ms later (a writer of another runtime, which touches nothing).
/// It runs outside libdispatch, so `explore` never schedules it.
final class StoreFileWatcher: Sendable {
    private let inotify: Int32
    private let stopPipe: (read: Int32, write: Int32)
    private let names: Set<String>
    private let onWake: @Sendable () -> Bool

    /// Watches the store at `path`; `onWake` runs on the watcher's thread after each
    /// burst of events and says whether it found a change.
    init?(path: String, onWake: @escaping @Sendable () -> Bool) {
        #if canImport(Glibc)
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let file = url.lastPathComponent
        names = [file, file + "-wal", file + "-shm"]
        self.onWake = onWake
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { return nil }
        let mask = UInt32(IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            close(fd)
            return nil
        }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            close(fd)
            return nil
        }
        for end in fds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        inotify = fd
        stopPipe = (fds[0], fds[1])
        let thread = Thread { [self] in run() }
        thread.name = "ctxdebug.store-watcher"
        thread.start()
        #else
        return nil
        #endif
    }

    /// Stops the thread; its descriptors are closed as it ends.
    func stop() {
        var byte: UInt8 = 1
        _ = write(stopPipe.write, &byte, 1)
    }

    /// Touches the `-shm` file's time, so watchers in other processes wake after a commit.
    static func signalCommit(path: String) {
        #if canImport(Glibc)
        _ = utimensat(AT_FDCWD, path + "-shm", nil, 0)
        #endif
    }

    private func run() {
        #if canImport(Glibc)
        defer {
            close(inotify)
            close(stopPipe.read)
            close(stopPipe.write)
        }
        var recheckPending = false
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            var fds = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0), pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, recheckPending ? 50 : -1)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 || fds[1].revents != 0 { return }
            if ready == 0 {
                recheckPending = false
                _ = onWake()
                continue
            }
            guard drainEvents(&buffer) else { continue }
            recheckPending = !onWake()
        }
        #endif
    }

    /// Reads every pending event; true when one is about the store's files.
    private func drainEvents(_ buffer: inout [UInt8]) -> Bool {
        #if canImport(Glibc)
        var relevant = false
        while true {
            let n = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            if n <= 0 { return relevant }
            var offset = 0
            buffer.withUnsafeBytes { raw in
                while offset + MemoryLayout<inotify_event>.size <= n {
                    let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameStart = offset + MemoryLayout<inotify_event>.size
                    if length > 0 {
                        let bytes = raw[nameStart..<min(nameStart + length, n)].prefix { $0 != 0 }
                        if names.contains(String(decoding: bytes, as: UTF8.self)) { relevant = true }
                    }
                    offset = nameStart + length
                }
            }
        }
        #else
        return false
        #endif
    }
}
