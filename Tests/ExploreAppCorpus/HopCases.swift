import Dispatch
import Foundation
import ManagedContext

/// The main thread parked in dispatchMain(), background work on contexts, and the UI
/// told on the main queue, as the chapter's export ends with
/// `DispatchQueue.main.async { self.showExportFinishedAlertView(...) }`.
enum HopCases {
    static let all: [AppCase] = [
        AppCase(
            name: "main-hop-before-save",
            summary: "an import's completion hops to the main queue from inside its perform, before the save that it reports",
            run: { completionHop(afterSave: false) }),
        AppCase(
            name: "main-hop-before-save-fixed",
            summary: "the completion hops after the save",
            run: { completionHop(afterSave: true) }),
        AppCase(
            name: "semaphore-handoff",
            summary: "a background import signals the waiting main thread before its save",
            run: { semaphoreHandoff(signalAfterSave: false) }),
        AppCase(
            name: "semaphore-handoff-fixed",
            summary: "the import signals after its save",
            run: { semaphoreHandoff(signalAfterSave: true) }),
        AppCase(
            name: "debounce-before-save",
            summary: "a search debounced with asyncAfter(0.3 s) runs against an import saving at the same time",
            run: { debounce(afterSave: false) }),
        AppCase(
            name: "debounce-before-save-fixed",
            summary: "the debounce is scheduled from the import's completion",
            run: { debounce(afterSave: true) }),
    ]

    /// Inserts `count` notes in `context` (inside its perform).
    static func insertNotes(_ count: Int, in context: ManagedObjectContext) {
        for index in 0..<count {
            let note = Note(context: context)
            note.title = "note \(index)"
        }
    }

    static func completionHop(afterSave: Bool) -> Never {
        let stack = AppStack()
        stack.seedHistory()
        let importer = stack.newBackgroundContext("importer")
        let view = stack.viewContext
        func importNotes(completion: @escaping @Sendable () -> Void) {
            importer.perform {
                insertNotes(3, in: importer)
                if afterSave {
                    try! importer.save()
                    DispatchQueue.main.async(execute: completion)
                } else {
                    DispatchQueue.main.async(execute: completion)
                    try! importer.save()
                }
            }
        }
        importNotes {
            // Main-queue code: the view context is the main queue's. The list reloads its
            // sections first, then counts what the import added.
            AppStack.browse(view)
            let shown = try! view.fetch(FetchRequest<Note>()).filter { $0.title?.hasPrefix("note ") == true }.count
            finish(shown == 3, "the list showed \(shown) notes after the import of 3 finished", stack: stack)
        }
        dispatchMain()
    }

    static func semaphoreHandoff(signalAfterSave: Bool) -> Never {
        let stack = AppStack()
        stack.seedHistory()
        let ready = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let importer = stack.newBackgroundContext("importer")
            importer.performAndWait {
                insertNotes(2, in: importer)
                if signalAfterSave {
                    try! importer.save()
                    ready.signal()
                } else {
                    ready.signal()
                    try! importer.save()
                }
            }
        }
        ready.wait()
        let reader = stack.newBackgroundContext("screen")
        reader.performAndWait { AppStack.browse(reader) }  // the screen refreshes, then counts
        let count = stack.noteCount()
        finish(count == 2, "the main thread read \(count) notes after the import of 2 signalled", stack: stack)
    }

    static func debounce(afterSave: Bool) -> Never {
        let stack = AppStack()
        let view = stack.viewContext
        let importer = stack.newBackgroundContext("importer")
        @Sendable func search() {
            DispatchQueue.main.asyncAfter(deadline: .now() + 0.3) {
                let found = try! view.fetch(FetchRequest<Note>()).filter { $0.title?.hasPrefix("note ") == true }.count
                finish(found == 1, "the debounced search found \(found) notes; the import saved 1", stack: stack)
            }
        }
        if !afterSave { search() }
        importer.perform {
            insertNotes(1, in: importer)
            try! importer.save()
            if afterSave { DispatchQueue.main.async { search() } }
        }
        dispatchMain()
    }
}
