// The fixed twin of ../bug/LoggerStore.swift.txt (kean/Pulse #259): the target store is
// pruned inside its own context's performAndWait.
import CoreData
import Foundation

final class LoggerMessage: NSManagedObject {
    @NSManaged var level: Int16
}

final class LoggerStore {
    let container: NSPersistentContainer
    let backgroundContext: NSManagedObjectContext

    init(storeURL: URL) {
        container = NSPersistentContainer(name: "LoggerStore")
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: storeURL)]
        container.loadPersistentStores { _, _ in }
        backgroundContext = container.newBackgroundContext()
    }

    private func removeMessages(below level: Int16) throws {
        let request = NSFetchRequest<LoggerMessage>(entityName: "LoggerMessage")
        request.predicate = NSPredicate(format: "level < %d", level)
        for message in try backgroundContext.fetch(request) {
            backgroundContext.delete(message)
        }
        if backgroundContext.hasChanges {
            try backgroundContext.save()
        }
    }

    func export(to url: URL, minimumLevel: Int16) throws {
        try container.persistentStoreCoordinator.replacePersistentStore(
            at: url, withPersistentStoreFrom: container.persistentStoreDescriptions[0].url!, type: .sqlite)
        let target = LoggerStore(storeURL: url)
        target.backgroundContext.performAndWait {
            try? target.removeMessages(below: minimumLevel)
        }
    }
}
