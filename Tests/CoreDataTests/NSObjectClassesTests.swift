import CoreData
import Foundation
import Testing
import TestSupport

// An app's own extensions, as real model layers declare them: they must reach Core
// Data's classes, and no name of the runtime's may be in their way.
extension NSObject {
    /// CoreDataKit and many stacks: `className` for logs.
    var appClassName: String { String(describing: type(of: self)) }
}

extension NSManagedObject {
    /// The common `entityName` of apps' extensions (the runtime's own was a class
    /// property of that name, which this declaration collided with).
    class var entityName: String { String(describing: self) }
}

extension NSEntityDescription {
    /// CoreDataKit's `identifyingAttribute()` shape: a question about the model's entity,
    /// asked through an object's `entity`.
    func appAttributeNames() -> [String] { attributesByName.keys.sorted() }
}

/// bignerdranch/CoreDataStack's `CoreDataModelable`: a protocol extension that makes
/// objects with `Self.init(entity:insertInto:)`, which needs the initializer `required`.
protocol AppModelable {
    static var modelEntityName: String { get }
}

extension AppModelable where Self: NSManagedObject {
    init(insertingInto context: NSManagedObjectContext) {
        let entity = NSEntityDescription.entity(forEntityName: Self.modelEntityName, in: context)!
        self.init(entity: entity, insertInto: context)
    }
}

/// A subclass that overrides Core Data's designated initializer (as `ctxdebug port`
/// writes `override init(entity:insertInto:)`): the runtime makes every object,
/// fetched ones too, through it.
final class CountedFolder: NSManagedObject, AppModelable {
    nonisolated(unsafe) static var initialized = 0

    required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        super.init(entity: entity, insertInto: context)
        Self.initialized += 1
    }

    static var modelEntityName: String { "Folder" }
    var name: String? {
        get { value(forKey: "name") as? String }
        set { setValue(newValue, forKey: "name") }
    }
}

/// wibosco/CoreDataServices' test double: a context subclass overriding Core Data's
/// overridable members.
final class MockContext: NSManagedObjectContext, @unchecked Sendable {
    var hasChangesToReturn = false
    var saves = 0
    var waits = 0
    var pendingChangesProcessed = 0

    override var hasChanges: Bool { hasChangesToReturn }
    override func save() throws { saves += 1 }
    override func performAndWait(_ block: () -> Void) {
        waits += 1
        block()
    }
    override func processPendingChanges() { pendingChangesProcessed += 1 }
}

@Suite struct NSObjectClassesTests {
    /// Core Data's classes are `NSObject`s on Apple platforms: an `extension NSObject`
    /// reaches each of them, and `description`, `debugDescription`, `isEqual` and `hash`
    /// are NSObject's (identity for a context, as `-[NSObject isEqual:]`).
    @Test func coreDataClassesAreNSObjects() throws {
        let dir = TempDirectory("nsobject-classes")
        let container = try NotesModel.container(in: dir)
        let context = container.viewContext
        let coordinator = container.persistentStoreCoordinator
        let objects: [NSObject] = [
            context, coordinator, container, coordinator.managedObjectModel, coordinator.managedObjectModel.entities[0],
            NSFetchRequest<NSManagedObject>(entityName: "Note"), container.persistentStoreDescriptions[0],
        ]
        #expect(objects.map(\.appClassName).contains("NSPersistentContainer"))
        let note = context.performAndWait { Note(context: context) as NSObject }
        #expect(note.appClassName == "Note")
        #expect(context.debugDescription.contains("ManagedObjectContext"))
        #expect(!coordinator.debugDescription.isEmpty)
        let other = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        #expect(context.isEqual(context) && !context.isEqual(other))
        #expect(context.hash == context.hash)
        #expect(Set([context, other, context]).count == 2)
    }

    /// `object.entity` is the model's `NSEntityDescription` (Apple: "entity: The entity
    /// description of the receiver"), so an app's extension of it is found there; and an
    /// app may declare `entityName` on NSManagedObject.
    @Test func anObjectsEntityIsTheModelsEntityDescription() throws {
        let dir = TempDirectory("nsobject-entity")
        let container = try NotesModel.container(in: dir)
        let context = container.viewContext
        context.performAndWait {
            let note = Note(context: context)
            let entity: NSEntityDescription = note.entity
            #expect(entity.name == "Note")
            #expect(entity === container.managedObjectModel.entitiesByName["Note"])
            #expect(note.entity.appAttributeNames().contains("title"))
            #expect(Note.entityName == "Note")
            #expect(CountedFolder.entityName == "CountedFolder")
        }
    }

