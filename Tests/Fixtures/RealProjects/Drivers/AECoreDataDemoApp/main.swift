// Our driver for tadija/AECoreDataDemo, the demo app of AERecord: its Event class and model
// on AERecord's default stack (an SQLite store in Documents), as its AppDelegate,
// MasterViewController and DetailViewController use them: events added with
// auto-incremented ids, the list kept by a fetched results controller on the default
// (main) context, a row selected (the previous one deselected), "Add Few", "Update All" (a
// batch update in the store, then the objects refreshed), a row deleted with an
// asynchronous save, an event saved on the background context and merged into the main
// one, then "Delete All"; what the store holds is read by a coordinator of our own.
import AERecord
import CoreData
import Foundation

/// Runs the main run loop until `done` is signalled.
func runMainQueue(until done: DispatchSemaphore) {
    while done.wait(timeout: .now()) == .timedOut { RunLoop.main.run(until: Date().addingTimeInterval(0.01)) }
}

/// Lets the blocks already queued on `context` run (an asynchronous save, a merge).
func drain(_ context: NSManagedObjectContext) {
    let done = DispatchSemaphore(value: 0)
    context.perform { done.signal() }
    runMainQueue(until: done)
}

/// The events the store holds, by id, read by a coordinator of ours.
func storedIDs() throws -> [Int] {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Stack.defaultModel)
    try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: Stack.defaultURL, options: nil)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return try context.performAndWait {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Event")
        request.sortDescriptors = [NSSortDescriptor(key: "id", ascending: true)]
        return try context.fetch(request).map { ($0.value(forKey: "id") as! NSNumber).intValue }
    }
}

try AERecord.loadCoreDataStack()  // AppDelegate
precondition(AERecord.Context.default === AERecord.Context.main, "the main thread's context")

// MasterViewController.refreshFetchedResultsController.
let request = Event.createFetchRequest(sortDescriptors: [NSSortDescriptor(key: "id", ascending: true)])
let frc = NSFetchedResultsController(fetchRequest: request, managedObjectContext: AERecord.Context.default,
                                     sectionNameKeyPath: nil, cacheName: nil)
func listedIDs() throws -> [Int] {
    try frc.performFetch()
    return (frc.fetchedObjects ?? []).map { ($0 as! Event).id }
}

// insertNewObject, three taps.
for _ in 0..<3 {
    let id = Event.autoIncrementedInteger(for: "id")
    Event.create(with: ["id": id, "timeStamp": NSDate()])
    AERecord.saveAndWait()
}
let firstIDs = try listedIDs()
precondition(firstIDs == [0, 1, 2], "ids from 0 (autoIncrementedInteger of an empty store): \(firstIDs)")

// didSelectRow: select the second, then the third (the second deselected).
for row in [1, 2] {
    let event = frc.object(at: IndexPath(row: row, section: 0)) as! Event
    if let previous: Event = Event.first(with: "selected", value: true) { previous.selected = false }
    event.selected = true
    AERecord.saveAndWait()
}
let selected = (Event.all(with: "selected", value: true) as? [Event])?.map(\.id)
precondition(selected == [2], "one selected row: \(String(describing: selected))")

// DetailViewController: "Add Few".
for _ in 1...5 {
    let id = Event.autoIncrementedInteger(for: "id")
    Event.create(with: ["id": id, "timeStamp": NSDate()])
}
AERecord.saveAndWait()
let afterFew = try listedIDs()
precondition(afterFew == Array(0...7), "\(afterFew)")

// "Update All": a batch update in the store, the registered objects refreshed.
let updated = NSDate(timeIntervalSinceReferenceDate: 800_000_000)
Event.batchUpdateAndRefreshObjects(properties: ["timeStamp": updated])
_ = try listedIDs()
precondition((frc.fetchedObjects as! [Event]).allSatisfy { $0.timeStamp == updated }, "the refreshed objects read the batch's value")

// Delete the first row, saved asynchronously.
(frc.object(at: IndexPath(row: 0, section: 0)) as! Event).delete()
AERecord.save()
drain(AERecord.Context.main)
let afterDelete = try storedIDs()
precondition(afterDelete == Array(1...7), "\(afterDelete)")

// A background thread's default context is the background one; its save is merged into main.
let savedInBackground = DispatchSemaphore(value: 0)
Thread.detachNewThread {
    let context = AERecord.Context.default
    precondition(context === AERecord.Context.background)
    context.performAndWait {
        let id = Event.autoIncrementedInteger(for: "id", in: context)
        Event.create(with: ["id": id, "timeStamp": NSDate()], in: context)
    }
    AERecord.saveAndWait(context: context)
    savedInBackground.signal()
}
runMainQueue(until: savedInBackground)
drain(AERecord.Context.main)
precondition(Event.count() == 8 && Event.first(orderedBy: "id", ascending: false)?.id == 8, "the background event, merged")

// "Delete All".
Event.deleteAll()
AERecord.saveAndWait()
let afterAll = try storedIDs()
precondition(afterAll.isEmpty && Event.count() == 0, "\(afterAll)")
print("AECoreDataDemo: 9 events added (one from a background thread, merged), one selected, batch-updated and refreshed, deleted one and then all; the store read back at each step")
