import Foundation
import Synchronization
import Testing
@testable import ctxdebug

/// The process groups an interrupted `ctxdebug explore` kills. Found under
/// ThreadSanitizer: after Ctrl-C killed the run under way, the worker saw that run
/// "crash" and started a confirming replay before the process ended; its COMMAND was
/// left running, an orphan holding the caller's pipes open.
@Suite("ctxdebug explore: the process groups an interrupt kills")
struct ExploreProcessGroupsTests {
    /// `sleep 600` leading a process group of its own, as explore runs COMMAND.
    static func sleeper() throws -> pid_t {
        try CommandProcess.spawn(["sleep", "600"], environment: [:], ownProcessGroup: true).get()
    }

    /// How `pid` ended (`CommandProcess.wait`, as explore reads its runs). A guard kills
    /// it after 60 s, so a group nobody killed fails the test (`byGuard`) rather than hang it.
    static func ending(of pid: pid_t) -> (status: CommandProcess.Status, byGuard: Bool) {
        let fired = Mutex(false)
        let guardTimer = DispatchWorkItem {
            fired.withLock { $0 = true }
            kill(pid, SIGKILL)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: guardTimer)
        defer { guardTimer.cancel() }
        let status = CommandProcess.wait(pid)
        return (status, fired.withLock { $0 })
    }

    @Test("killAll() kills the groups under way")
    func killsTheGroupsUnderWay() throws {
        let groups = ExploreProcessGroups()
        let pid = try Self.sleeper()
        groups.insert(pid)
        groups.killAll()
        let ending = Self.ending(of: pid)
        #expect(ending.status == .signaled(SIGKILL) && !ending.byGuard)
    }

    @Test("a run started after killAll() is killed as it is added, not left running")
    func aGroupAddedAfterTheInterruptIsKilled() throws {
        let groups = ExploreProcessGroups()
        groups.killAll()
        let pid = try Self.sleeper()
        groups.insert(pid)
        let ending = Self.ending(of: pid)
        #expect(ending.status == .signaled(SIGKILL) && !ending.byGuard)
    }

    @Test("a finished run's group is forgotten: killAll() signals no group that may be reused")
    func aRemovedGroupIsNotKilled() throws {
        let groups = ExploreProcessGroups()
        let pid = try Self.sleeper()
        groups.insert(pid)
        groups.remove(pid)
        groups.killAll()
        // Had killAll() signalled it, its SIGKILL would come before this SIGTERM.
        kill(pid, SIGTERM)
        #expect(Self.ending(of: pid).status == .signaled(SIGTERM))
    }

    /// Test threads, like explore's workers, may block signals; a mask is inherited.
    @Test("COMMAND starts with no signal blocked, whatever thread starts it")
    func commandStartsWithNoSignalBlocked() throws {
        var all = sigset_t()
        sigfillset(&all)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &all, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let pid = try Self.sleeper()
        let blocked = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("SigBlk:") }
        kill(pid, SIGTERM)
        #expect(Self.ending(of: pid).status == .signaled(SIGTERM))
        #expect(blocked?.hasSuffix("0000000000000000") == true, "\(blocked ?? "no SigBlk line")")
    }
}
