import CoreData
import TestSupport
import Testing

/// An entity class written as `ctxdebug port` writes `@NSManaged` properties: accessors
/// through Core Data's key-value access.
final class Folder: NSManagedObject {
    var name: String? {
        get { value(forKey: "name") as? String }
        set { setValue(newValue, forKey: "name") }
    }
    var notes: NSSet? {
        get { value(forKey: "notes") as? NSSet }
        set { setValue(newValue, forKey: "notes") }
    }
}

final class Note: NSManagedObject {
    nonisolated(unsafe) static var willSaveCalls = 0
    var title: String? {
        get { value(forKey: "title") as? String }
        set { setValue(newValue, forKey: "title") }
    }
    var created: Date? {
        get { value(forKey: "created") as? Date }
        set { setValue(newValue, forKey: "created") }
    }
    var identifier: UUID? {
        get { value(forKey: "identifier") as? UUID }
        set { setValue(newValue, forKey: "identifier") }
    }
    var weight: Float {
        get { value(forKey: "weight") as? Float ?? 0 }
        set { setValue(newValue, forKey: "weight") }
    }
    var link: URL? {
        get { value(forKey: "link") as? URL }
        set { setValue(newValue, forKey: "link") }
    }
    /// As Xcode generates an optional Integer 16 without "Use Scalar Type": `NSNumber?`.
    var priority: NSNumber? {
        get { value(forKey: "priority") as? NSNumber }
        set { setValue(newValue, forKey: "priority") }
    }
    var folder: Folder? {
        get { value(forKey: "folder") as? Folder }
        set { setValue(newValue, forKey: "folder") }
    }

    /// Core Data: "You typically use this method to initialize special default property
    /// values" (NSManagedObject.awakeFromInsert(), Apple's documentation).
    override func awakeFromInsert() {
        super.awakeFromInsert()
        setPrimitiveValue(Date(timeIntervalSinceReferenceDate: 0), forKey: "created")
    }
}

/// A class whose name shares a word with its module (`CoreDataTests`): the mangler
/// writes it `$s13CoreDataTests0A4NoteC…`, with the shared word substituted.
final class CoreNote: NSManagedObject {}

enum NotesModel {
    static func make(noteClassName: String = "Note", titleOptional: Bool = true) -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = true) -> NSAttributeDescription {
            let a = NSAttributeDescription()
            a.name = name
            a.attributeType = type
            a.isOptional = optional
            return a
        }
        let folder = NSEntityDescription()
        folder.name = "Folder"
        folder.managedObjectClassName = "Folder"
        let note = NSEntityDescription()
        note.name = "Note"
        note.managedObjectClassName = noteClassName
        let notes = NSRelationshipDescription()
        notes.name = "notes"
        notes.maxCount = 0
        notes.destinationEntity = note
        let toFolder = NSRelationshipDescription()
        toFolder.name = "folder"
        toFolder.maxCount = 1
        toFolder.destinationEntity = folder
        notes.inverseRelationship = toFolder
        toFolder.inverseRelationship = notes
        folder.properties = [attribute("name", .stringAttributeType), notes]
        note.properties = [
            attribute("title", .stringAttributeType, optional: titleOptional), attribute("created", .dateAttributeType),
            attribute("identifier", .UUIDAttributeType), attribute("weight", .floatAttributeType), attribute("link", .URIAttributeType),
            attribute("priority", .integer16AttributeType), toFolder,
        ]
        let model = NSManagedObjectModel()
        model.entities = [folder, note]
        return model
    }

    static func container(in dir: TempDirectory, model: NSManagedObjectModel = make()) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Notes", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: dir.file("Notes.sqlite"))]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }
}

