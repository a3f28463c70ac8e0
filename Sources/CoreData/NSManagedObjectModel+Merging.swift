public import Foundation

extension NSManagedObjectModel {
    /// Core Data's `init(byMerging:)`: one model with the entities of `models`. Nil, after
    /// printing why, when two of them have an entity of the same name (Core Data cannot
    /// merge them either). The entities are the models' own description objects.
    public convenience init?(byMerging models: [NSManagedObjectModel]?) {
        var entities: [NSEntityDescription] = []
        var seen: Set<String> = []
        for model in models ?? [] {
            for entity in model.entities {
                let name = entity.name ?? ""
                guard seen.insert(name).inserted else {
                    Self.log("CoreData: error: Can't merge models with two different entities named '\(name)'.")
                    return nil
                }
                entities.append(entity)
            }
        }
        self.init()
        self.entities = entities
    }

    /// The name of `init(byMerging:)` before Swift 3.
    public convenience init?(byMergingModels models: [NSManagedObjectModel]?) {
        self.init(byMerging: models)
    }

    /// Core Data's `init(byMerging:forStoreMetadata:)`: the merged model, or nil when it
    /// does not fit the store the metadata describes (its entities' version hashes), as
    /// `isConfiguration(withName: nil, compatibleWithStoreMetadata:)` decides.
    public convenience init?(byMerging models: [NSManagedObjectModel], forStoreMetadata metadata: [String: Any]) {
        self.init(byMerging: models)
        guard isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) else { return nil }
    }

    /// The name of `init(byMerging:forStoreMetadata:)` before Swift 3.
    public convenience init?(byMergingModels models: [NSManagedObjectModel], forStoreMetadata metadata: [String: Any]) {
        self.init(byMerging: models, forStoreMetadata: metadata)
    }

    /// The name of `init(contentsOf:)` before Swift 3.
    public convenience init?(contentsOfURL url: URL) {
        self.init(contentsOf: url)
    }
}
