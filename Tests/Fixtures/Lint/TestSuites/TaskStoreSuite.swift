import CoreData
import Testing

// Swift Testing runs a @Test function on the main actor only when it is marked so.
struct TaskStoreSuite {
    let store = TaskStore(container: NSPersistentContainer(name: "Tasks"))

    // main-context-off-main-queue, the bug: not @MainActor, so off the main thread.
    @Test func countsTasks() throws {
        let context = store.container.viewContext
        let count = try context.count(for: NSFetchRequest<TaskItem>(entityName: "TaskItem")) // expect: main-context-off-main-queue
        #expect(count == 0)
    }

    // The correct twin.
    @Test @MainActor func countsTasksOnMain() throws {
        let context = store.container.viewContext
        let count = try context.count(for: NSFetchRequest<TaskItem>(entityName: "TaskItem"))
        #expect(count == 0)
    }

    // context-without-perform, the bug: the store's private context, saved straight.
    @Test func savesInBackground() throws {
        let task = TaskItem(context: store.backgroundContext) // expect: context-without-perform
        task.done = true // expect: context-without-perform
        try store.backgroundContext.save() // expect: context-without-perform
    }

    // The correct twin.
    @Test func savesInBackgroundFixed() async throws {
        let context = store.backgroundContext
        try await context.perform {
            let task = TaskItem(context: context)
            task.done = true
            try context.save()
        }
    }
}

// A suite marked @MainActor: its tests run on the main actor. Silent.
@MainActor
struct MainActorSuite {
    let store = TaskStore(container: NSPersistentContainer(name: "Tasks"))

    @Test func countsTasks() throws {
        let count = try store.container.viewContext.count(for: NSFetchRequest<TaskItem>(entityName: "TaskItem"))
        #expect(count == 0)
    }
}
