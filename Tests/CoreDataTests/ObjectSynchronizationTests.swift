import CoreData
import Foundation
import Testing

@testable import CoreData

/// `objc_sync_enter`/`objc_sync_exit`, which stacks call to guard their lazy properties
/// (wibosco/CoreDataServices' ServiceManager: `objc_sync_enter(self); defer {
/// objc_sync_exit(self) }`), as the Objective-C runtime's objc-sync.h describes them: a
/// recursive mutex per object; exit by a thread that does not hold it is
/// OBJC_SYNC_NOT_OWNING_THREAD_ERROR.
@Suite struct ObjectSynchronizationTests {
    final class Stack: Sendable {}

    @Test func itIsRecursiveAndDroppedWhenFree() {
        let stack = Stack()
        #expect(objc_sync_enter(stack) == OBJC_SYNC_SUCCESS)
        #expect(objc_sync_enter(stack) == OBJC_SYNC_SUCCESS)
        #expect(ObjectSynchronization.shared.users(of: stack) == 2)
        #expect(objc_sync_exit(stack) == OBJC_SYNC_SUCCESS)
        #expect(objc_sync_exit(stack) == OBJC_SYNC_SUCCESS)
        #expect(ObjectSynchronization.shared.users(of: stack) == 0)
        #expect(objc_sync_exit(stack) == OBJC_SYNC_NOT_OWNING_THREAD_ERROR)
    }

    @Test func anotherThreadWaitsUntilTheHolderExits() {
        let stack = Stack()
        let entered = NSLock()
        nonisolated(unsafe) var otherEntered = false
        let done = DispatchSemaphore(value: 0)
        objc_sync_enter(stack)
        Thread {
            #expect(objc_sync_exit(stack) == OBJC_SYNC_NOT_OWNING_THREAD_ERROR)
            objc_sync_enter(stack)
            entered.withLock { otherEntered = true }
            objc_sync_exit(stack)
            done.signal()
        }.start()
        // The other thread is waiting for the lock (it counts as a user) and cannot have it.
        while ObjectSynchronization.shared.users(of: stack) < 2 { sched_yield() }
        #expect(entered.withLock { otherEntered } == false)
        objc_sync_exit(stack)
        done.wait()
        #expect(entered.withLock { otherEntered })
        #expect(ObjectSynchronization.shared.users(of: stack) == 0)
    }
}
