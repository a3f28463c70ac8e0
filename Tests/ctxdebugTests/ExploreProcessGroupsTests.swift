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

    /// What `ctxdebug explore` reads to tell a crash in progress from a hang
    /// (proc(5): "pid (comm) state ppid pgrp session tty_nr tpgid flags ...").
    @Test("a /proc stat line gives the name, the process group and the core-dump flag, whatever the name holds")
    func procStatLines() throws {
        let backtracer = try #require(ProcessStat("4711 (swift-backtrace) S 4710 4700 4700 0 -1 4194560 12 0 0 0"))
        #expect(backtracer.command == "swift-backtrace" && backtracer.group == 4700 && backtracer.flags == 4_194_560)
        #expect(!backtracer.isDumpingCore)
        let dumping = try #require(ProcessStat("4700 (my app (v2)) D 1 4700 4700 0 -1 4194880 0 0 0 0"))
        #expect(dumping.command == "my app (v2)" && dumping.group == 4700 && dumping.isDumpingCore)
        #expect(ProcessStat("4700 (cut short) S 1") == nil)
        #expect(ProcessStat("") == nil)
    }

    @Test("a live process group is crashing only while one of its processes is")
    func aSleepingGroupIsNotCrashing() throws {
        let pid = try Self.sleeper()
        let own = try #require(ProcessStat(contentsOf: "/proc/\(pid)/stat"))
        #expect(own.group == pid && own.command == "sleep")
        #expect(!CommandProcess.groupIsCrashing(pid))
        kill(pid, SIGKILL)
        _ = Self.ending(of: pid)
    }
}
