import Dispatch
import Foundation
import ManagedContext

/// A folder of the conflict cases' own store (the other cases' model has notes only).
final class Folder: ManagedObject {
    @Attribute("title") var title: String? = nil
    @Relationship("notes", inverse: "folder") var notes: Set<FiledNote>
}

final class FiledNote: ManagedObject {
    @Attribute("text") var text: String? = nil
    @Relationship("folder", inverse: "notes") var folder: Folder?
}

/// The conflict-retry shape (issue 50): a context files a note into a folder that another
/// context deletes first; its save conflicts (the `.error` policy: the folder's row is
/// gone) and it retries into the next folder. Setting the note's folder maintains the
/// inverse, which fires the gone folder's fault: Core Data's `shouldDeleteInaccessibleFaults`
/// (true by default) makes it a deleted object, discarded at the next save.
enum ConflictCases {
    static let all: [AppCase] = [
        AppCase(
            name: "conflict-retry-keeps-gone-folder",
            summary: "a save that conflicts with a folder another context deleted is retried into the next folder, the gone one left changed",
            run: { fileNote(refreshesGoneFolder: false) }),
        AppCase(
            name: "conflict-retry-keeps-gone-folder-fixed",
            summary: "the retry first refreshes the folder it conflicted with",
            run: { fileNote(refreshesGoneFolder: true) }),
        // Not a bug of the corpus (the script skips probe- programs): the fixed twin with
        // Core Data's default turned off, the runtime as it was before it had it. Explore
        // finds it failing where the other context deletes the folder first.
        AppCase(
            name: "probe-conflict-retry-faults-kept",
            summary: "the fixed twin with shouldDeleteInaccessibleFaults off: the gone folder's fault stays, and every retry conflicts",
            run: { fileNote(refreshesGoneFolder: true, deletesInaccessibleFaults: false) }),
    ]

    static func fileNote(refreshesGoneFolder: Bool, deletesInaccessibleFaults: Bool = true) -> Never {
        let directory = NSTemporaryDirectory() + "/ctxdebug-app-corpus-folders-\(getpid())-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [Folder.self, FiledNote.self]))
        try! coordinator.addPersistentStore(at: URL(fileURLWithPath: directory + "/Folders.sqlite"))
        func context(_ name: String) -> ManagedObjectContext {
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            context.name = name
            return context
        }
        let seed = context("seed")
        let folders = seed.performAndWait {
            let made = ["Archive", "Later", "Inbox"].map { title -> Folder in
                let folder = Folder(context: seed)
                folder.title = title
                return folder
            }
            try! seed.save()
            return made.map(\.objectID)
        }
        let filer = context("filer")
        filer.shouldDeleteInaccessibleFaults = deletesInaccessibleFaults
        let cleaner = context("cleaner")
        cleaner.mergePolicy = .mergeByPropertyObjectTrump  // its delete wins over the note filed there meanwhile
        let end = DispatchGroup()
        end.enter()
        nonisolated(unsafe) var attempts = 0
        nonisolated(unsafe) var saved = false
        filer.perform {
            let note = FiledNote(context: filer)
            note.text = "to file"
            for folderID in folders {
                attempts += 1
                let folder = filer.object(with: folderID) as! Folder  // a fault: the app filed by objectID
                note.folder = folder
                do {
                    try filer.save()
                    saved = true
                    break
                } catch let error as ManagedContextError where error.code == .mergeConflict {
                    if refreshesGoneFolder { filer.refresh(folder, mergeChanges: false) }
                } catch {
                    break
                }
            }
            end.leave()
        }
        cleaner.perform {
            guard let archive = try? cleaner.existingObject(with: folders[0]) else { return }
            cleaner.delete(archive)
            try? cleaner.save()
        }
        end.notify(queue: .main) {
            let reader = context("reader")
            let filed = reader.performAndWait { try! reader.fetch(FetchRequest<FiledNote>()).count }
            try? FileManager.default.removeItem(atPath: directory)
            if !saved || filed != 1 {
                FileHandle.standardError.write(Data(
                    "assertion failed: the note was not filed: \(attempts) saves, \(filed) notes in the store\n".utf8))
                exit(1)
            }
            exit(0)
        }
        dispatchMain()
    }
}
