import Dispatch
import Foundation
import ManagedContext

/// Swift concurrency as apps use it over contexts: `Task { }` and `await perform`.
enum TaskCases {
    static let all: [AppCase] = [
        AppCase(
            name: "task-unawaited-import",
            summary: "a Task imports with await perform; the caller sleeps 50 ms instead of awaiting it, then counts",
            run: { unawaitedImport(awaits: false) }),
        AppCase(
            name: "task-unawaited-import-fixed",
            summary: "the caller awaits the task's value",
            run: { unawaitedImport(awaits: true) }),
        AppCase(
            name: "task-lost-update",
            summary: "two Tasks each await a read-increment-save perform on contexts of their own",
            run: { taskIncrements(oneContext: false) }),
        AppCase(
            name: "task-lost-update-fixed",
            summary: "both Tasks increment through one context, whose queue runs them one after the other",
            run: { taskIncrements(oneContext: true) }),
        AppCase(
            name: "mainactor-reload-before-import",
            summary: "a Task starts an import with await perform and a @MainActor reload of the list without awaiting the import",
            run: { mainActorReload(awaitsImport: false) }),
        AppCase(
            name: "mainactor-reload-before-import-fixed",
            summary: "the reload awaits the import's task first",
            run: { mainActorReload(awaitsImport: true) }),
        AppCase(
            name: "mainactor-test-deferred-save",
            summary: "as a Swift Testing @MainActor test runs (the main thread left for dispatchMain() first): it inserts, defers the save with DispatchQueue.main.async, and awaits an export",
            run: { mainActorTest(savesFirst: false) }),
        AppCase(
            name: "mainactor-test-deferred-save-fixed",
            summary: "the test saves before it awaits the export",
            run: { mainActorTest(savesFirst: true) }),
    ]

    /// The shape of a Swift Testing `@MainActor` test: the process's main thread leaves
    /// through `dispatchMain()` before the first context is made (Swift Testing's entry
    /// point does), so the test's jobs run on the main queue drained by a libdispatch
    /// thread, and the test awaits work that hops back to the main queue.
    static func mainActorTest(savesFirst: Bool) -> Never {
        Task { @MainActor in
            let stack = AppStack()
            stack.seedHistory()
            let view = stack.viewContext
            HopCases.insertNotes(1, in: view)
            if savesFirst {
                try! view.save()
            } else {
                DispatchQueue.main.async { try! view.save() }  // the bug: saved after the export starts
            }
            let exporter = stack.newBackgroundContext("exporter")
            let exported = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
                exporter.perform {
                    AppStack.browse(exporter, times: 12)  // the export's screen loads first
                    let count = try! exporter.fetch(FetchRequest<Note>()).filter { $0.title?.hasPrefix("note ") == true }.count
                    DispatchQueue.main.async { continuation.resume(returning: count) }
                }
            }
            finish(exported == 1, "the export held \(exported) of the 1 note saved before it", stack: stack)
        }
        dispatchMain()
    }

    static func mainActorReload(awaitsImport: Bool) -> Never {
        let stack = AppStack()
        stack.seedHistory()
        let importer = stack.newBackgroundContext("importer")
        let view = stack.viewContext
        Task {
            let importing = Task {
                try await importer.perform {
                    HopCases.insertNotes(2, in: importer)
                    try importer.save()
                }
            }
            if awaitsImport { try await importing.value }
            await MainActor.run {
                AppStack.browse(view, times: 12)  // the list's sections load first
                let shown = try! view.fetch(FetchRequest<Note>()).filter { $0.title?.hasPrefix("note ") == true }.count
                finish(shown == 2, "the reloaded list showed \(shown) notes of the 2 imported", stack: stack)
            }
        }
        dispatchMain()
    }

    static func unawaitedImport(awaits: Bool) -> Never {
        let stack = AppStack()
        let importer = stack.newBackgroundContext("importer")
        Task {
            let job = Task {
                try await importer.perform {
                    HopCases.insertNotes(2, in: importer)
                    try importer.save()
                }
            }
            if awaits {
                try await job.value
            } else {
                try await Task.sleep(nanoseconds: 50_000_000)
            }
            let count = stack.noteCount()
            finish(count == 2, "counted \(count) notes after the import of 2", stack: stack)
        }
        dispatchMain()
    }

    static func taskIncrements(oneContext: Bool) -> Never {
        let stack = AppStack()
        stack.seedCounter()
        stack.seedHistory()
        let shared = stack.newBackgroundContext("shared")
        Task {
            let first = Task { let context = oneContext ? shared : stack.newBackgroundContext("a"); await context.perform { AppStack.increment(in: context) } }
            let second = Task {
                let context = oneContext ? shared : stack.newBackgroundContext("b")
                await context.perform {
                    AppStack.browse(context, times: 12)  // b's screen refreshes first
                    AppStack.increment(in: context)
                }
            }
            await first.value
            await second.value
            let value = stack.counterValue()
            finish(value == 2, "two increments left the counter at \(value)", stack: stack)
        }
        dispatchMain()
    }
}
