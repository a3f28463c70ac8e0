import Foundation
import Synchronization
import Testing
import ManagedContext

/// `reset()` tells its observers that every object is gone. Apple's NSManagedObjectContext.h:
/// "User info keys for NSManagedObjectContextObjectsDidChangeNotification: the values for
/// these keys are arrays of objectIDs — NSInvalidatedAllObjectsKey: All objects in the
/// context have been invalidated"; Apple's documentation of the key: "A key that specifies
/// that all objects in the context have been invalidated". A fetched results controller
/// or a list learns of a reset from that key alone, since no object is listed elsewhere.
@Suite struct ResetNotificationTests {
    @Test func resetPostsObjectsDidChangeWithInvalidatedAllObjects() throws {
        let stack = try TestStack()
        let context = stack.privateContext()
        // Both objects are held here, as a list would hold them: a registered object
        // nobody holds is released, in Core Data as here, and is not there to invalidate.
        let (saved, unsaved): (Sample, Sample) = try context.performAndWait {
            let s = Sample(context: context)
            s.name = "saved"
            try context.save()
            let fresh = Sample(context: context)
            fresh.name = "unsaved"
            context.processPendingChanges()
            return (s, fresh)
        }
        let posted = Posted(observing: context)

        let held = (saved: saved.objectID, unsaved: unsaved.objectID)
        context.performAndWait { context.reset() }

        let notes = posted.notes
        #expect(notes.count == 1, "one objects-did-change for the reset")
        let note = try #require(notes.first)
        let ids = try #require(note.invalidatedAll, "an array of objectIDs under invalidatedAllObjects")
        #expect(Set(ids) == [held.saved, held.unsaved], "every registered object, saved or not")
        #expect(note.keys == [ManagedObjectContext.NotificationKey.invalidatedAllObjects.rawValue])
        context.performAndWait { #expect(!context.hasChanges) }
    }

    @Test func aResetWithNothingRegisteredStillSaysEverythingIsGone() throws {
        let stack = try TestStack()
        let context = stack.privateContext()
        let posted = Posted(observing: context)
        context.performAndWait { context.reset() }
        #expect(posted.notes.map(\.invalidatedAll) == [[]])
    }
}

/// The objects-did-change notifications a context posts, as Sendable values.
private final class Posted: Sendable {
    struct Note: Sendable, Equatable {
        var keys: [String]
        var invalidatedAll: [ManagedObjectID]?
    }
    private final class Recorded: Sendable { let notes = Mutex<[Note]>([]) }
    private let recorded = Recorded()
    private let observer: LockedObserver

    init(observing context: ManagedObjectContext) {
        let recorded = self.recorded
        observer = LockedObserver(NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.didChangeObjectsNotification, object: context, queue: nil
        ) { notification in
            let info = notification.userInfo ?? [:]
            let note = Note(
                keys: info.keys.compactMap { $0 as? String }.sorted(),
                invalidatedAll: info[ManagedObjectContext.NotificationKey.invalidatedAllObjects.rawValue] as? [ManagedObjectID])
            recorded.notes.withLock { $0.append(note) }
        })
    }

    var notes: [Note] { recorded.notes.withLock { $0 } }

    deinit { NotificationCenter.default.removeObserver(observer.token) }
}

/// The observer token, which Foundation does not mark Sendable; only removed in deinit.
private struct LockedObserver: @unchecked Sendable {
    let token: any NSObjectProtocol
    init(_ token: any NSObjectProtocol) { self.token = token }
}
