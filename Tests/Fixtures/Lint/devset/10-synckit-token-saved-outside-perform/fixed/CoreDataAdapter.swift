// The fixed twin of ../bug/CoreDataAdapter.swift.txt (mentrena/SyncKit 669d866): the
// token is fetched, set and saved inside the private context's performAndWait.
import CloudKit
import CoreData
import Foundation

final class ServerToken: NSManagedObject {
    @NSManaged var token: Data?
}

final class CoreDataAdapter {
    let privateContext: NSManagedObjectContext

    init(coordinator: NSPersistentStoreCoordinator) {
        privateContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        privateContext.persistentStoreCoordinator = coordinator
    }

    func saveToken(_ token: CKServerChangeToken?) {
        privateContext.performAndWait {
            let request = NSFetchRequest<ServerToken>(entityName: "ServerToken")
            request.fetchLimit = 1
            let stored = (try? privateContext.fetch(request))?.first ?? ServerToken(context: privateContext)
            stored.token = token.flatMap { try? NSKeyedArchiver.archivedData(withRootObject: $0, requiringSecureCoding: true) }
            try? privateContext.save()
        }
    }
}

final class CloudKitSynchronizer {
    let adapter: CoreDataAdapter
    let database = CKContainer.default().privateCloudDatabase

    init(adapter: CoreDataAdapter) {
        self.adapter = adapter
    }

    func fetchChanges(in zone: CKRecordZone.ID) {
        let operation = CKFetchRecordZoneChangesOperation(recordZoneIDs: [zone], configurationsByRecordZoneID: [:])
        operation.recordZoneChangeTokensUpdatedBlock = { _, token, _ in
            self.adapter.saveToken(token)
        }
        database.add(operation)
    }
}
