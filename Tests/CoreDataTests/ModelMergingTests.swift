import CoreData
import TestSupport
import Testing

/// `init(byMerging:)`: "Creates a single model from an array of existing models"; a
/// model with two entities of one name cannot be made (Apple's documentation of
/// NSManagedObjectModel, and `mergedModel(from:)` beside it). `init(byMerging:forStoreMetadata:)`
/// gives the merged model only when it fits the store the metadata describes.
@Suite("Model merging")
struct ModelMergingTests {
    static func model(_ names: [String]) -> NSManagedObjectModel {
        let model = NSManagedObjectModel()
        model.entities = names.map { name in
            let entity = NSEntityDescription()
            entity.name = name
            let a = NSAttributeDescription()
            a.name = "title"
            a.attributeType = .stringAttributeType
            entity.properties = [a]
            return entity
        }
        return model
    }

    @Test("two models merge into one with every entity; a shared entity name gives nil")
    func merging() {
        let merged = NSManagedObjectModel(byMerging: [Self.model(["Folder"]), Self.model(["Note", "Tag"])])
        #expect(merged?.entities.compactMap(\.name).sorted() == ["Folder", "Note", "Tag"])
        #expect(NSManagedObjectModel(byMergingModels: [Self.model(["Folder"])])?.entities.count == 1)
        #expect(NSManagedObjectModel(byMerging: [Self.model(["Note"]), Self.model(["Note"])]) == nil)
    }

    @Test("with store metadata: the merged model when it fits the store, nil when it does not")
    func mergingForMetadata() throws {
        let dir = TempDirectory("coredata-merge-metadata")
        let url = dir.file("Merged.sqlite")
        let stored = try #require(NSManagedObjectModel(byMerging: [Self.model(["Folder"]), Self.model(["Note"])]))
        let container = NSPersistentContainer(name: "Merged", managedObjectModel: stored)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(NSManagedObjectModel(byMerging: [Self.model(["Folder"]), Self.model(["Note"])], forStoreMetadata: metadata) != nil)
        #expect(NSManagedObjectModel(byMerging: [Self.model(["Folder"]), Self.model(["Note", "Tag"])], forStoreMetadata: metadata) == nil)
    }
}
