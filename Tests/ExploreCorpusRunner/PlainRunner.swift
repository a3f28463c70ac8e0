import CtxdebugHelpers
import Dispatch
import Foundation

/// Runs a body `times` times on the calling thread and exits with the verdict; a
/// watchdog thread ends the process with status 2 when one run takes longer than
/// `timeout` (a deadlock or a hang never returns, so nothing else can report it).
///
/// The last line of its output is the one `measure` reads:
/// `result: runs=N hits=H` or `result: hang after=K hits=H`.
final class PlainRunner: Sendable {
    let label: String
    let body: @Sendable () throws -> Void
    let times: Int
    let timeout: Double
    private let progress = LockedValue((started: 0, hits: 0))
    private let finishedRun = DispatchSemaphore(value: 0)

    init(label: String, body: @escaping @Sendable () throws -> Void, times: Int, timeout: Double) {
        self.label = label
        self.body = body
        self.times = times
        self.timeout = timeout
    }

    func runAll() {
        Thread.detachNewThread { self.watch() }
        var firstMessage: String?
        for _ in 0..<times {
            progress.withLock { $0.started += 1 }
            do {
                try body()
            } catch {
                progress.withLock { $0.hits += 1 }
                if firstMessage == nil { firstMessage = "\(error)" }
            }
            finishedRun.signal()
        }
        let hits = progress.withLock { $0.hits }
        print("\(label): \(hits) of \(times) runs hit the bug")
        if let firstMessage { print("first hit: \(firstMessage)") }
        print("result: runs=\(times) hits=\(hits)")
        fflush(nil)
        exit(hits > 0 ? 1 : 0)
    }

    private func watch() {
        while true {
            if finishedRun.wait(timeout: .now() + timeout) == .success { continue }
            let (started, hits) = progress.withLock { ($0.started, $0.hits) }
            print("\(label): deadlock/hang: run \(started) did not finish within \(timeout) s (\(hits) hits in the \(started - 1) runs before it)")
            print("result: hang after=\(started - 1) hits=\(hits)")
            fflush(nil)
            // The hung threads hold the runtime's queues: leave without running exit hooks.
            _exit(2)
        }
    }
}
