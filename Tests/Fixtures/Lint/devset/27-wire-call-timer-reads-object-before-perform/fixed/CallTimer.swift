// The fixed twin of ../bug/CallTimer.swift.txt (wireapp/wire-ios-sync-engine #227): the
// timer hands over the objectID, and the check runs inside the sync context's perform.
import CoreData
import Foundation

final class Conversation: NSManagedObject {
    @NSManaged var callTimedOut: Bool
}

final class CallTimer {
    let syncContext: NSManagedObjectContext
    private var timers: [NSManagedObjectID: Timer] = [:]

    init(container: NSPersistentContainer) {
        syncContext = container.newBackgroundContext()
    }

    /// Called inside syncContext.perform { } when a call starts ringing.
    func startTimer(for conversation: Conversation, timeout: TimeInterval) {
        let id = conversation.objectID
        DispatchQueue.main.async {
            self.timers[id] = Timer.scheduledTimer(withTimeInterval: timeout, repeats: false) { _ in
                self.timerDidFire(for: id)
            }
        }
    }

    private func timerDidFire(for conversationID: NSManagedObjectID) {
        syncContext.perform {
            guard let conversation = try? self.syncContext.existingObject(with: conversationID) as? Conversation,
                  !conversation.isDeleted else { return }
            conversation.callTimedOut = true
            try? self.syncContext.save()
        }
    }

    func callStarted(in conversationID: NSManagedObjectID) {
        syncContext.perform {
            guard let conversation = try? self.syncContext.existingObject(with: conversationID) as? Conversation else { return }
            self.startTimer(for: conversation, timeout: 60)
        }
    }
}
