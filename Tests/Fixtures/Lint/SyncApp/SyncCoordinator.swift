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
        observers.append(center.addObserver(forName: UIApplication.didBecomeActiveNotification, object: nil, queue: nil) { _ in
            DispatchQueue.main.async {
                self.applicationDidBecomeActive()
            }
        })
        observers.append(center.addObserver(forName: .NSManagedObjectContextDidSave, object: syncContext, queue: nil) { _ in
            self.syncContext.perform {
                self.processChangedLocalObjects()
            }
        })
    }

    func applicationDidBecomeActive() {
        fetchLocallyTrackedObjects()
    }

    func uploadPending(count: Int) {
        print("uploading \(count)")
    }
}
