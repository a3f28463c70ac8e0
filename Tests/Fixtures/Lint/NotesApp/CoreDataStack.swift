import CoreData
import Foundation

/// The notes app's stack: the view context for the lists, and a new private context
/// for each note being created, saved on its own.
final class CoreDataStack {
    let modelName: String

    init(modelName: String) {
        self.modelName = modelName
    }

    lazy var storeContainer: NSPersistentContainer = {
        let container = NSPersistentContainer(name: modelName)
        container.loadPersistentStores { _, error in
            if let error { fatalError("Unresolved error \(error)") }
        }
        return container
    }()

    var mainContext: NSManagedObjectContext {
        storeContainer.viewContext
    }

    var savingContext: NSManagedObjectContext {
        storeContainer.newBackgroundContext()
    }
}
