import CtxdebugHelpers
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How the commands that run a COMMAND (`ctxdebug check`, `ctxdebug explore`) start it
/// and read how it ended: one spawn, one reading of a wait status.
enum CommandProcess {
    /// Held while a process is spawned, and while a descriptor that cannot be made
    /// close-on-exec atomically is made so: no child inherits another's descriptor.
    static let spawnLock = LockedValue(())

    /// How COMMAND ended, or why it could not start.
    enum Status: Equatable {
        case exited(Int32)
        case signaled(Int32)
        case notFound(String)
        case cannotExecute(String)

        /// The status a shell would report.
        var exitStatus: ExitStatus {
            switch self {
            case .exited(let code): .command(exited: code)
            case .signaled(let signal): .command(killedBy: signal)
            case .notFound: .notFound
            case .cannotExecute: .cannotExecute
            }
        }

        var code: Int32 { exitStatus.code }

        var description: String {
            switch self {
            case .exited(let code): "exited with status \(code)"
            case .signaled(let signal): "was killed by signal \(signal)"
            case .notFound(let message), .cannotExecute(let message): message
            }
        }

        /// A `waitpid` status (WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not
        /// import as macros).
        init(waitStatus status: Int32) {
            self = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
        }
    }

    /// Where COMMAND's standard streams go, beyond the defaults (inherited).
    struct Streams {
        /// Standard input from /dev/null (a command in its own process group must not
        /// read the terminal).
        var nullInput = false
        /// Standard output and error appended to this file.
        var outputFile: String?
    }

    /// Starts `arguments` (looked up on PATH) with `environment`, SIGINT, SIGQUIT,
    /// SIGTERM and SIGHUP set back to their defaults (this process may ignore or catch
    /// them) and no signal blocked. With
    /// `ownProcessGroup` it leads a new process group (its id is the pid), so that
    /// every process it starts can be killed together. Returns the pid, or why it
    /// could not start.
    static func spawn(
        _ arguments: [String], environment: [String: String], ownProcessGroup: Bool = false, streams: Streams = Streams()
    ) -> Result<pid_t, SpawnFailure> {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGQUIT)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGHUP)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        // No signal blocked, as a shell starts a command: the spawning thread may be a
        // dispatch worker, which blocks nearly every signal, and a mask is inherited.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        var flags = Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
        if ownProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if streams.nullInput { posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0) }
        if let output = streams.outputFile {
            posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO)
        }

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = spawnLock.withLock { _ in posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp) }
        guard spawned == 0 else {
            let message = String(cString: strerror(spawned))
            return .failure(spawned == ENOENT ? .notFound(message) : .cannotExecute(message))
        }
        return .success(pid)
    }

    /// Why COMMAND could not start: as a shell says, 127 or 126.
    enum SpawnFailure: Error {
        case notFound(String)
        case cannotExecute(String)

        var status: Status {
            switch self {
            case .notFound(let message): .notFound(message)
            case .cannotExecute(let message): .cannotExecute(message)
            }
        }
    }

    /// Marks every descriptor this process inherited (beyond stdin, stdout and stderr)
    /// close-on-exec, so that COMMAND does not inherit them: a process COMMAND leaves
    /// behind must not keep this process's parent waiting on a pipe or socket it
    /// gave to this process (Foundation's `Process` watches one to see it end).
    static func keepInheritedDescriptorsFromCommands() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return }
        for descriptor in names.compactMap({ Int32($0) }) where descriptor > STDERR_FILENO {
            let flags = fcntl(descriptor, F_GETFD)
            if flags >= 0 && flags & FD_CLOEXEC == 0 { _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) }
        }
    }

    /// Waits for `pid` to end (retrying when a signal interrupts the wait).
    static func wait(_ pid: pid_t) -> Status {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return .exited(1) }
        }
        return Status(waitStatus: status)
    }

    /// Whether a process of process group `group` is crashing: it runs the Swift
    /// runtime's crash reporter, `swift-backtrace` (a crashing Swift process waits for
    /// it before it dies), or the kernel is writing its core dump (to a handler such as
    /// systemd-coredump). Either takes seconds for a large binary on a busy machine.
    static func groupIsCrashing(_ group: pid_t) -> Bool {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return false }
        for name in names where name.first?.isNumber == true {
            guard let stat = ProcessStat(contentsOf: "/proc/\(name)/stat"), stat.group == group else { continue }
            if stat.command == "swift-backtrace" || stat.isDumpingCore { return true }
            // The kernel marks the thread that dumps, which need not be the main one.
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(name)/task")) ?? []
            if tasks.contains(where: { ProcessStat(contentsOf: "/proc/\(name)/task/\($0)/stat")?.isDumpingCore == true }) { return true }
        }
        return false
    }

    /// How `pid` ended if it has, without waiting; nil while it runs.
    static func reap(_ pid: pid_t) -> Status? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid { return Status(waitStatus: status) }
        if result < 0 && errno == ECHILD { return .exited(1) }
        return nil
    }
}

/// The fields of a `/proc/PID/stat` line that `CommandProcess.groupIsCrashing` reads.
struct ProcessStat {
    /// The executable's name (`comm`, at most 15 bytes).
    var command: String
    var group: pid_t
    /// The kernel's `PF_*` flags of the thread.
    var flags: UInt

    /// PF_DUMPCORE: the thread is writing a core dump.
    var isDumpingCore: Bool { flags & 0x200 != 0 }

    /// Parses "pid (comm) state ppid pgrp session tty tpgid flags ...". The name may
    /// hold spaces and parentheses, so the fields are read after its last ")".
    init?(_ line: String) {
        guard let open = line.firstIndex(of: "("), let close = line.lastIndex(of: ")") else { return nil }
        let fields = line[line.index(after: close)...].split(separator: " ")
        guard fields.count > 6, let group = pid_t(fields[2]), let flags = UInt(fields[6]) else { return nil }
        self.command = String(line[line.index(after: open)..<close])
        self.group = group
        self.flags = flags
    }

    init?(contentsOf path: String) {
        guard let line = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        self.init(line)
    }
}
