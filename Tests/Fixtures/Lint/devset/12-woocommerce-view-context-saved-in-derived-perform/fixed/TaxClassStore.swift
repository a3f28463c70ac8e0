// The fixed twin of ../bug/TaxClassStore.swift.txt (woocommerce/woocommerce-ios
// #1978): the old rows are deleted in the derived context, on its own queue; the view
// storage is not touched there.
import CoreData
import Foundation

final class TaxClass: NSManagedObject {
    @NSManaged var slug: String?
    @NSManaged var name: String?
}

struct TaxClassDTO {
    var slug: String
    var name: String
}

final class StorageManager {
    let container: NSPersistentContainer

    init(container: NSPersistentContainer) {
        self.container = container
    }

    var viewStorage: NSManagedObjectContext { container.viewContext }

    func newDerivedStorage() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.parent = container.viewContext
        return context
    }

    /// Saves the derived storage, then the view storage, each on its own queue.
    func saveDerivedType(derivedStorage: NSManagedObjectContext, _ onCompletion: @escaping () -> Void) {
        derivedStorage.perform {
            try? derivedStorage.save()
            let viewStorage = self.container.viewContext
            viewStorage.perform {
                try? viewStorage.save()
                onCompletion()
            }
        }
    }
}

final class TaxClassStore {
    let storageManager: StorageManager

    init(storageManager: StorageManager) {
        self.storageManager = storageManager
    }

    func upsertStoredTaxClassesInBackground(_ taxClasses: [TaxClassDTO], onCompletion: @escaping () -> Void) {
        let derivedStorage = storageManager.newDerivedStorage()
        derivedStorage.perform {
            self.upsertStoredTaxClasses(taxClasses, in: derivedStorage)
        }
        storageManager.saveDerivedType(derivedStorage: derivedStorage) {
            DispatchQueue.main.async(execute: onCompletion)
        }
    }

    private func upsertStoredTaxClasses(_ taxClasses: [TaxClassDTO], in storage: NSManagedObjectContext) {
        resetStoredTaxClasses(in: storage)
        for dto in taxClasses {
            let taxClass = TaxClass(context: storage)
            taxClass.slug = dto.slug
            taxClass.name = dto.name
        }
    }

    private func resetStoredTaxClasses(in storage: NSManagedObjectContext) {
        let stored = (try? storage.fetch(NSFetchRequest<TaxClass>(entityName: "TaxClass"))) ?? []
        stored.forEach(storage.delete)
    }
}
