import ConcurrencyDebugTesting
import Foundation
import ManagedContext
import XCTest

/// `explore` from an XCTest method, which runs on the main thread: the run's main-queue
/// blocks need the main queue, so `explore` serves it while it waits (docs/explore.md).
final class ExploreXCTests: XCTestCase {
    func testMainQueueBlocksRunWhenExploreIsCalledOnTheMainThread() throws {
        XCTAssertTrue(Thread.isMainThread)
        let ran = LockedFlags()
        let report = try explore(.random, iterations: 20, seed: 5, options: ExploreOptions(hangTimeout: 60), name: "main-thread") {
            let view = ManagedObjectContext(concurrencyType: .mainQueue)
            let background = ManagedObjectContext(concurrencyType: .privateQueue)
            view.perform { ran.set(main: Thread.isMainThread) }
            background.perform { view.performAndWait { ran.set(waited: true) } }
            drain()
        }
        XCTAssertEqual(report.schedulesRun, 20)
        XCTAssertTrue(ran.mainOnMainThread && ran.waited)
    }
}

final class LockedFlags: @unchecked Sendable {
    private let lock = NSLock()
    private var main = true, sawMain = false, wait = false
    func set(main onMain: Bool) { lock.lock(); main = main && onMain; sawMain = true; lock.unlock() }
    func set(waited: Bool) { lock.lock(); wait = waited; lock.unlock() }
    var mainOnMainThread: Bool { lock.lock(); defer { lock.unlock() }; return main && sawMain }
    var waited: Bool { lock.lock(); defer { lock.unlock() }; return wait }
}

/// Waiting on the main thread, `explore` sleeps in the main run loop; a run's end must
/// wake it at once. It used to be seen only at the next 5 ms poll, which capped a
/// main-thread caller at about 180 schedules/s (docs/benchmarks.md, item 10). The run
/// loop now sleeps until the hang timeout, so a missed wake-up makes each run last the
/// whole timeout: two runs then take at least twice the timeout, where they take
/// milliseconds when woken. The bound is the hang timeout itself, not a speed limit.
final class ExploreMainThreadWakeUpTests: XCTestCase {
    func testARunsEndWakesTheMainThreadThatWaitsForIt() throws {
        XCTAssertTrue(Thread.isMainThread)
        let hangTimeout = 20.0
        let report = try explore(.random, iterations: 2, seed: 3, options: ExploreOptions(hangTimeout: hangTimeout), name: "main-wake-up") {
            let a = ManagedObjectContext(concurrencyType: .privateQueue)
            let b = ManagedObjectContext(concurrencyType: .privateQueue)
            a.perform {}
            b.perform {}
            drain()
        }
        XCTAssertEqual(report.schedulesRun, 2)
        XCTAssertLessThan(report.elapsedSeconds, hangTimeout, "each run's end woke the main thread before its hang timeout ran out")
    }
}
