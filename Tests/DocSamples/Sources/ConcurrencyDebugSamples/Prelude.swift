import Foundation
import ManagedContext

// What docs/concurrency-debug.md's samples take as given: a model and a container.
final class Note: ManagedObject {
    @Attribute("title") var title: String?
}

let container: PersistentContainer = {
    let container = PersistentContainer(
        name: "Samples", managedObjectModel: ManagedObjectModel(entities: [Note.self]))
    try? container.loadPersistentStores()
    return container
}()
