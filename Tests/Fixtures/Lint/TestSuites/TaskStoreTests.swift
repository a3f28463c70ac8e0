import CoreData
import XCTest

// Tests are code: XCTest calls test methods, setUp and tearDown on the main thread
// (an async test method off it, unless it is @MainActor).
final class TaskStoreTests: XCTestCase {
    var store: TaskStore!
    var context: NSManagedObjectContext!

    override func setUp() {
        super.setUp()
        store = TaskStore(container: NSPersistentContainer(name: "Tasks"))
        context = store.container.newBackgroundContext()
    }

    // context-without-perform, the bug: the test saves the private context straight
    // on the main thread.
    func testSaveTask() throws {
        let task = TaskItem(context: context) // expect: context-without-perform
        task.title = "Write tests" // expect: context-without-perform
        try context.save() // expect: context-without-perform
    }

    // The correct twin.
    func testSaveTaskFixed() throws {
        let context = self.context!
        try context.performAndWait {
            let task = TaskItem(context: context)
            task.title = "Write tests"
            try context.save()
        }
    }

    // context-without-perform, the bug: objects fetched inside performAndWait, read
    // after it on the test's thread.
    func testFetchTitles() {
        var tasks: [TaskItem] = []
        context.performAndWait {
            tasks = (try? context.fetch(NSFetchRequest<TaskItem>(entityName: "TaskItem"))) ?? []
        }
        XCTAssertEqual(tasks.first?.title, "Write tests") // expect: context-without-perform
    }

    // main-context-off-main-queue, the bug: an async test method runs off the main thread.
    func testCountOnView() async throws {
        let count = try store.container.viewContext.count(for: NSFetchRequest<TaskItem>(entityName: "TaskItem")) // expect: main-context-off-main-queue
        XCTAssertEqual(count, 0)
    }

    // The correct twins: @MainActor, or a synchronous test method (on the main thread).
    @MainActor
    func testCountOnViewFixed() async throws {
        let count = try store.container.viewContext.count(for: NSFetchRequest<TaskItem>(entityName: "TaskItem"))
        XCTAssertEqual(count, 0)
    }

    func testCountOnViewSync() throws {
        let count = try store.container.viewContext.count(for: NSFetchRequest<TaskItem>(entityName: "TaskItem"))
        XCTAssertEqual(count, 0)
    }

    // A helper the tests call: silent, its caller could be inside a perform.
    func makeTask(in context: NSManagedObjectContext) -> TaskItem {
        TaskItem(context: context)
    }
}
