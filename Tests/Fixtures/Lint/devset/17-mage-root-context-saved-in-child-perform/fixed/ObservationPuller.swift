// The fixed twin of ../bug/ObservationPuller.swift.txt (ngageoint/mage-ios b4e891be):
// the root saving context saves on its own queue.
import CoreData
import Foundation

final class Observation: NSManagedObject {
    @NSManaged var remoteID: String?
}

final class ObservationPuller {
    let rootSavingContext: NSManagedObjectContext

    init(coordinator: NSPersistentStoreCoordinator) {
        rootSavingContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        rootSavingContext.persistentStoreCoordinator = coordinator
    }

    func save(features: [[String: String]], chunkSize: Int = 250) {
        let localContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        localContext.parent = rootSavingContext
        let rootSavingContext = self.rootSavingContext
        localContext.perform {
            var chunks = stride(from: 0, to: features.count, by: chunkSize).map {
                Array(features[$0 ..< min($0 + chunkSize, features.count)])
            }
            while let chunk = chunks.popLast() {
                for feature in chunk {
                    let observation = Observation(context: localContext)
                    observation.remoteID = feature["id"]
                }
                try? localContext.save()
                rootSavingContext.perform {
                    try? rootSavingContext.save()
                }
                localContext.reset()
            }
        }
    }
}
