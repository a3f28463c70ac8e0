import Dispatch
import Foundation
import ManagedContext

/// libdispatch's other primitives, as apps use them: a reader/writer cache on a
/// concurrent queue, serial queues that share a target, `concurrentPerform`, and a
/// debounce with a `DispatchSourceTimer`.
enum PrimitiveCases {
    static let all: [AppCase] = [
        AppCase(
            name: "barrier-cache-dirty-read",
            summary: "a note-count cache on a concurrent queue is refreshed by a plain async block; the list reads it with sync mid-refresh",
            run: { cacheRefresh(barrier: false) }),
        AppCase(
            name: "barrier-cache-dirty-read-fixed",
            summary: "the refresh is a barrier block (.async(flags: .barrier))",
            run: { cacheRefresh(barrier: true) }),
        AppCase(
            name: "target-queue-lost-update",
            summary: "two sync engines, each on a serial queue of its own, read-import-write one shared ledger",
            run: { sharedLedger(targeted: false) }),
        AppCase(
            name: "target-queue-lost-update-fixed",
            summary: "both engines' queues target the ledger's serial queue (one made with target:, one with setTarget(queue:))",
            run: { sharedLedger(targeted: true) }),
        AppCase(
            name: "apply-check-then-insert",
            summary: "concurrentPerform imports a feed with a duplicate key, each iteration checking and inserting on a context of its own",
            run: { applyImport(sharedContext: false) }),
        AppCase(
            name: "apply-check-then-insert-fixed",
            summary: "every iteration checks and inserts in one performAndWait of one shared context",
            run: { applyImport(sharedContext: true) }),
        AppCase(
            name: "timer-debounce-before-save",
            summary: "a search debounced with a DispatchSourceTimer (0.3 s) set at launch runs against an import saving at the same time",
            run: { timerDebounce(afterSave: false) }),
        AppCase(
            name: "timer-debounce-before-save-fixed",
            summary: "the timer is scheduled and resumed from the import's completion",
            run: { timerDebounce(afterSave: true) }),
    ]

    /// The list's note count, cached on a concurrent queue: reads with `sync`, the
    /// refresh with `async` (a barrier, in the fixed twin).
    final class NoteCountCache: @unchecked Sendable {  // `count` is touched on `queue` only
        let queue = DispatchQueue(label: "note-count-cache", attributes: .concurrent)
        /// nil while a refresh is under way.
        var count: Int? = 0
    }

    /// What the list screen read, for the check at the end.
    final class Shown: @unchecked Sendable {  // written once by the list's worker, read after the group
        var count: Int?? = .none
    }

    static func cacheRefresh(barrier: Bool) -> Never {
        let stack = AppStack()
        stack.seedHistory()
        let cache = NoteCountCache()
        let shown = Shown()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            let importer = stack.newBackgroundContext("importer")
            importer.performAndWait {
                HopCases.insertNotes(2, in: importer)
                try! importer.save()
            }
            cache.queue.async(group: group, flags: barrier ? .barrier : []) {
                cache.count = nil  // being refreshed
                let refresher = stack.newBackgroundContext("refresh")
                cache.count = refresher.performAndWait { try! refresher.fetch(FetchRequest<Note>()).count }
            }
        }
        DispatchQueue.global().async(group: group) {
            // The list screen refreshes its own sections first, then reads the cached count.
            let list = stack.newBackgroundContext("list")
            list.performAndWait { AppStack.browse(list, times: 12) }
            shown.count = .some(cache.queue.sync { cache.count })
        }
        group.notify(queue: .main) {
            let read = shown.count ?? nil
            finish(read != nil, "the list read the note count while the cache was being refreshed (nil)", stack: stack)
        }
        dispatchMain()
    }

    /// How many remote notes the sync engines imported, as their ledger says.
    final class Ledger: @unchecked Sendable {  // `imported` is touched on the engines' queues only
        var imported = 0
    }

    static func sharedLedger(targeted: Bool) -> Never {
        let stack = AppStack()
        stack.seedHistory()
        let ledger = Ledger()
        let ledgerQueue = DispatchQueue(label: "ledger")
        let engineA = targeted ? DispatchQueue(label: "sync-a", target: ledgerQueue) : DispatchQueue(label: "sync-a")
        let engineB = DispatchQueue(label: "sync-b", attributes: .initiallyInactive)
        if targeted { engineB.setTarget(queue: ledgerQueue) }
        engineB.activate()
        let group = DispatchGroup()
        for (name, queue) in [("a", engineA), ("b", engineB)] {
            queue.async(group: group) {
                let importer = stack.newBackgroundContext(name)
                // b's screen refreshes its list first.
                if name == "b" { importer.performAndWait { AppStack.browse(importer, times: 12) } }
                let before = ledger.imported
                importer.performAndWait {
                    Note(context: importer).title = "remote \(name)"
                    try! importer.save()
                }
                ledger.imported = before + 1
            }
        }
        group.notify(queue: .main) {
            let imported = ledgerQueue.sync { ledger.imported }
            finish(imported == 2, "the ledger says \(imported) notes were imported; the engines imported 2", stack: stack)
        }
        dispatchMain()
    }

    static func applyImport(sharedContext: Bool) -> Never {
        let stack = AppStack()
        stack.seedHistory()
        let feed = ["remote-1", "remote-2", "remote-3", "remote-1"]  // the feed repeats a record
        let shared = stack.newBackgroundContext("importer")
        DispatchQueue.concurrentPerform(iterations: feed.count) { index in
            let key = feed[index]
            let importer = sharedContext ? shared : stack.newBackgroundContext("importer-\(index)")
            importer.performAndWait {
                // The repeated record's worker refreshes its list first.
                if index == feed.count - 1 { AppStack.browse(importer, times: 12) }
                let known = try! importer.fetch(FetchRequest<Note>()).contains { $0.title == key }
                if !known {
                    Note(context: importer).title = key
                    try! importer.save()
                }
            }
        }
        let count = stack.stored { context in try context.fetch(FetchRequest<Note>()).filter { $0.title == "remote-1" }.count }
        finish(count == 1, "remote-1 was imported \(count) times", stack: stack)
    }

    /// A search field's debounce, as view models keep one: a timer source on the main queue.
    final class SearchDebouncer: @unchecked Sendable {  // a libdispatch object, thread-safe; used from main-queue code
        let timer = DispatchSource.makeTimerSource(queue: .main)

        func schedule() {
            timer.schedule(deadline: .now() + 0.3)
            timer.resume()
        }
    }

    static func timerDebounce(afterSave: Bool) -> Never {
        let stack = AppStack()
        let view = stack.viewContext
        let importer = stack.newBackgroundContext("importer")
        let debounce = SearchDebouncer()
        debounce.timer.setEventHandler {
            let found = try! view.fetch(FetchRequest<Note>()).filter { $0.title?.hasPrefix("note ") == true }.count
            finish(found == 1, "the debounced search found \(found) notes; the import saved 1", stack: stack)
        }
        @Sendable func search() { debounce.schedule() }
        if !afterSave { search() }
        importer.perform {
            HopCases.insertNotes(1, in: importer)
            try! importer.save()
            if afterSave { DispatchQueue.main.async { search() } }
        }
        dispatchMain()
    }
}
