import CoreData
import Foundation

extension ContextOwner {
    // context-without-perform, the bug: at launch the coordinator calls this from the
    // main queue (DispatchQueue.main.async in SyncCoordinator.swift; its other caller
    // goes through perform), and it counts on the private sync context without going
    // through its perform.
    func fetchLocallyTrackedObjects() {
        let pending = Mood.count(in: syncContext) // expect: context-without-perform
        uploadPending(count: pending)
    }

    // context-without-perform, the correct twin: called only inside
    // syncContext.perform { }, so it already runs on the context's queue.
    func processChangedLocalObjects() {
        let pending = Mood.count(in: syncContext)
        uploadPending(count: pending)
    }
}
