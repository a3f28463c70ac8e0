//
//  NotebookStore.swift
//  The app's stack: a container, a selector-based save observer, a sync client.
//

import Foundation
import CoreData

final class NotebookStore {
    let container: NSPersistentContainer
    private(set) var savesSeen = 0
    let session = URLSession(configuration: .ephemeral)

    init(container: NSPersistentContainer) {
        self.container = container
        NotificationCenter.default.addObserver(
            self,
            selector: #selector(contextDidSave(_:)),
            name: NSManagedObjectContext.didSaveObjectsNotification,
            object: nil)
    }

    deinit {
        NotificationCenter.default.removeObserver(self)
    }

    @objc func contextDidSave(_ notification: Notification) {
        savesSeen += 1
    }

    /// Imports notes on a background context and tells the caller on the main queue. The
    /// ordering bug `ctxdebug explore` finds: the hop is queued before the save, so the
    /// completion may run while the notes are not in the store yet.
    func importNotes(_ titles: [String], completion: @escaping @Sendable () -> Void) {
        let context = container.newBackgroundContext()
        context.perform {
            for title in titles {
                let imported = Note(context: context)
                imported.title = title
            }
            DispatchQueue.main.async(execute: completion)
            try? context.save()
        }
    }

    /// Reads a note's title off its context's queue: the bug the checker catches.
    func titleFromAnyThread(_ note: Note) -> String? {
        note.title
    }
}
