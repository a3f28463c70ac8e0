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
//
// Prints `schedules=N exhausted=B` after a pass, the failure report after a failure.

let mode = CommandLine.arguments.dropFirst().first ?? ""
guard mode == "misuse" || mode == "twin" else {
    FileHandle.standardError.write(Data("usage: ctxdebug-explore-dispatch-sample misuse|twin\n".utf8))
    exit(64)
}
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ctxdebug-dispatch-sample-\(getpid())")
defer { try? FileManager.default.removeItem(at: directory) }
let misuse = mode == "misuse"
// The program's queues, made once as an app's are. (A queue released while a block of its
// waits in the schedule is not kept alive by the control: libdispatch's own retain is
// taken only when the block is really submitted.)
let owner = DispatchQueue(label: "sample.owner")
let reader = misuse ? DispatchQueue(label: "sample.other") : owner

do {
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
