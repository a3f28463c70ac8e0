import Foundation
import GRDB
import Testing
@testable import ManagedContext

final class Folder: ManagedObject {
    @Attribute("title") var title: String?
    @Relationship("notes", inverse: "folder") var notes: Set<Note>
}

final class Note: ManagedObject {
    @Attribute("text") var text: String?
    @Relationship("folder", inverse: "notes") var folder: Folder?
}

let folderModel = ManagedObjectModel(entities: [Folder.self, Note.self])

/// Issue 27: setting a to-one maintains its inverse, so the destination of a to-one
/// whose inverse is to-many changes too, and the save checks its row version.
///
/// Core Data: changing the objects on the "many" side of a one-to-many "results in a
/// new version of the object on the 'one' side, even when nothing else on the 'one'
/// side has changed" ("When do Core Data merge conflicts occur, exactly?", Stack
/// Overflow, question 31315112); attaching a row to another "enlists that [object] in
/// the save's optimistic locking", and a racing update fails the save with "Could not
/// merge changes" (NSCocoaErrorDomain 133020) under the default error policy
/// (kasianov-mikhail/scout pull request 1167). A conflict whose "new version number
/// of 0 means the object was deleted" (NSMergeConflict.newVersionNumber, Apple's
/// documentation) is such a conflict.
@Suite struct InverseRelationshipTests {
    /// A store holding one saved folder, and its objectID.
    private func savedFolder() throws -> (TestStack, ManagedObjectID) {
        let stack = try TestStack(model: folderModel)
        let seed = stack.privateContext("seed")
        let id: ManagedObjectID = try seed.performAndWait {
            let folder = Folder(context: seed)
            folder.title = "Inbox"
            try seed.save()
            return folder.objectID
        }
        return (stack, id)
    }

    @Test func settingAToOneUpdatesItsToManyDestination() throws {
        let (stack, folderID) = try savedFolder()
        let sheet = stack.privateContext("sheet")
        try sheet.performAndWait {
            let folder = try sheet.existingObject(with: folderID) as! Folder
            #expect(!folder.isUpdated)
            let note = Note(context: sheet)
            note.folder = folder
            #expect(folder.isUpdated, "the inverse to-many changed")
            #expect(sheet.updatedObjects.contains(folder))
            let changed = folder.changedValues()
            #expect(Array(changed.keys) == ["notes"], "\(changed)")
            #expect((changed["notes"] as? Set<ManagedObject>) == [note], "\(changed)")
            #expect(folder.notes == [note])
        }
    }

    @Test func movingAToOneUpdatesBothDestinations() throws {
        let (stack, firstID) = try savedFolder()
        let sheet = stack.privateContext("sheet")
        try sheet.performAndWait {
            let first = try sheet.existingObject(with: firstID) as! Folder
            let second = Folder(context: sheet)
            let note = Note(context: sheet)
            note.folder = second
            try sheet.save()
            #expect(!first.isUpdated && !second.isUpdated)
            note.folder = first
            #expect(first.isUpdated && second.isUpdated && note.isUpdated)
            #expect(Array(second.changedValues().keys) == ["notes"])
            #expect(second.notes.isEmpty && first.notes == [note])
        }
    }

    /// The issue's program: the folder was deleted by another context and saved; a new
    /// note set to it must not be saved with a foreign key to a row that is gone.
    @Test func aToOneToAnObjectAnotherContextDeletedIsAMergeConflict() throws {
        let (stack, folderID) = try savedFolder()
        let sheet = stack.privateContext("sheet"), sync = stack.privateContext("sync")
        let folder = try sheet.performAndWait { try sheet.existingObject(with: folderID) as! Folder }
        try sync.performAndWait {
            sync.delete(try sync.existingObject(with: folderID))
            try sync.save()
        }
        let error = sheet.performAndWait { () -> ManagedContextError? in
            let note = Note(context: sheet)
            note.text = "dangling"
            note.folder = folder
            #expect(folder.isUpdated)
            do {
                try sheet.save()
                return nil
            } catch let error as ManagedContextError {
                return error
            } catch {
                Issue.record("unexpected error \(error)")
                return nil
            }
        }
        let thrown = try #require(error, "the save succeeded under the error policy")
        #expect(thrown.code == .mergeConflict, "\(thrown)")
        #expect(thrown.conflicts.map(\.objectID) == [folderID], "\(thrown.conflicts)")
        #expect(thrown.conflicts.first?.newVersion == 0, "a new version of 0: deleted")
        #expect(thrown.conflicts.first?.persistedSnapshot == nil)
        let notes = try stack.rawRead { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZNOTE") }
        #expect(notes == 0, "no note row was written")
        #expect(sheet.performAndWait { sheet.hasChanges }, "the context keeps its changes to retry or roll back")
    }

    /// The twin: nothing deleted, so the save goes through, writes the foreign key,
    /// and gives the folder's row a new version.
    @Test func aToOneToAnObjectNobodyDeletedSaves() throws {
        let (stack, folderID) = try savedFolder()
        let sheet = stack.privateContext("sheet")
        let folder = try sheet.performAndWait { try sheet.existingObject(with: folderID) as! Folder }
        try sheet.performAndWait {
            let note = Note(context: sheet)
            note.text = "kept"
            note.folder = folder
            try sheet.save()
            #expect(!folder.isUpdated && folder.changedValues().isEmpty)
        }
        let rows = try stack.rawRead { db in
            try Row.fetchAll(db, sql: "SELECT ZNOTE.ZFOLDER AS fk, ZFOLDER.Z_PK AS pk, ZFOLDER.Z_OPT AS version FROM ZNOTE, ZFOLDER")
        }
        #expect(rows.count == 1)
        let fk: Int64? = rows.first?["fk"], pk: Int64? = rows.first?["pk"], version: Int64? = rows.first?["version"]
        #expect(fk != nil && fk == pk)
        #expect(version == 2, "the folder's row got a new version")
    }
}
