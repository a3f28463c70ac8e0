import CoreData
import XCTest

final class CoreDataStackTests: XCTestCase {
    var stack: CoreDataStack!

    override func setUp() {
        super.setUp()
        let model = NSManagedObjectModel.mergedModel(from: [Bundle(for: CoreDataStackTests.self)])!
        stack = CoreDataStack(coordinator: NSPersistentStoreCoordinator(managedObjectModel: model))
    }

    // context-without-perform, the bug: the objects are fetched inside performAndWait,
    // then read after it, on the test's thread (the main thread).
    func testBackgroundFetch() {
        let bgContext = stack.backgroundContext
        let request = NSFetchRequest<Employee>(entityName: "Employee")
        var results: [Employee] = []
        bgContext.performAndWait {
            results = try! bgContext.fetch(request)
        }
        XCTAssertEqual(results.first?.name, "Jessica") // expect: context-without-perform
    }

    // The correct twin: the values are read inside performAndWait.
    func testBackgroundFetchFixed() {
        let bgContext = stack.backgroundContext
        var names: [String] = []
        bgContext.performAndWait {
            let results = try! bgContext.fetch(NSFetchRequest<Employee>(entityName: "Employee"))
            names = results.map { $0.name }
        }
        XCTAssertEqual(names.first, "Jessica")
    }

    // Another correct twin: the main context, on the main thread.
    func testMainFetch() {
        let results = try! stack.mainContext.fetch(NSFetchRequest<Employee>(entityName: "Employee"))
        XCTAssertEqual(results.first?.name, "Jessica")
    }
}
