import CoreData
import TestSupport
import Testing

/// What `ctxdebug port` writes for spellings Linux Swift cannot run as they are:
/// `request as? NSFetchRequest<T>` becomes `NSFetchRequest<T>(fitting: request)`, and
/// `NSClassFromString(name)` becomes `NSClassFromString(ported: name)`.
@Suite struct PortedSpellingsTests {
    @Test("NSFetchRequest(fitting:) is nil when the entity's class is not the result type, and a copy when it is")
    func fittingCasts() throws {
        let dir = TempDirectory("ported-spellings")
        let container = try NotesModel.container(in: dir)
        let model = container.managedObjectModel
        let erased = NSFetchRequest<any NSFetchRequestResult>(entityName: "Note")
        erased.entity = model.entitiesByName["Note"]
        erased.fetchLimit = 3
        let notes = try #require(NSFetchRequest<Note>(fitting: erased))
        #expect(notes.fetchLimit == 3 && notes.entityName == "Note")
        #expect(NSFetchRequest<Folder>(fitting: erased) == nil)
        #expect(NSFetchRequest<NSManagedObject>(fitting: erased) != nil, "a superclass of the entity's class fits")
        let ids = NSFetchRequest<any NSFetchRequestResult>(entityName: "Note")
        ids.resultType = .managedObjectIDResultType
        #expect(NSFetchRequest<NSManagedObjectID>(fitting: ids) != nil)
        #expect(NSFetchRequest<Note>(fitting: ids) == nil)
        let none: NSFetchRequest<any NSFetchRequestResult>? = nil
        #expect(NSFetchRequest<Note>(fitting: none) == nil)
    }

    @Test("NSClassFromString(ported:) finds a model's bare class name in the program, and Foundation's classes")
    func classFromString() {
        #expect(NSClassFromString(ported: "Note") == Note.self)
        #expect(NSClassFromString(ported: "CoreDataTests.Folder") == Folder.self)
        #expect(NSClassFromString(ported: "NoSuchClassAnywhere") == nil)
        #expect(NSClassFromString(ported: "NSManagedObject") == NSManagedObject.self)
    }
}
