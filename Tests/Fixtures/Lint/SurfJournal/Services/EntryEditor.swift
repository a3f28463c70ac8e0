import CoreData
import Foundation

/// Edits an entry in a scratchpad context, a child of the main context.
final class EntryEditor {
    let coreDataStack: CoreDataStack

    init(coreDataStack: CoreDataStack) {
        self.coreDataStack = coreDataStack
    }

    lazy var editContext: NSManagedObjectContext = {
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.parent = coreDataStack.mainContext
        return context
    }()

    // child-save-not-propagated, the bug: the edit reaches the main context and stops there.
    func commit() {
        try? editContext.save() // expect: child-save-not-propagated
    }

    // child-save-not-propagated, the correct twin: the stack saves the parent.
    func commitFixed() {
        try? editContext.save()
        coreDataStack.saveContext()
    }
}

/// An importer written before iOS 9.
final class LegacyImporter {
    // confinement-type, the bugs.
    let scratchContext = NSManagedObjectContext() // expect: confinement-type
    let threadContext = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType) // expect: confinement-type

    // confinement-type, the correct twin.
    let workContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
}