    /// Core Data's designated initializer is required here: a protocol extension makes
    /// objects with `Self.init(entity:insertInto:)`, and a subclass's override runs for
    /// inserted and fetched objects alike (Core Data creates each instance with
    /// `init(entity:insertInto:)`).
    @Test func anOverriddenDesignatedInitializerRunsForEveryObject() throws {
        let dir = TempDirectory("nsobject-init")
        let model = NotesModel.make()
        model.entitiesByName["Folder"]!.managedObjectClassName = "CountedFolder"
        let container = try NotesModel.container(in: dir, model: model)
        let context = container.viewContext
        CountedFolder.initialized = 0
        let id = try context.performAndWait {
            let folder = CountedFolder(insertingInto: context)
            folder.name = "Inbox"
            try context.save()
            return folder.objectID
        }
        #expect(CountedFolder.initialized == 1)
        let background = container.newBackgroundContext()
        let name = try background.performAndWait {
            let fetched = try background.fetch(NSFetchRequest<CountedFolder>(entityName: "Folder"))
            #expect(fetched.map(\.objectID) == [id])
            return fetched.first?.name
        }
        #expect(name == "Inbox")
        #expect(CountedFolder.initialized == 2)
    }

    /// A test double subclasses the context and overrides `hasChanges`, `save()`,
    /// `performAndWait(_:)` and `processPendingChanges()`, as wibosco/CoreDataServices'
    /// tests do; code written against NSManagedObjectContext calls the overrides.
    @Test func aContextSubclassOverridesCoreDatasMembers() throws {
        func saveIfNeeded(_ context: NSManagedObjectContext) throws {
            context.performAndWait { context.processPendingChanges() }
            if context.hasChanges { try context.save() }
        }
        let mock = MockContext(concurrencyType: .mainQueueConcurrencyType)
        try saveIfNeeded(mock)
        #expect(mock.saves == 0 && mock.waits == 1 && mock.pendingChangesProcessed == 1)
        mock.hasChangesToReturn = true
        try saveIfNeeded(mock)
        #expect(mock.saves == 1 && mock.waits == 2)
        #expect(mock.concurrencyType == .mainQueueConcurrencyType)
    }

    /// NSManagedObjectContextConcurrencyType has Core Data's three cases and raw values
    /// (confinement 0, private queue 1, main queue 2), so a `switch` over them is
    /// exhaustive as on Apple platforms (bignerdranch/CoreDataStack's save helpers).
    @Test @MainActor func concurrencyTypesAreCoreDatas() {
        func kind(_ type: NSManagedObjectContextConcurrencyType) -> String {
            switch type {
            case .mainQueueConcurrencyType: "main"
            case .privateQueueConcurrencyType: "private"
            case .confinementConcurrencyType: "confinement"
            }
        }
        #expect(NSManagedObjectContextConcurrencyType.privateQueueConcurrencyType.rawValue == 1)
        #expect(NSManagedObjectContextConcurrencyType.mainQueueConcurrencyType.rawValue == 2)
        #expect(NSManagedObjectContextConcurrencyType(rawValue: 0).map(kind) == "confinement")
        #expect(kind(NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType).concurrencyType) == "private")
        let confined = NSManagedObjectContext(concurrencyType: NSManagedObjectContextConcurrencyType(rawValue: 0)!)
        #expect(kind(confined.concurrencyType) == "confinement")
    }

    /// A confinement context made on the main thread is used there directly (Core Data:
    /// "the context will use the thread confinement pattern"): saves and fetches with no
    /// perform block, no violation.
    @Test @MainActor func aConfinementContextMadeOnTheMainThreadWorksThere() throws {
        let dir = TempDirectory("nsobject-confinement")
        let container = try NotesModel.container(in: dir)
        let confined = NSManagedObjectContext(concurrencyType: NSManagedObjectContextConcurrencyType(rawValue: 0)!)
        confined.persistentStoreCoordinator = container.persistentStoreCoordinator
        let note = Note(context: confined)
        note.title = "confined"
        try confined.save()
        let count = try confined.count(for: NSFetchRequest<Note>(entityName: "Note"))
        #expect(count == 1)
    }

    /// Core Data raises for `perform` on a context with no queue: "Can only use
    /// -performBlock: on an NSManagedObjectContext that was created with a queue."
    @Test func performOnAConfinementContextIsRefused() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let confined = NSManagedObjectContext(concurrencyType: NSManagedObjectContextConcurrencyType(rawValue: 0)!)
            confined.perform {}
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("created with a queue"))
    }
}

