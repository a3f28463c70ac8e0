import Foundation
import Testing
@testable import ManagedContext

/// A fault whose row another context deleted and saved: Core Data's
/// `shouldDeleteInaccessibleFaults` (true by default). Apple's documentation: "the context
/// returns a managed object with the following characteristics: The object's attributes
/// … are all set to nil or 0. The object's isDeleted property is set to true, which adds
/// the object to the context's deletedObjects set. The object is exempt from validation
/// rules … and the context discards it when you next call save() or reset()."
@Suite struct InaccessibleFaultTests {
    /// A store with folders `names`, saved; their objectIDs in order.
    static func folders(_ names: [String], in stack: TestStack) throws -> [ManagedObjectID] {
        let seed = stack.privateContext("seed")
        return try seed.performAndWait {
            let folders = names.map { name -> Folder in
                let f = Folder(context: seed)
                f.title = name
                return f
            }
            try seed.save()
            return folders.map(\.objectID)
        }
    }

    static func delete(_ id: ManagedObjectID, in stack: TestStack) throws {
        let other = stack.privateContext("other")
        try other.performAndWait {
            other.delete(try other.existingObject(with: id))
            try other.save()
        }
    }

    @Test("a fault whose row was deleted fires as a deleted object with nil values, and the next save succeeds")
    func firesAsDeleted() throws {
        let stack = try TestStack(model: folderModel)
        let ids = try Self.folders(["Inbox"], in: stack)
        let context = stack.privateContext("reader")
        let folder = context.performAndWait { context.object(with: ids[0]) as! Folder }
        try Self.delete(ids[0], in: stack)
        try context.performAndWait {
            #expect(context.shouldDeleteInaccessibleFaults)
            #expect(folder.title == nil)
            #expect(folder.isDeleted)
            #expect(context.deletedObjects.contains(folder))
            try context.save()
            #expect(!context.hasChanges)
        }
    }

    /// The conflict-retry shape (issue 50): a note is filed into a folder another context
    /// deletes first; the save conflicts; the app refreshes the folder and files the note
    /// into another one. Inverse maintenance fires the gone folder's fault. Core Data turns
    /// it into a deleted object, so the retried save succeeds. Left changed instead, the
    /// folder conflicts at every later save.
    @Test("a save retried into another folder after a conflict with a deleted folder succeeds", arguments: [true, false])
    func conflictRetry(shouldDeleteInaccessibleFaults: Bool) throws {
        let stack = try TestStack(model: folderModel)
        let ids = try Self.folders(["Inbox", "Archive", "Later"], in: stack)
        let context = stack.privateContext("filer")
        context.shouldDeleteInaccessibleFaults = shouldDeleteInaccessibleFaults
        let (note, archive) = try context.performAndWait {
            let note = Note(context: context)
            note.text = "to file"
            note.folder = (try context.existingObject(with: ids[0]) as! Folder)
            try context.save()
            return (note, try context.existingObject(with: ids[1]) as! Folder)
        }
        try Self.delete(ids[1], in: stack)
        var firstError: ManagedContextError?
        context.performAndWait {
            note.folder = archive
            do { try context.save() } catch { firstError = error as? ManagedContextError }
        }
        #expect(firstError?.code == .mergeConflict, "the folder's row is gone: the first save conflicts")
        var retryError: ManagedContextError?
        context.performAndWait {
            context.refresh(archive, mergeChanges: false)
            note.folder = (try? context.existingObject(with: ids[2])) as? Folder
            do { try context.save() } catch { retryError = error as? ManagedContextError }
        }
        if shouldDeleteInaccessibleFaults {
            #expect(retryError == nil, "\(String(describing: retryError))")
            #expect(context.performAndWait { archive.isDeleted || archive.managedObjectContext == nil })
            let reader = stack.privateContext("check")
            try reader.performAndWait {
                let filed = try reader.fetch(FetchRequest<Note>()).first
                #expect(filed?.folder?.title == "Later")
            }
        } else {
            #expect(retryError?.code == .mergeConflict, "left changed, the gone folder conflicts again")
        }
    }
}
