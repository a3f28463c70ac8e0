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
