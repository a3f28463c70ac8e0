import CoreData

// A context extension's member that sets another member backed by userInfo uses its
// receiver (a summary of what it does to `self`); one that does it in perform does not.
extension NSManagedObjectContext {
    var encryptionKeys: String? {
        get { userInfo["encryptionKeys"] as? String }
        set { userInfo["encryptionKeys"] = newValue }
    }

    func disableEncryptionAtRest(keys: String) {
        self.encryptionKeys = keys
    }

    func disableEncryptionLater(keys: String) {
        perform { self.encryptionKeys = keys }
    }
}

enum BackupImporter {
    static func markImported(coordinator: NSPersistentStoreCoordinator) {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.disableEncryptionAtRest(keys: "k") // expect: context-without-perform
        context.disableEncryptionLater(keys: "k")
    }

    static func markImportedFixed(coordinator: NSPersistentStoreCoordinator) {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.performAndWait { context.disableEncryptionAtRest(keys: "k") }
    }
}
