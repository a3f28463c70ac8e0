@testable import CoreData
import Testing

/// Models built in code, as Core Data allows ("NSManagedObjectModel", Apple's
/// documentation: "you can also create a model programmatically").
@Suite struct ModelInCodeTests {
    static func noteModel() -> NSManagedObjectModel {
        let title = NSAttributeDescription()
        title.name = "title"
        title.attributeType = .stringAttributeType
        let created = NSAttributeDescription()
        created.name = "created"
        created.attributeType = .dateAttributeType
        let note = NSEntityDescription()
        note.name = "Note"
        note.managedObjectClassName = "NSManagedObject"
        note.properties = [title, created]
        let model = NSManagedObjectModel()
        model.entities = [note]
        return model
    }

    @Test func entitiesAreFoundByName() {
        let model = Self.noteModel()
        #expect(model.entitiesByName["Note"]?.attributesByName.keys.sorted() == ["created", "title"])
        #expect(model.entitiesByName["Note"]?.attributesByName["title"]?.attributeType == .stringAttributeType)
    }

    @Test func theRuntimeModelHasTheEntityAndItsAttributes() {
        let model = Self.noteModel()
        let entity = model.runtimeModel.entity(named: "Note")
        #expect(entity?.attributes.map(\.name) == ["title", "created"])
        #expect(model.entitiesByName["Note"]?.compiled === entity)
    }
}