@Suite struct CoreDataStackTests {
    @Test func objectsSaveAndFetchBackAsTheirClasses() throws {
        let dir = TempDirectory("coredata-stack")
        let container = try NotesModel.container(in: dir)
        let context = container.viewContext
        let id = UUID()
        try context.performAndWait {
            let folder = Folder(context: context)
            folder.name = "Inbox"
            let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context) as! Note
            note.title = "first"
            note.identifier = id
            note.weight = 1.5
            note.link = URL(string: "https://example.com/a")
            note.folder = folder
            try context.save()
        }
        // A second container on the same file sees what the first saved.
        let reopened = try NotesModel.container(in: dir)
        try reopened.viewContext.performAndWait {
            let request = NSFetchRequest<Note>(entityName: "Note")
            let notes = try reopened.viewContext.fetch(request)
            #expect(notes.count == 1)
            let note = try #require(notes.first)
            #expect(note.title == "first")
            #expect(note.identifier == id)
            #expect(note.weight == 1.5)
            #expect(note.link == URL(string: "https://example.com/a"))
            #expect(note.folder?.name == "Inbox")
            #expect(note.folder?.notes?.count == 1)
            #expect(note.created == Date(timeIntervalSinceReferenceDate: 0), "awakeFromInsert set it")
        }
    }

    /// On Apple platforms these are NSObjects, so `==` calls `isEqual:`, whose default is
    /// "the same object" (developer.apple.com/documentation/objectivec/nsobjectprotocol/isequal(_:)),
    /// and they are Hashable. Real stacks rely on it: CampgroundManager's CoreDataStack
    /// (Core Data by Tutorials, chapter 7) decides how to save with
    /// `if context != mainContext { saveDerivedContext(context) }`.
    @Test func contextsCoordinatorsContainersAndStoresCompareByIdentityAsNSObjectsDo() throws {
        let dir = TempDirectory("coredata-identity")
        let container = try NotesModel.container(in: dir)
        let main = container.viewContext
        let background = container.newBackgroundContext()
        #expect(main == container.viewContext)
        #expect(background != main)
        #expect(Set([main, background, container.viewContext]).count == 2)
        let coordinator = container.persistentStoreCoordinator
        #expect(main.persistentStoreCoordinator == coordinator && background.persistentStoreCoordinator == coordinator)
        #expect([coordinator: 1][coordinator] == 1)
        let store = try #require(coordinator.persistentStores.first)
        #expect(store == coordinator.persistentStores.first && store == coordinator.persistentStore(for: dir.file("Notes.sqlite")))
        let other = try NotesModel.container(in: TempDirectory("coredata-identity-other"))
        #expect(other != container && Set([container, other, container]).count == 2)
        #expect(other.persistentStoreCoordinator != coordinator && other.viewContext != main)
        #expect(other.persistentStoreCoordinator.persistentStores.first != store)

        // The store addPersistentStore returns is the one persistentStores gives, with its options.
        let direct = NSPersistentStoreCoordinator(managedObjectModel: NotesModel.make())
        let added = try direct.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: dir.file("Direct.sqlite"), options: [NSReadOnlyPersistentStoreOption: false])
        #expect(direct.persistentStores == [added] && added.options?[NSReadOnlyPersistentStoreOption] as? Bool == false)

        // remove(_:) takes the coordinator's own store, and refuses another's.
        #expect(throws: (any Error).self) { try coordinator.remove(try #require(other.persistentStoreCoordinator.persistentStores.first)) }
        #expect(coordinator.persistentStores == [store])
        try coordinator.remove(store)
        #expect(coordinator.persistentStores.isEmpty && coordinator.persistentStore(for: dir.file("Notes.sqlite")) == nil)
    }

    /// Core Data finds an entity's class by `representedClassName`; a bare class name
    /// is found in the module of the program that declares it (here, this test module).
    /// `NSPersistentContainer` is built on the runtime's `PersistentContainer` (issue 47):
    /// its coordinator, view context and background contexts are that container's, so
    /// reports name them as under `import ManagedContext` (ManagedContextTests'
    /// `unnamedContextsAreNamedByHowTheyWereMade`), and a subclass's overridden
    /// `defaultDirectoryURL()` still places the default store.
    @Test func theContainersContextsAreTheRuntimeContainersAndNamedAlike() async throws {
        let dir = TempDirectory("coredata-container-contexts")
        let container = try NotesModel.container(in: dir)
        #expect(container.name == "Notes" && container.viewContext.name == "viewContext")
        #expect(container.viewContext.persistentStoreCoordinator == container.persistentStoreCoordinator)
        let background = container.newBackgroundContext()
        #expect(background.name == nil && background.description.contains("background #"), "\(background.description)")
        #expect(background.persistentStoreCoordinator == container.persistentStoreCoordinator)
        let name = await container.performBackgroundTask { context in context.name }
        #expect(name == "performBackgroundTask")

        final class PlacedContainer: NSPersistentContainer, @unchecked Sendable {
            nonisolated(unsafe) static var directory: URL?
            override class func defaultDirectoryURL() -> URL { directory! }
        }
        PlacedContainer.directory = dir.url
        let placed = PlacedContainer(name: "Placed", managedObjectModel: NotesModel.make())
        #expect(placed.persistentStoreDescriptions.map(\.url) == [dir.file("Placed.sqlite")])
    }

    @Test func aBareClassNameIsFoundInTheProgram() throws {
        let model = NotesModel.make(noteClassName: "Note")
        #expect(model.runtimeModel.entity(named: "Note")?.managedObjectClass == Note.self)
        let qualified = NotesModel.make(noteClassName: "CoreDataTests.Note")
        #expect(qualified.runtimeModel.entity(named: "Note")?.managedObjectClass == Note.self)
        let sharedWord = NotesModel.make(noteClassName: "CoreNote")
        #expect(sharedWord.runtimeModel.entity(named: "Note")?.managedObjectClass == CoreNote.self)
        let missing = NotesModel.make(noteClassName: "NoSuchNoteClass")
        #expect(missing.runtimeModel.entity(named: "Note")?.managedObjectClass == NSManagedObject.self)
    }

    /// "NSValidationMissingMandatoryPropertyError = 1570" (CoreDataErrors.h), in
    /// NSCocoaErrorDomain; the save changes nothing.
    @Test func aMissingRequiredValueFailsTheSaveWithCoreDatasError() throws {
        let dir = TempDirectory("coredata-mandatory")
        let container = try NotesModel.container(in: dir, model: NotesModel.make(titleOptional: false))
        let context = container.viewContext
        context.performAndWait {
            _ = Note(context: context)
            do {
                try context.save()
                Issue.record("the save should fail")
            } catch {
                let nsError = error as NSError
                #expect(nsError.domain == NSCocoaErrorDomain)
                #expect(nsError.code == 1570)
                #expect(nsError.userInfo["NSValidationErrorKey"] as? String == "title")
            }
            #expect(context.hasChanges)
        }
    }

    /// Xcode declares an optional Integer 16 as `NSNumber?`; code sets it with a number
    /// literal (`entry.rating = 4`) and reads `rating?.int16Value`.
    @Test func numbersSetAsNSNumberReadBackAsNSNumber() throws {
        let dir = TempDirectory("coredata-nsnumber")
        let container = try NotesModel.container(in: dir)
        let context = container.viewContext
        try context.performAndWait {
            let note = Note(context: context)
            note.priority = 4
            try context.save()
            #expect(note.priority?.int16Value == 4)
            #expect(note.value(forKey: "priority") as? Int16 == 4)
            note.priority = nil
            #expect(note.priority == nil)
        }
    }

    @Test func resultTypesAreObjectIDsCountsAndDictionaries() throws {
        let dir = TempDirectory("coredata-results")
        let container = try NotesModel.container(in: dir)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for title in ["a", "b", "c"] {
                let note = Note(context: context)
                note.title = title
            }
            try context.save()
            let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Note")
            ids.resultType = .managedObjectIDResultType
            #expect(try context.fetch(ids).count == 3)
            let count = NSFetchRequest<NSNumber>(entityName: "Note")
            count.resultType = .countResultType
            #expect(try context.fetch(count).first?.intValue == 3)
            #expect(try context.count(for: NSFetchRequest<Note>(entityName: "Note")) == 3)
            let dictionaries = NSFetchRequest<NSDictionary>(entityName: "Note")
            dictionaries.resultType = .dictionaryResultType
            dictionaries.propertiesToFetch = ["title"]
            let titles = try context.fetch(dictionaries).compactMap { $0["title"] as? String }.sorted()
            #expect(titles == ["a", "b", "c"])
            // Core Data's generic request, cast as Apple's code casts it.
            let any = NSFetchRequest<any NSFetchRequestResult>(entityName: "Note")
            #expect(try context.fetch(any).count == 3)
        }
    }

    @Test func aRequestForAnEntityTheModelLacksThrowsNamingIt() throws {
        let dir = TempDirectory("coredata-unknown")
        let container = try NotesModel.container(in: dir)
        container.viewContext.performAndWait {
            #expect {
                try container.viewContext.fetch(NSFetchRequest<Note>(entityName: "Nope"))
            } throws: { error in
                "\(error)".contains("'Nope'") && "\(error)".contains("Folder, Note")
            }
        }
    }

    @Test func mutableSetValueChangesTheRelationship() throws {
        let dir = TempDirectory("coredata-mutable-set")
        let container = try NotesModel.container(in: dir)
        let context = container.viewContext
        try context.performAndWait {
            let folder = Folder(context: context)
            let a = Note(context: context)
            let b = Note(context: context)
            folder.mutableSetValue(forKey: "notes").add(a)
            folder.mutableSetValue(forKey: "notes").add(b)
            #expect(folder.notes?.count == 2)
            #expect(b.folder === folder)
            folder.mutableSetValue(forKey: "notes").remove(a)
            #expect(a.folder == nil)
            try context.save()
            #expect(folder.notes?.count == 1)
        }
    }
}

