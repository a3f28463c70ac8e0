import ConcurrencyDebug
import ConcurrencyDebugTesting
import Dispatch
import Foundation

// Test-only (ctxdebugTests' ExploreDispatchSampleTests, issue 47): plain libdispatch code
// and a `QueueConfined` value explored by the in-process `explore { }`, with no context in
// the program (it links no ManagedContext). Run with the preload library in LD_PRELOAD, as
// `ctxdebug explore` gives it: each `async` is then a scheduling point of the run.
//
//   ctxdebug-explore-dispatch-sample misuse   the value, confined to queue sample.owner, is
//                                              read by a block on sample.other after a block
//                                              on its owner set it: found (status 1)
//   ctxdebug-explore-dispatch-sample twin     both blocks on the owner: every schedule with
//                                              at most 2 deviations from FIFO passes (status 0)
//   ctxdebug-explore-dispatch-sample temporary  blocks sent to queues released at once (a
//                                              temporary `DispatchQueue(label:)`): each block
//                                              still runs on its queue (status 0)
//
// Prints `schedules=N exhausted=B` after a pass, the failure report after a failure.

let mode = CommandLine.arguments.dropFirst().first ?? ""
guard ["misuse", "twin", "temporary"].contains(mode) else {
    FileHandle.standardError.write(Data("usage: ctxdebug-explore-dispatch-sample misuse|twin|temporary\n".utf8))
    exit(64)
}
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ctxdebug-dispatch-sample-\(getpid())")
defer { try? FileManager.default.removeItem(at: directory) }
let misuse = mode == "misuse"
// The program's queues, made once as an app's are.
let owner = DispatchQueue(label: "sample.owner")
let reader = misuse ? DispatchQueue(label: "sample.other") : owner

/// What the blocks sent to temporary queues saw: each its queue's specific value.
final class Seen: @unchecked Sendable {  // its one array is read and written under `lock`
    private let lock = NSLock()
    private var values: [Int] = []
    func add(_ value: Int) { lock.withLock { values.append(value) } }
    var all: [Int] { lock.withLock { values.sorted() } }
}

struct WrongQueue: Error, CustomStringConvertible {
    let seen: [Int]
    var description: String { "the blocks of the temporary queues saw the specifics \(seen), not [0, 1, 2]" }
}

let temporaryKey = DispatchSpecificKey<Int>()

do {
    if mode == "temporary" {
        // libdispatch keeps a queue alive while a block of its is queued; so must the
        // schedule, which holds the block back: the queues here are released at once.
        let report = try explore(.random, iterations: 30, options: ExploreOptions(scheduleDirectory: directory), name: "dispatch-sample-temporary") {
            let seen = Seen()
            for index in 0..<3 {
                let queue = DispatchQueue(label: "sample.temporary.\(index)")
                queue.setSpecific(key: temporaryKey, value: index)
                queue.async { seen.add(DispatchQueue.getSpecific(key: temporaryKey) ?? -1) }
            }
            drain()
            if seen.all != [0, 1, 2] { throw WrongQueue(seen: seen.all) }
        }
        print("schedules=\(report.schedulesRun) exhausted=\(report.exhausted)")
        exit(0)
    }
    let report = try explore(.delay(2), iterations: 200, options: ExploreOptions(scheduleDirectory: directory), name: "dispatch-sample-\(mode)") {
        let counter = QueueConfined(0, queue: owner, name: "counter")
        let seen = QueueConfined(-1, queue: reader, name: "seen")
        owner.async { counter.value += 1 }
        reader.async { seen.value = counter.value }
    }
    print("schedules=\(report.schedulesRun) exhausted=\(report.exhausted)")
} catch let failed as ExplorationFailed {
    print("kind=\(failed.failure.kind.rawValue) replays=\(failed.failure.replaysText)")
    print(failed.description)
    exit(1)
} catch {
    print("error: \(error)")
    exit(2)
}
