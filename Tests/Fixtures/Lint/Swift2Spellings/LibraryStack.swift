import CoreData
import Foundation

// Swift 2 spelled Core Data's API as its Objective-C selectors, which Swift 3 renamed
// (SE-0005): `performBlockAndWait` is `performAndWait`, `executeFetchRequest` is
// `fetch`, `mergeChangesFromContextDidSaveNotification` is `mergeChanges`, a selector
// was a string. Lint reads both spellings as the same API.
class LibraryStack: NSObject {
    let mainContext = NSManagedObjectContext(concurrencyType: .MainQueueConcurrencyType)
    let backgroundContext = NSManagedObjectContext(concurrencyType: .PrivateQueueConcurrencyType)

    override init() {
        super.init()
        backgroundContext.parentContext = mainContext
        NSNotificationCenter.defaultCenter().addObserver(
            self, selector: "backgroundContextDidSave:", name: NSManagedObjectContextDidSaveNotification, object: backgroundContext)
        NSNotificationCenter.defaultCenter().addObserver(
            self, selector: "mainContextDidSave:", name: NSManagedObjectContextDidSaveNotification, object: mainContext)
    }

    // merge-off-queue, the bug: the did-save observer runs on the saving context's
    // thread, and merges into the main-queue context there.
    func backgroundContextDidSave(notification: NSNotification) {
        mainContext.mergeChangesFromContextDidSaveNotification(notification) // expect: merge-off-queue
    }

    // The correct twin: the merge inside the merging context's performBlock.
    func mainContextDidSave(notification: NSNotification) {
        backgroundContext.performBlock {
            self.backgroundContext.mergeChangesFromContextDidSaveNotification(notification)
        }
    }

    // context-without-perform, the bug: a context made here, fetched from straight.
    func countBooks() -> Int {
        let scratch = NSManagedObjectContext(concurrencyType: .PrivateQueueConcurrencyType)
        let request = NSFetchRequest(entityName: "Book")
        return scratch.countForFetchRequest(request, error: nil) // expect: context-without-perform
    }

    // The correct twin: inside performBlockAndWait.
    func countBooksFixed() -> Int {
        let scratch = NSManagedObjectContext(concurrencyType: .PrivateQueueConcurrencyType)
        var count = 0
        scratch.performBlockAndWait {
            count = scratch.countForFetchRequest(NSFetchRequest(entityName: "Book"), error: nil)
        }
        return count
    }
}