@Suite struct FetchRequestCastTests {
    /// Apple's code casts the erased request of `fetchRequest()` to its entity's type
    /// (`Note.fetchRequest() as! NSFetchRequest<Note>`). Swift cannot make that cast
    /// between two specializations of a generic class; `NSFetchRequest<Note>(request)`
    /// makes the same request typed.
    @Test func theErasedRequestOfAClassConvertsToItsType() throws {
        let dir = TempDirectory("coredata-cast")
        let container = try NotesModel.container(in: dir)
        let context = container.viewContext
        try context.performAndWait {
            let note = Note(context: context)
            note.title = "cast"
            try context.save()
            #expect((Note.fetchRequest() as Any) as? NSFetchRequest<Note> == nil, "if Swift learns this cast, use it in the docs")
            let request = NSFetchRequest<Note>(Note.fetchRequest())
            request.predicate = NSPredicate(format: "title == %@", "cast")
            #expect(try context.fetch(request).map(\.title) == ["cast"])
            let erased: NSFetchRequest<any NSFetchRequestResult> = Note.fetchRequest()
            #expect(try context.fetch(erased).count == 1)
            // object(with:) returns the runtime's base class; Core Data code casts it.
            let same = context.object(with: note.objectID) as! Note
            #expect(same === note)
            context.undoManager = nil
        }
    }
}
