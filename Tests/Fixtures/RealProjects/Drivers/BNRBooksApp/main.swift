// Our driver for bignerdranch/CoreDataStack's example app: its SQLite stack on the
// UniqueConstraintModel (a Book's title is unique), with the Book and Author classes and
// the stubbed titles its Xcode target compiles, as its AppDelegate and
// BooksTableViewController use them: the stack constructed asynchronously, the 100 titles
// seeded in a child context from the setup callback (the save bubbling up through the main
// queue context to the private root), the books listed by a fetched results controller by
// title and grouped by first initial; then the next launch seeding the same titles again, which the
// uniqueness constraint and the root's store-trump merge policy turn into no new row.
import CoreData
import CoreDataStack
import Foundation

final class Box<Value> { var value: Value?; init() {} }

/// Runs the main run loop until `done` is signalled: saves bubble through the main queue.
func runMainQueue(until done: DispatchSemaphore) {
    while done.wait(timeout: .now()) == .timedOut { RunLoop.main.run(until: Date().addingTimeInterval(0.01)) }
}

/// Lets the blocks already queued on `context` run (the stack's bubbling saveContext).
func drain(_ context: NSManagedObjectContext) {
    let done = DispatchSemaphore(value: 0)
    context.perform { done.signal() }
    runMainQueue(until: done)
}

/// AppDelegate.seedInitialData.
func seedInitialData(_ stack: CoreDataStack) -> Error? {
    let moc = stack.newChildContext()
    do {
        try moc.performAndWaitOrThrow {
            for bookTitle in StubbedBookData.books {
                let book = Book(managedObjectContext: moc)
                book.title = bookTitle
            }
            try moc.saveContextAndWait()
        }
        return nil
    } catch {
        return error
    }
}

/// AppDelegate.applicationDidFinishLaunching: the stack, seeded from its callback.
func launch() -> CoreDataStack {
    let ready = DispatchSemaphore(value: 0)
    let stack = Box<CoreDataStack>(), seedError = Box<Error>()
    CoreDataStack.constructSQLiteStack(modelName: "UniqueConstraintModel", in: Bundle.module) { result in
        switch result {
        case .success(let made):
            stack.value = made
            seedError.value = seedInitialData(made)
        case .failure(let error):
            preconditionFailure("\(error)")
        }
        ready.signal()
    }
    runMainQueue(until: ready)
    precondition(seedError.value == nil, "seeding: \(String(describing: seedError.value))")
    drain(stack.value!.mainQueueContext)
    drain(stack.value!.privateQueueContext)
    let unsaved = stack.value!.privateQueueContext.performAndWaitOrThrow { stack.value!.privateQueueContext.hasChanges }
    precondition(!unsaved, "the save bubbled up to the store")
    return stack.value!
}

func storedTitles(_ stack: CoreDataStack) throws -> [String] {
    let context = stack.newChildContext()
    return try context.performAndWaitOrThrow {
        let request = NSFetchRequest<Book>(entityName: Book.entityName)
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        return try context.fetch(request).compactMap { $0.title }
    }
}

let stack = launch()
// BooksTableViewController: the books by title, in sections by first initial (its
// FetchedResultsController wraps an NSFetchedResultsController, under #if os(iOS) in the
// library: this is the controller it wraps). Its sectionNameKeyPath, "firstInitial", is a
// computed property of Book that key-value coding reached on iOS only through Swift 3's
// @objc inference (the example's target is Swift 3.0; Book.swift has no @objc), which the
// port does not model: the port gives key-value access to `@objc` properties, as Swift 4
// and later do. So the controller lists the books unsectioned, and the sections are made
// from the same property, called from Swift.
let fetchRequest = NSFetchRequest<Book>(entityName: Book.entityName)
fetchRequest.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
let frc = NSFetchedResultsController(fetchRequest: fetchRequest, managedObjectContext: stack.mainQueueContext,
                                     sectionNameKeyPath: nil, cacheName: nil)
try frc.performFetch()
let listed = frc.fetchedObjects!.compactMap { $0.title }
precondition(listed == StubbedBookData.books.sorted(), "by title, in order")
let sections = Dictionary(grouping: frc.fetchedObjects!, by: { $0.firstInitial ?? "" })
let initials = Set(StubbedBookData.books.map { String($0.first!) })
precondition(Set(sections.keys) == initials, "\(sections.count) sections for \(initials.count) initials")
let firstTitles = try storedTitles(stack)
precondition(firstTitles.count == 100, "100 books in the store: \(firstTitles.count)")

// The next launch seeds the same 100 titles: the constraint keeps one row per title.
let relaunched = launch()
let titles = try storedTitles(relaunched)
precondition(titles.count == 100 && Set(titles) == Set(StubbedBookData.books), "one row per title: \(titles.count)")
print("bignerdranch CoreDataStack: 100 books seeded through a child context, listed in \(sections.count) sections by initial; seeding again on the next launch adds no row (unique titles)")
