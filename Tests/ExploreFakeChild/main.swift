// A test-only child of `ctxdebug explore`: speaks the child side of the protocol
// (docs/explore.md, "CLI ↔ child protocol") with ExploreModel's own message types, over
// a scripted program, so the parent is tested without the runtime. Usage: ctxdebug-explore-fake-child MODE
//
// The program: a driver and one private queue q1 ("background"). The driver enqueues a
// block on q1, then fetches, then saves; q1's block starts, then writes the store. FIFO
// order runs the driver to its end first. The bug: q1's block starts before the
// driver's fetch (one deviation, at step 1). Modes say how the bug shows:
//   bug        exit 1 with an assertion message      crash      abort (SIGABRT)
//   hang       stop answering, for ever              violation  exit 66
//   deadlock   send a deadlock failure, exit 0       pass       the fixed twin: no bug
//   changed    the program changed: the driver fetches before it enqueues (a replay
//              of a recorded schedule diverges); no bug
//   two        two connections, one after another: a warm-up program, then `bug`
//   nested     a connection takes one step, then a second connection runs `bug` while
//              the first waits (as a test waits for its exit test), then the first
//              takes its last step
//   long       three actors, 8 steps each, all enabled at once; never fails; appends
//              the choices it got, one line per run, to $CTXDEBUG_FAKE_LOG
//   silent     never connects, exits 0
//   stall      connects, says hello, then waits for ever without a decision
//   freeze     runs the program's decisions, then waits for ever (whatever the order)
//   old-protocol  says hello with protocol version 1, then runs `pass`
// $CTXDEBUG_FAKE_ENV, when set, names a file the CTXDEBUG_ variables are appended to.
import ExploreModel
import Foundation
#if canImport(Glibc)
import Glibc
#endif

struct Actor {
    var key: String
    var context: String?
    var points: [String]
    var done = 0
    var enabled: Bool
    var enabledAt: Int
}

final class Channel {
    let fd: Int32
    var buffer: [UInt8] = []

    init?(path: String) {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if connected != 0 { return nil }
    }

    func send(_ message: ExploreMessage) {
        let data = try! message.line()
        data.withUnsafeBytes { _ = write(fd, $0.baseAddress, $0.count) }
    }

    func readLine() -> Data? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Data(buffer[..<newline])
                buffer.removeFirst(newline + 1)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(fd, &chunk, chunk.count)
            if count <= 0 { return nil }
            buffer += chunk[0..<count]
        }
    }

    func close() { Glibc.close(fd) }
}

/// Runs a program over one connection: a decision before each actor's step. Returns
/// true when the bug happened (q1's first point ran before the driver's second).
func runProgram(_ actors: inout [Actor], channel: Channel?, choices: inout [String], bugCheck: Bool, sites: inout [String]) -> Bool {
    var last = 0
    var step = sites.count
    var controlled = channel != nil
    var bug = false
    while true {
        let enabled = actors.indices.filter { actors[$0].enabled && actors[$0].done < actors[$0].points.count }
        if enabled.isEmpty { break }
        let defaultActor = enabled.contains(last) ? last : enabled.min { actors[$0].enabledAt < actors[$1].enabledAt }!
        let defaultIndex = enabled.firstIndex(of: defaultActor)!
        var chosen = defaultIndex
        if controlled, let channel {
            let reacher = actors[last]
            channel.send(.decision(SchedulingDecision(
                step: step, enabled: enabled.map { actors[$0].key }, defaultIndex: defaultIndex, actor: reacher.key,
                point: SchedulingPoint(reacher.points[min(reacher.done, reacher.points.count - 1)]), context: reacher.context,
                candidates: enabled.map { .init(point: SchedulingPoint(actors[$0].points[actors[$0].done]), context: actors[$0].context) }
            )))
            guard let line = channel.readLine(), let answer = try? SchedulingAnswer(line: line) else { exit(3) }
            switch answer {
            case .diverged(let why):
                channel.send(.failure(ScheduleFailure(kind: .diverged, message: why)))
                controlled = false
            case .run(let index):
                chosen = index
            }
        }
        let index = enabled[chosen]
        choices.append(actors[index].key)
        sites.append("FakeChild.swift:\(100 + step) in \(actors[index].key)Step\(actors[index].done)()")
        if bugCheck && actors[index].key == "q1" && actors[index].done == 0 && actors[0].done < 2 { bug = true }
        if actors[index].key == "driver" && actors[index].points[actors[index].done] == "perform-enqueue" {
            for other in actors.indices where other != 0 && !actors[other].enabled {
                actors[other].enabled = true
                actors[other].enabledAt = step
            }
        }
        actors[index].done += 1
        last = index
        step += 1
    }
    return bug
}

/// At the end of a connection: the sites of all its decisions, when asked for.
func finish(_ channel: Channel, sites: [String]) {
    if ProcessInfo.processInfo.environment["CTXDEBUG_EXPLORE_SITES"] == "1" { channel.send(.sites(sites)) }
    channel.send(.end)
}

