// Our driver for Core Data by Tutorials' SurfJournal (ch. 9, multiple managed object
// contexts): its JournalListViewController's and JournalEntryViewController's flows,
// without UIKit, through its own CoreDataStack, which seeds the store from the app's
// CoreDataSeed on first launch: the entries newest first, the CSV export in a background
// task, and an edit in a child context of the main context, saved through it.
import CoreData
import Foundation

let stack = CoreDataStack(modelName: "SurfJournalModel")
let fetchRequest: NSFetchRequest<JournalEntry> = JournalEntry.fetchRequest()
fetchRequest.sortDescriptors = [NSSortDescriptor(key: "date", ascending: false)]
let controller = NSFetchedResultsController(fetchRequest: fetchRequest, managedObjectContext: stack.mainContext, sectionNameKeyPath: nil, cacheName: nil)
try controller.performFetch()
let seeded = controller.fetchedObjects ?? []
precondition(seeded.count > 0, "the seeded entries")
let dates = seeded.compactMap(\.date)
precondition(dates == dates.sorted(by: >), "newest first")

// The export: every entry's csv() written from a background context.
let exported = DispatchSemaphore(value: 0)
nonisolated(unsafe) var lines = 0
stack.storeContainer.performBackgroundTask { context in
    let results = (try? context.fetch(JournalEntry.fetchRequest() as NSFetchRequest<JournalEntry>)) ?? []
    lines = results.map { $0.csv() }.filter { !$0.isEmpty }.count
    exported.signal()
}
exported.wait()
precondition(lines == seeded.count, "every entry exported")

// A new entry made in a child context of the main context, saved child then parent.
let childContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
childContext.parent = stack.mainContext
let entry = JournalEntry(context: childContext)
entry.date = Date(timeIntervalSince1970: 2_000_000_000)
entry.location = "Scratch"
entry.rating = 5
entry.height = "6ft"
try childContext.save()
stack.saveContext()
let scratch: NSFetchRequest<JournalEntry> = JournalEntry.fetchRequest()
scratch.predicate = NSPredicate(format: "location == %@", "Scratch")
let found = try stack.mainContext.fetch(scratch)
precondition(found.first?.csv().hasPrefix(entry.stringForDate()) == true, "the new entry found by its location")
try controller.performFetch()
precondition(controller.fetchedObjects?.first?.location == "Scratch" && controller.fetchedObjects?.count == seeded.count + 1)
print("SurfJournal: \(seeded.count) seeded entries newest first, exported in the background; an entry saved through a child context")
