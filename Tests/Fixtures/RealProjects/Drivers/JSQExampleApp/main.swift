// Our driver for jessesquires/JSQCoreDataKit's example app: its ExampleModel framework on a
// stack made by CoreDataStackProvider on its SQLite store, as CompanyViewController and
// EmployeeViewController use them: the stack created on a background queue, companies and
// employees added on the main context (saveSync), the list kept by a fetched results
// controller, the background context merging what the main context saved, the companies
// deleted in a private child of the background context (saved up the chain by the stack,
// employees cascading), and the stack reset (store destroyed and added again).
import CoreData
import ExampleModel
import Foundation
import JSQCoreDataKit

/// Runs the main run loop until `done` is signalled: the stack calls back on the main queue.
func runMainQueue(until done: DispatchSemaphore) {
    while done.wait(timeout: .now()) == .timedOut { RunLoop.main.run(until: Date().addingTimeInterval(0.01)) }
}

/// Lets the blocks already queued on `context` run (a merge, a parent's saveAsync).
func drain(_ context: NSManagedObjectContext) {
    let done = DispatchSemaphore(value: 0)
    context.perform { done.signal() }
    runMainQueue(until: done)
}

func makeStack() -> CoreDataStack {
    let model = CoreDataModel(name: modelName, bundle: modelBundle)
    let created = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: CoreDataStack.StackResult?
    CoreDataStackProvider(model: model).createStack { stackResult in
        result = stackResult
        created.signal()
    }
    runMainQueue(until: created)
    switch result! {
    case .success(let stack): return stack
    case .failure(let error): preconditionFailure("Error creating stack: \(error)")
    }
}

/// The collection view's data source, as the FetchedResultsCoordinator keeps it: what changed.
final class ChangeCounter: NSObject, NSFetchedResultsControllerDelegate {
    var inserted = 0, deleted = 0
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
                    at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        switch type {
        case .insert: inserted += 1
        case .delete: deleted += 1
        default: break
        }
    }
}

let stack = makeStack()
let companies = NSFetchedResultsController(fetchRequest: Company.fetchRequest, managedObjectContext: stack.mainContext,
                                           sectionNameKeyPath: nil, cacheName: nil)
let counter = ChangeCounter()
companies.delegate = counter
try companies.performFetch()
precondition(companies.fetchedObjects?.isEmpty == true, "a new store")

// CompanyViewController.addAction, three taps; EmployeeViewController.addAction, two for the first.
for _ in 0..<3 {
    stack.mainContext.performAndWait {
        _ = Company.newCompany(stack.mainContext)
        stack.mainContext.saveSync()
    }
}
let first = companies.fetchedObjects![0]
for _ in 0..<2 {
    stack.mainContext.performAndWait {
        _ = Employee.newEmployee(stack.mainContext, company: first)
        stack.mainContext.saveSync()
    }
}
precondition(counter.inserted == 3 && companies.fetchedObjects?.count == 3, "the controller saw 3 inserts: \(counter.inserted)")
let profits = companies.fetchedObjects!.map(\.profits)
precondition(profits == profits.sorted { $0.compare($1) != .orderedDescending }, "by profits, then name")
let employeesOfFirst = try stack.mainContext.fetch(Employee.fetchRequest(for: first)).count
precondition(employeesOfFirst == 2, "\(employeesOfFirst)")

// The background context merged the main context's saves.
drain(stack.backgroundContext)
let inBackground = try stack.backgroundContext.performAndWait {
    (try stack.backgroundContext.count(for: Company.fetchRequest), try stack.backgroundContext.count(for: Employee.fetchRequest))
}
precondition(inBackground == (3, 2), "\(inBackground)")

// CompanyViewController.deleteAction: a private child of the background context; the stack
// saves the background context when the child saves, and the main context merges that.
let child = stack.childContext(concurrencyType: .privateQueueConcurrencyType)
child.performAndWait {
    let objects = try! child.fetch(Company.fetchRequest)
    for each in objects { child.delete(each) }
    child.saveSync()
}
drain(stack.backgroundContext)
drain(stack.mainContext)
precondition(counter.deleted == 3 && companies.fetchedObjects?.isEmpty == true, "the controller saw 3 deletes: \(counter.deleted)")
let employeesLeft = try stack.mainContext.count(for: Employee.fetchRequest)
precondition(employeesLeft == 0, "the employees cascaded: \(employeesLeft)")

// A second stack on the same file (the next launch) reads the store as the first left it.
let relaunched = makeStack()
let stored = try relaunched.mainContext.performAndWait {
    (try relaunched.mainContext.count(for: Company.fetchRequest), try relaunched.mainContext.count(for: Employee.fetchRequest))
}
precondition(stored == (0, 0), "\(stored)")

// The stack's reset: the store destroyed and added again, the completion on the main queue.
relaunched.mainContext.performAndWait {
    _ = Company.newCompany(relaunched.mainContext)
    relaunched.mainContext.saveSync()
}
let reset = DispatchSemaphore(value: 0)
nonisolated(unsafe) var resetResult: CoreDataStack.StackResult?
relaunched.reset { result in
    resetResult = result
    reset.signal()
}
runMainQueue(until: reset)
if case .failure(let error) = resetResult! { preconditionFailure("reset: \(error)") }
let afterReset = try relaunched.mainContext.count(for: Company.fetchRequest)
precondition(afterReset == 0, "the reset store is empty: \(afterReset)")
print("JSQCoreDataKit: 3 companies and 2 employees saved on the main context and merged into the background one, deleted from a background child (cascading), read back by a second stack; its reset empties the store")
