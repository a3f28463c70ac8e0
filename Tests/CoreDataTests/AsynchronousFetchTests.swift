import CoreData
import Foundation
import Testing
import TestSupport

/// `NSAsynchronousFetchRequest`, as Core Data by Tutorials' BubbleTeaFinder (chapter 4)
/// uses it: `try context.execute(asyncFetchRequest)` returns at once ("will finish right
/// away", as a 2021 gist that timed it says) and the completion block gets
/// `finalResult` later, in a block on the context's queue.
@Suite struct AsynchronousFetchTests {
    @Test func theCompletionGetsTheResultsInABlockOnTheContextsQueue() throws {
        let dir = TempDirectory("async-fetch")
        let container = try NotesModel.container(in: dir)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for title in ["b", "a"] { Note(context: context).title = title }
            try context.save()
        }
        let request = NSFetchRequest<Note>(entityName: "Note")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var titles: [String?] = []
        nonisolated(unsafe) var sameContext = false
        let asyncRequest = NSAsynchronousFetchRequest<Note>(fetchRequest: request) { result in
            titles = result.finalResult?.map(\.title) ?? []
            sameContext = result.managedObjectContext === context && result.finalResult?.allSatisfy { $0.managedObjectContext === context } == true
            done.signal()
        }
        // The queue is held, so execute must return before the fetch can run.
        let gate = DispatchSemaphore(value: 0)
        context.perform { gate.wait() }
        let returned = try context.execute(asyncRequest) as? NSAsynchronousFetchResult<Note>
        #expect(returned != nil && returned?.finalResult == nil, "execute returns before the fetch runs")
        gate.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(titles == ["a", "b"] && sameContext)
        #expect(returned?.finalResult?.count == 2, "the returned result is the one the completion got")
    }

    @Test func aCancelledRequestNeverCallsItsCompletion() throws {
        let dir = TempDirectory("async-fetch-cancel")
        let container = try NotesModel.container(in: dir)
        let context = container.newBackgroundContext()
        nonisolated(unsafe) var called = false
        let asyncRequest = NSAsynchronousFetchRequest<Note>(fetchRequest: NSFetchRequest<Note>(entityName: "Note")) { _ in called = true }
        let gate = DispatchSemaphore(value: 0)
        context.perform { gate.wait() }
        let result = try #require(try context.execute(asyncRequest) as? NSPersistentStoreAsynchronousResult)
        result.cancel()
        gate.signal()
        context.performAndWait {}  // after the fetch's block, which was queued first
        #expect(!called)
    }

    @Test func aFailedFetchHandsTheErrorToTheCompletion() throws {
        let dir = TempDirectory("async-fetch-error")
        let container = try NotesModel.container(in: dir)
        let context = container.newBackgroundContext()
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var error: (any Error)?
        nonisolated(unsafe) var final: [NSManagedObject]?
        let asyncRequest = NSAsynchronousFetchRequest<NSManagedObject>(fetchRequest: NSFetchRequest(entityName: "NoSuchEntity")) { result in
            error = result.operationError
            final = result.finalResult
            done.signal()
        }
        _ = try context.execute(asyncRequest)
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(final == nil && "\(error.map { "\($0)" } ?? "")".contains("NoSuchEntity"))
    }
}
