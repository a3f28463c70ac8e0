// The fixed twin of ../bug/UserSession.swift.txt (wireapp/wire-ios-sync-engine #210):
// the session performs on its UI context directly; nothing reads that context's
// userInfo off the main queue.
import CoreData
import Foundation

extension NSManagedObjectContext {
    /// The UI context this context belongs to, kept in its userInfo.
    var userInterfaceContext: NSManagedObjectContext? {
        userInfo["userInterfaceContext"] as? NSManagedObjectContext
    }
}

final class Conversation: NSManagedObject {
    @NSManaged var isCallTimedOut: Bool
}

final class UserSession {
    /// The UI context.
    let managedObjectContext: NSManagedObjectContext
    let syncManagedObjectContext: NSManagedObjectContext

    init(coordinator: NSPersistentStoreCoordinator) {
        managedObjectContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        managedObjectContext.persistentStoreCoordinator = coordinator
        syncManagedObjectContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        syncManagedObjectContext.persistentStoreCoordinator = coordinator
    }

    func callTimerDidFire(for conversationID: NSManagedObjectID) {
        let uiContext = managedObjectContext
        syncManagedObjectContext.perform {
            uiContext.perform {
                (uiContext.object(with: conversationID) as? Conversation)?.isCallTimedOut = true
            }
        }
    }
}
