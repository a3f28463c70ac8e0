import CoreData
import UIKit

/// What the sync steps share: a private context of the coordinator's own.
protocol ContextOwner: AnyObject {
    var syncContext: NSManagedObjectContext { get }
    func uploadPending(count: Int)
}

/// Keeps the moods in sync with the server, on a private context.
final class SyncCoordinator: ContextOwner {
    let container: NSPersistentContainer
    let syncContext: NSManagedObjectContext
    private var observers: [NSObjectProtocol] = []

    init(container: NSPersistentContainer) {
        self.container = container
        syncContext = container.newBackgroundContext()
        syncContext.name = "SyncCoordinator"
    }

    func start() {
        let center = NotificationCenter.default
        // Every later activation goes through the coordinator's own perform: right.
        observers.append(center.addObserver(forName: UIApplication.didBecomeActiveNotification, object: nil, queue: nil) { _ in
            self.perform {
                self.applicationDidBecomeActive()
            }
        })
        // At launch, straight from the main queue: the path with the bug.
        DispatchQueue.main.async {
            if UIApplication.shared.applicationState == .active {
                self.applicationDidBecomeActive()
            }
        }
        observers.append(center.addObserver(forName: .NSManagedObjectContextDidSave, object: syncContext, queue: nil) { _ in
            self.syncContext.perform {
                self.processChangedLocalObjects()
            }
        })
    }

    /// Switches onto the sync context's queue.
    func perform(_ block: @escaping () -> Void) {
        syncContext.perform(block)
    }

    func applicationDidBecomeActive() {
        fetchLocallyTrackedObjects()
    }

    func uploadPending(count: Int) {
        print("uploading \(count)")
    }
}
