import CoreData

final class Importer {
    let context = PersistenceController.shared.container.newBackgroundContext()

    func run(_ names: [String]) {
        context.perform {
            for name in names {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: self.context)
                item.setValue(name, forKey: "name")
            }
            try? self.context.save()
        }
    }
}

final class PersistenceController {
    static let shared = PersistenceController()
    let container = NSPersistentContainer(name: "Model")
}