func bugProgram(changed: Bool) -> [Actor] {
    [
        Actor(key: "driver", context: nil, points: changed ? ["fetch", "perform-enqueue", "store-write"] : ["perform-enqueue", "fetch", "store-write"], enabled: true, enabledAt: -1),
        Actor(key: "q1", context: "background", points: ["block-start", "store-write"], enabled: false, enabledAt: 0),
    ]
}

func longProgram() -> [Actor] {
    ["driver", "q1", "q2"].enumerated().map { index, key in
        Actor(key: key, context: index == 0 ? nil : "queue\(index)", points: Array(repeating: "block-start", count: 8), enabled: true, enabledAt: index - 3)
    }
}

let arguments = CommandLine.arguments
let mode = arguments.count > 1 ? arguments[1] : "bug"
let environment = ProcessInfo.processInfo.environment
if let envFile = environment["CTXDEBUG_FAKE_ENV"] {
    let lines = environment.filter { $0.key.hasPrefix("CTXDEBUG_") }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)\n" }.joined()
    if let handle = FileHandle(forWritingAtPath: envFile) ?? { _ = FileManager.default.createFile(atPath: envFile, contents: nil); return FileHandle(forWritingAtPath: envFile) }() {
        handle.seekToEndOfFile()
        handle.write(Data(lines.utf8))
        try? handle.close()
    }
}
/// Says this process's pid on $CTXDEBUG_FAKE_PID: a FIFO the test reads (it waits on
/// the FIFO, not on a clock), or a plain file written whole.
func announcePID() {
    guard let pidFile = environment["CTXDEBUG_FAKE_PID"] else { return }
    var info = stat()
    if stat(pidFile, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO {
        let fd = open(pidFile, O_WRONLY)
        let text = "\(getpid())\n"
        _ = text.withCString { write(fd, $0, strlen($0)) }
        close(fd)
        return
    }
    try? Data("\(getpid())".utf8).write(to: URL(fileURLWithPath: pidFile + ".partial"))
    rename(pidFile + ".partial", pidFile)
}
// `freeze` says it once its decisions are answered (so logged by the parent).
if mode != "freeze" { announcePID() }
if mode == "silent" { exit(0) }
guard let socketPath = environment["CTXDEBUG_EXPLORE_SOCKET"] else {
    FileHandle.standardError.write(Data("fake child: CTXDEBUG_EXPLORE_SOCKET is not set\n".utf8))
    exit(2)
}

func connectAndHello() -> Channel {
    guard let channel = Channel(path: socketPath) else {
        FileHandle.standardError.write(Data("fake child: cannot connect to \(socketPath)\n".utf8))
        exit(2)
    }
    channel.send(.hello(version: mode == "old-protocol" ? 1 : ExploreMessage.version, pid: getpid()))
    return channel
}

if mode == "two" {
    let warmUp = connectAndHello()
    var warmUpActors = [Actor(key: "driver", context: nil, points: ["fetch", "store-write"], enabled: true, enabledAt: -1)]
    var ignored: [String] = []
    var warmUpSites: [String] = []
    _ = runProgram(&warmUpActors, channel: warmUp, choices: &ignored, bugCheck: false, sites: &warmUpSites)
    finish(warmUp, sites: warmUpSites)
    warmUp.close()
}

if mode == "stall" {
    _ = connectAndHello()
    while true { pause() }
}

var outer: Channel?
var outerSites: [String] = []
if mode == "nested" {
    outer = connectAndHello()
    var outerActors = [Actor(key: "driver", context: nil, points: ["fetch"], enabled: true, enabledAt: -1)]
    var ignored: [String] = []
    _ = runProgram(&outerActors, channel: outer, choices: &ignored, bugCheck: false, sites: &outerSites)
}

let channel = connectAndHello()
var actors = mode == "long" ? longProgram() : bugProgram(changed: mode == "changed")
var choices: [String] = []
var sites: [String] = []
let bug = runProgram(&actors, channel: channel, choices: &choices, bugCheck: !["pass", "changed", "long", "old-protocol"].contains(mode), sites: &sites)
if mode == "freeze" {
    announcePID()
    while true { pause() }
}
if !(bug && ["crash", "hang"].contains(mode)) { finish(channel, sites: sites) }
if mode == "long", let log = environment["CTXDEBUG_FAKE_LOG"] {
    let fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    let line = choices.joined(separator: ",") + "\n"
    _ = line.withCString { write(fd, $0, strlen($0)) }
    close(fd)
}
if let outer {
    var lastActors = [Actor(key: "driver", context: nil, points: ["store-write"], enabled: true, enabledAt: -1)]
    var ignored: [String] = []
    _ = runProgram(&lastActors, channel: outer, choices: &ignored, bugCheck: false, sites: &outerSites)
    finish(outer, sites: outerSites)
}
if bug {
    switch mode {
    case "crash":
        FileHandle.standardError.write(Data("fake child: about to crash\n".utf8))
        abort()
    case "hang":
        while true { pause() }
    case "violation":
        exit(66)
    case "deadlock":
        channel.send(.failure(ScheduleFailure(kind: .deadlock, message: "q1 and driver wait for each other", detail: "driver → q1 → driver")))
        exit(0)
    default:
        FileHandle.standardError.write(Data("assertion failed: q1's block ran before the driver's fetch: lost update\n".utf8))
        exit(1)
    }
}
channel.close()
exit(0)