@Suite struct PropertyVersionHashTests {
    func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = true, modifier: String? = nil) -> NSAttributeDescription {
        let a = NSAttributeDescription()
        a.name = name
        a.attributeType = type
        a.isOptional = optional
        a.versionHashModifier = modifier
        return a
    }

    /// NSPropertyDescription.versionHash: "The version hash is used to uniquely identify a
    /// property based on its configuration"; `versionHashModifier` makes otherwise
    /// identical versions differ. Same configuration, same hash; a change of type,
    /// optionality or modifier, another.
    @Test func aPropertysVersionHashFollowsItsConfiguration() {
        let base = attribute("title", .stringAttributeType)
        #expect(base.versionHash.count == 32)
        #expect(base.versionHash == attribute("title", .stringAttributeType).versionHash)
        for changed in [
            attribute("title", .integer64AttributeType), attribute("title", .stringAttributeType, optional: false),
            attribute("title", .stringAttributeType, modifier: "v2"), attribute("name", .stringAttributeType),
        ] {
            #expect(changed.versionHash != base.versionHash)
        }
        let note = NSEntityDescription()
        note.name = "Note"
        let folder = NSEntityDescription()
        folder.name = "Folder"
        let toOne = NSRelationshipDescription()
        toOne.name = "folder"
        toOne.destinationEntity = folder
        toOne.maxCount = 1
        let toMany = NSRelationshipDescription()
        toMany.name = "folder"
        toMany.destinationEntity = folder
        toMany.maxCount = 0
        #expect(toOne.versionHash != toMany.versionHash)
    }

    /// Core Data's `NSManagedObjectContext()` (deprecated) makes a confinement context.
    @Test @MainActor func aContextMadeWithInitIsAConfinementContext() {
        @available(*, deprecated) func make() -> NSManagedObjectContext { NSManagedObjectContext() }
        #expect(make().concurrencyType.rawValue == 0)
    }
}

@Suite struct KeyPathCodingTests {
    /// NSObject's key-value coding through key paths (Apple, "Key-Value Coding Programming
    /// Guide": "valueForKeyPath: ... relative to the receiver"), which Foundation on Linux
    /// lacks: through a to-one relationship, over a to-many one (a set of the members'
    /// values), set at the end of a path, and several keys at once with NSNull as nil.
    @Test func keyPathsGoThroughRelationships() throws {
        let dir = TempDirectory("kvc-keypaths")
        let container = try NotesModel.container(in: dir)
        let context = container.viewContext
        context.performAndWait {
            let folder = Folder(context: context)
            folder.name = "Work"
            let a = Note(context: context)
            a.title = "a"
            a.folder = folder
            let b = Note(context: context)
            b.title = "b"
            b.folder = folder
            #expect(a.value(forKeyPath: "folder.name") as? String == "Work")
            #expect(folder.value(forKeyPath: "notes.title") as? NSSet == NSSet(array: ["a", "b"]))
            a.setValue("Home", forKeyPath: "folder.name")
            #expect(folder.name == "Home")
            a.setValuesForKeys(["title": "renamed", "created": NSNull()])
            #expect(a.title == "renamed" && a.created == nil)
            let values = b.dictionaryWithValues(forKeys: ["title", "link"])
            #expect(values["title"] as? String == "b" && values["link"] is NSNull)
            let orphan = Note(context: context)
            #expect(orphan.value(forKeyPath: "folder.name") == nil)
        }
    }
}

@Suite struct BundleURLsTests {
    /// Apple's `Bundle.urls(forResourcesWithExtension:subdirectory:)` is `[URL]?`
    /// (jessesquires/JSQCoreDataKit's `findModelsInBundle` asks for that type); Foundation
    /// on Linux gives `[NSURL]?`. Both spellings compile here and name the same files.
    @Test func resourceURLsComeAsURLs() throws {
        let dir = TempDirectory("bundle-urls")
        let models = dir.file("Models.bundle")
        try FileManager.default.createDirectory(at: models.appendingPathComponent("A.momd"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: models.appendingPathComponent("B.momd"), withIntermediateDirectories: true)
        let bundle = try #require(Bundle(url: models))
        let asURLs = [bundle].compactMap { b -> [URL]? in b.urls(forResourcesWithExtension: "momd", subdirectory: nil) }.joined()
        #expect(Set(asURLs.map(\.lastPathComponent)) == ["A.momd", "B.momd"])
        let asNSURLs: [NSURL]? = bundle.urls(forResourcesWithExtension: "momd", subdirectory: nil)
        #expect(asNSURLs?.count == 2)
    }
}
