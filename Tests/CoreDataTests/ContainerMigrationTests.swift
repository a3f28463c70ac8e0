import CoreData
import Foundation
import TestSupport
import Testing

/// The container's store descriptions carry Core Data's migration switches:
/// `shouldMigrateStoreAutomatically` and `shouldInferMappingModelAutomatically` are on
/// by default ("NSPersistentStoreDescription", Apple's documentation), so a model that
/// adds an optional attribute opens an older store; with them off, the store does not
/// open (NSPersistentStoreIncompatibleVersionHashError, 134100) and is left as it was.
@Suite struct ContainerMigrationTests {
    private func model(withPriority: Bool) -> NSManagedObjectModel {
        let title = NSAttributeDescription()
        title.name = "title"
        title.attributeType = .stringAttributeType
        let entity = NSEntityDescription()
        entity.name = "Memo"
        entity.properties = [title]
        if withPriority {
            let priority = NSAttributeDescription()
            priority.name = "priority"
            priority.attributeType = .integer32AttributeType
            entity.properties.append(priority)
        }
        let model = NSManagedObjectModel()
        model.entities = [entity]
        return model
    }

    private func load(_ model: NSManagedObjectModel, at url: URL, migrate: Bool = true) -> (NSPersistentContainer, (any Error)?) {
        let container = NSPersistentContainer(name: "Memos", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        description.shouldMigrateStoreAutomatically = migrate
        description.shouldInferMappingModelAutomatically = migrate
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        return (container, loadError)
    }

    private func makeOldStore(_ dir: TempDirectory) throws -> URL {
        let url = dir.file("Memos.sqlite")
        let (container, error) = load(model(withPriority: false), at: url)
        if let error { throw error }
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let memo = NSEntityDescription.insertNewObject(forEntityName: "Memo", into: context)
            memo.setValue("kept", forKey: "title")
            try context.save()
        }
        return url
    }

    @Test func aStoreOpensWithAModelThatAddsAnOptionalAttribute() throws {
        let dir = TempDirectory("container-migrate")
        let url = try makeOldStore(dir)
        let (container, error) = load(model(withPriority: true), at: url)
        #expect(error == nil)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let memos = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Memo"))
            #expect(memos.map { $0.value(forKey: "title") as? String } == ["kept"])
            #expect(memos.first?.value(forKey: "priority") == nil)
        }
    }

    @Test func withMigrationOffAMismatchIs134100AndTheStoreIsUntouched() throws {
        let dir = TempDirectory("container-no-migrate")
        let url = try makeOldStore(dir)
        let before = PersistentContainerFiles.contents(of: url)
        let (_, error) = load(model(withPriority: true), at: url, migrate: false)
        let nsError = try #require(error) as NSError
        #expect(nsError.domain == NSCocoaErrorDomain)
        #expect(nsError.code == 134100)
        #expect(PersistentContainerFiles.contents(of: url) == before)
    }
}

/// The bytes of a store's files (.sqlite, -wal, -shm), to show a refused store unchanged.
enum PersistentContainerFiles {
    static func contents(of url: URL) -> [Data?] {
        ["", "-wal", "-shm"].map { FileManager.default.contents(atPath: url.path + $0) }
    }
}
