@testable import CoreData
@_spi(CoreData) import ManagedContext
import Foundation
import Testing
import TestSupport

/// What real projects' own test suites rely on, each written in the shape the suite uses
/// (Scripts/real-projects runs the suites themselves).
@Suite struct RealSuiteShapesTests {
    /// JSQCoreDataKit's MigrationTests: `XCTAssertEqual(foundModel, version1Model)`, the
    /// model a search of the bundle finds against the same version loaded again. Models
    /// compare by content (each entity's version hash), not identity; another version is
    /// not equal. A Set of models holds one per version.
    @Test func modelsLoadedTwiceFromOneFileAreEqual() throws {
        let first = try MappingMigrationTests.version(1), again = try MappingMigrationTests.version(1)
        let second = try MappingMigrationTests.version(2)
        #expect(first !== again)
        #expect(first == again)
        #expect(first.hash == again.hash)
        #expect(first != second)
        #expect(Set([first, again, second]).count == 2)
        // Models made in code compare the same way; an entity's class name is not part of
        // it (Core Data Model Versioning and Data Migration Programming Guide, "Understanding
        // Versions": "className, userInfo, and validation predicates are not compared").
        #expect(NotesModel.make() == NotesModel.make())
        #expect(NotesModel.make() == NotesModel.make(noteClassName: "RenamedNote"))
    }

    /// JSQCoreDataKit compares the mapping `NSMappingModel(from:forSourceModel:destinationModel:)`
    /// finds with the same file read by `init(contentsOf:)`: equal by content; a changed
    /// value expression makes them differ.
    @Test func mappingModelsReadTwiceAreEqual() throws {
        let url = Fixtures.url("Contacts1to2.xcmappingmodel")
        let a = try #require(NSMappingModel(contentsOf: url)), b = try #require(NSMappingModel(contentsOf: url))
        #expect(a !== b)
        #expect(a == b)
        let person = try #require(b.entityMappingsByName["PersonToPerson"])
        let mapping = try #require(person.attributeMappings?.first)
        mapping.valueExpression = NSExpression(format: "$source.somethingElse")
        #expect(a != b)
    }

    /// Core Data's coordinator keeps the model it was made with: `managedObjectModel` is
    /// that object (not a copy), and an entity's `managedObjectModel` stays set while the
    /// coordinator lives, though the caller kept no reference to the model.
    @Test func theCoordinatorKeepsItsModel() throws {
        weak var weakModel: NSManagedObjectModel?
        let coordinator: NSPersistentStoreCoordinator = try {
            let model = try MappingMigrationTests.version(1)
            weakModel = model
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            #expect(coordinator.managedObjectModel === model)
            return coordinator
        }()
        let model = try #require(weakModel)
        #expect(coordinator.managedObjectModel === model)
        let entity = try #require(model.entities.first)
        #expect(entity.managedObjectModel === model)
    }

    /// Kuery and CoreStore name a property by `keyPath._kvcKeyPathString` (Objective-C's
    /// key path string; the standard library's is nil on Linux): the attribute or to-one
    /// relationship a key path of a managed object class reads, on the entity of a loaded
    /// model; nil for a class no loaded model has.
    @Test func keyPathsOfManagedObjectClassesNameTheirProperty() throws {
        let dir = TempDirectory("kvc-key-path")
        let container = try NotesModel.container(in: dir)
        #expect((\Note.title as AnyKeyPath)._kvcKeyPathString == "title")
        #expect((\Note.created as PartialKeyPath<Note>)._kvcKeyPathString == "created")
        #expect((\Folder.name as AnyKeyPath)._kvcKeyPathString == "name")
        #expect((\String.count as AnyKeyPath)._kvcKeyPathString == nil)
        let request = NSFetchRequest<Note>(entityName: "Note")
        request.sortDescriptors = [NSSortDescriptor(key: (\Note.title as AnyKeyPath)._kvcKeyPathString!, ascending: true)]
        let context = container.viewContext
        let titles = try context.performAndWait { () throws -> [String?] in
            for title in ["b", "a"] { Note(context: context).title = title }
            return try context.fetch(request).map(\.title)
        }
        #expect(titles == ["a", "b"])
    }

    /// bignerdranch/CoreDataStack's `removeAllInContext(_:except:)`: a fetch with
    /// `NOT (self IN %@)` of the objects to keep, in a main-queue context whose parent
    /// holds the objects unsaved (`saveContextAndWait` saves the child into its parent
    /// only), deletes only the others ("Using Predicates with Core Data": a managed object
    /// is a `%@` value, SELF the evaluated object).
    @Test func notSelfInKeepsTheListedObjectsOfAChildContext() throws {
        let (store, _, child) = try Self.childOfABackgroundContext("not-self-in", .mainQueueConcurrencyType)
        defer { withExtendedLifetime(store) {} }
        try child.performAndWait {
            var kept: [Note] = []
            for i in 0..<5 {
                let note = Note(context: child)
                note.title = "n\(i)"
                try child.save()
                if i % 2 == 0 { kept.append(note) }
            }
            let request = NSFetchRequest<Note>(entityName: "Note")
            request.predicate = NSPredicate(format: "NOT (self IN %@)", kept)
            request.includesPropertyValues = false
            request.includesSubentities = false
            let removed = try child.fetch(request)
            #expect(removed.compactMap(\.title).sorted() == ["n1", "n3"])
            removed.forEach(child.delete)
            let left = try child.fetch(NSFetchRequest<Note>(entityName: "Note"))
            #expect(left.compactMap(\.title).sorted() == ["n0", "n2", "n4"])
        }
    }

    /// A store Core Data wrote (SurfJournal's seed, from the chapter's app) carries Core
    /// Data's version hashes, whose function is not documented: its metadata, read from the
    /// file, matches a model version by the store's schema (issue 48: "where Core Data's
    /// hash is not documented, match by schema"), so a model with one more attribute does
    /// not fit. The note of the path is never written back into the store.
    @Test func aStoreCoreDataWroteIsMatchedToItsModelBySchema() throws {
        let dir = TempDirectory("apple-store-metadata")
        let url = dir.file("SurfJournalModel.sqlite")
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: Fixtures.surfJournalSeed.path + suffix) {
            try FileManager.default.copyItem(atPath: Fixtures.surfJournalSeed.path + suffix, toPath: url.path + suffix)
        }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url, options: nil)
        let model = try #require(NSManagedObjectModel(contentsOf: Fixtures.surfJournalModel))
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        let changed = try #require(NSManagedObjectModel(contentsOf: Fixtures.surfJournalModel))
        let extra = NSAttributeDescription()
        extra.name = "addedLater"
        extra.attributeType = .stringAttributeType
        extra.isOptional = true
        let entity = try #require(changed.entities.first)
        entity.properties = entity.properties + [extra]
        #expect(!changed.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        // Metadata written back keeps no note of the path.
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        coordinator.setMetadata(metadata, for: store)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait { try context.save() }
        let stored = try coordinator.storeMetadata()
        #expect(stored.keys.allSatisfy { !$0.hasPrefix("ctxdebugStore") })
    }

    /// CoreDataMigrationRevised-Example's `compatibleModelForStoreMetadata`:
    /// `mergedModel(from:forStoreMetadata:)` finds, among every version of the models in
    /// the bundles, the one a store was written with (here version 2 of the three-version
    /// Contacts model), not the current version.
    @Test func theModelVersionAStoreWasWrittenWithIsFoundInTheBundle() throws {
        let dir = TempDirectory("merged-for-metadata")
        let url = dir.file("Contacts.sqlite")
        let v2 = try MappingMigrationTests.version(2)
        let context = try MappingMigrationTests.open(v2, url)
        try context.performAndWait { try context.save() }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url, options: nil)
        let bundle = try #require(Bundle(url: Fixtures.url("Contacts.xcdatamodeld").deletingLastPathComponent()))
        let found = try #require(NSManagedObjectModel.mergedModel(from: [bundle], forStoreMetadata: metadata))
        #expect(found == v2)
        #expect(found != (try MappingMigrationTests.current()))
    }

    /// `Bundle(for: X.self)` (CoreDataMigrationRevised-Example's tests copy their stores out
    /// of `Bundle(for: CoreDataMigratorTests.self).resourceURL`), which `ctxdebug port`
    /// writes `Bundle(portedFor:)`: the resource bundle SwiftPM made for the class's module,
    /// `<Package>_<Module>.resources`, found by its package; else Foundation's answer (the
    /// main bundle), as for this module, which has no resources.
    @Test func theBundleOfAClassIsItsModulesResourceBundle() throws {
        let dir = TempDirectory("ported-for")
        for name in ["RealProjects_Example", "RealProjects_CoreDataMigration_Example", "RealProjects_Other", "my_pkg_Lone"] {
            try FileManager.default.createDirectory(at: dir.url.appendingPathComponent(name + ".resources"), withIntermediateDirectories: true)
        }
        func found(_ module: String) -> String? { XcodeModelLocator.resourceBundleURL(ofModule: module, in: [dir.url])?.lastPathComponent }
        #expect(found("Example") == "RealProjects_Example.resources")
        #expect(found("CoreDataMigration_Example") == "RealProjects_CoreDataMigration_Example.resources")
        #expect(found("Lone") == "my_pkg_Lone.resources")
        #expect(found("Missing") == nil)
        // A module without resources: a bundle that holds none, named after it.
        let empty = Bundle(portedFor: RealSuiteClass.self)
        #expect(empty.bundleURL.lastPathComponent == "CoreDataTests.bundle")
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty.bundlePath).isEmpty)
        #expect(empty.urls(forModelResourcesWithExtension: "momd", subdirectory: nil) == nil)
    }

    /// JSQCoreDataKit's `findModelsInBundle` and CoreDataMigrationRevised-Example's
    /// `managedObjectModel(forResource:)`: the compiled models of a bundle
    /// (`urls(forResourcesWithExtension: "momd", subdirectory: nil)`), the versions in one
    /// (`"mom"` in `Model.momd`), and one version by name
    /// (`url(forResource: "Model 2", withExtension: "mom", subdirectory: "Model.momd")`):
    /// on Linux the Xcode model and its `.xcdatamodel`s, in Xcode's order.
    @Test func aCompiledModelsVersionsAreTheXcodeModelsVersions() throws {
        let dir = TempDirectory("model-versions")
        let model = dir.url.appendingPathComponent("Contacts.xcdatamodeld")
        try FileManager.default.copyItem(at: Fixtures.url("Contacts.xcdatamodeld"), to: model)
        let bundle = try #require(Bundle(url: dir.url))
        #expect(bundle.urls(forModelResourcesWithExtension: "momd", subdirectory: nil)?.map(\.lastPathComponent) == ["Contacts.xcdatamodeld"])
        let versions = try #require(bundle.urls(forModelResourcesWithExtension: "mom", subdirectory: "Contacts.momd"))
        #expect(versions.map(\.lastPathComponent) == ["Contacts.xcdatamodel", "Contacts 2.xcdatamodel", "Contacts 3.xcdatamodel"])
        #expect(bundle.urls(forModelResourcesWithExtension: "mom", subdirectory: "Contacts.xcdatamodeld")?.count == 3)
        let second = try #require(bundle.url(forModelResource: "Contacts 2", withExtension: "mom", subdirectory: "Contacts.momd"))
        #expect(NSManagedObjectModel(contentsOf: second) == (try MappingMigrationTests.version(2)))
        #expect(bundle.url(forModelResource: "Contacts 9", withExtension: "mom", subdirectory: "Contacts.momd") == nil)
        #expect(bundle.urls(forModelResourcesWithExtension: "mom", subdirectory: "Other.momd") == nil)
    }

    /// bignerdranch/CoreDataStack's `removeAllInContext(_:except:)` once the parent has
    /// saved: the child's objects keep the temporary IDs they were inserted with (as in
    /// Core Data), the store's rows have permanent ones, and `NOT (self IN %@)` and
    /// `self == %@` still know the child's objects.
    @Test func aChildsObjectIsMatchedAfterItsParentSavedIt() throws {
        let (store, parent, child) = try Self.childOfABackgroundContext("self-in-after-parent-save", .privateQueueConcurrencyType)
        defer { withExtendedLifetime(store) {} }
        var kept: [Note] = []
        try child.performAndWait {
            for i in 0..<5 {
                let note = Note(context: child)
                note.title = "n\(i)"
                if i % 2 == 0 { kept.append(note) }
            }
            try child.save()
        }
        try parent.performAndWait { try parent.save() }
        let (temporary, others, second) = try child.performAndWait { () throws -> (Bool, [String], [String]) in
            let request = NSFetchRequest<Note>(entityName: "Note")
            request.predicate = NSPredicate(format: "NOT (self IN %@)", kept)
            let others = try child.fetch(request).compactMap(\.title).sorted()
            request.predicate = NSPredicate(format: "self == %@", kept[1])
            return (kept.allSatisfy(\.objectID.isTemporaryID), others, try child.fetch(request).compactMap(\.title))
        }
        #expect(temporary)
        #expect(others == ["n1", "n3"])
        #expect(second == ["n2"])
    }
}

extension RealSuiteShapesTests {
    /// Darwin's `NSEC_PER_SEC` and its kin, as AERecord's tests compute a deadline with them.
    @Test func darwinsTimeConstantsHaveTheirValues() {
        let deadline = DispatchTime(uptimeNanoseconds: 5) + Double(Int64(2 * NSEC_PER_SEC)) / Double(NSEC_PER_SEC)
        #expect(deadline.uptimeNanoseconds == 2_000_000_005)
        #expect(NSEC_PER_MSEC * 1_000 == NSEC_PER_SEC && NSEC_PER_USEC * USEC_PER_SEC == NSEC_PER_SEC)
    }
}

extension RealSuiteShapesTests {
    /// `bundleIdentifier`, nil for SwiftPM's bundles on Linux, through the port: the
    /// executable's name for the main bundle, a bundle folder's name for another.
    @Test func aBundleWithoutAnIdentifierIsNamedAfterItself() throws {
        let dir = TempDirectory("bundle-identifier")
        let folder = dir.url.appendingPathComponent("Pkg_Module.resources")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        #expect(try #require(Bundle(url: folder)).portedBundleIdentifier == "Pkg_Module")
        let main = try #require(Bundle.main.portedBundleIdentifier)
        #expect(main == (Bundle.main.bundleIdentifier ?? Bundle.main.executableURL!.deletingPathExtension().lastPathComponent))
    }

    /// Skopelos' stack puts its store in `containerURL(forSecurityApplicationGroupIdentifier:)`,
    /// the app group's folder: on Linux a folder of the user's per group, made if missing,
    /// the same for every process of the user that names the group; nil for a name that is
    /// no folder.
    @Test func anAppGroupIsAFolderOfTheUsers() throws {
        let group = "group.ctxdebug.tests.\(ProcessInfo.processInfo.processIdentifier)"
        let url = try #require(FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group))
        defer { try? FileManager.default.removeItem(at: url) }
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue)
        #expect(url.lastPathComponent == group && url.deletingLastPathComponent().lastPathComponent == "app-groups")
        #expect(FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group) == url)
        #expect(FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "../x") == nil)
        #expect(FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "") == nil)
    }
}

extension RealSuiteShapesTests {
    /// An Xcode mapping model whose entity mapping says "autogenerate" and whose attribute
    /// mappings say nothing (CoreDataMigrationRevised-Example's version 2 to 3 Post
    /// mapping): each attribute whose type stays gets its default expression,
    /// `$source.<name>`; one that says `autogenerateexpression` 0 keeps none, and a re-typed
    /// one (the Contacts fixture's `age`, String to Integer 16) is left to the policy.
    @Test func anEntityMappingsAutogenerateCoversItsSilentAttributes() throws {
        let dir = TempDirectory("entity-autogenerate")
        let folder = dir.url.appendingPathComponent("NotesToNotes.xcmappingmodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let xml = """
            <?xml version="1.0" standalone="no"?>
            <database>
                <object type="XDDEVMAPPINGMODEL" id="z1">
                    <relationship name="entitymappings" type="0/0" destination="XDDEVENTITYMAPPING" idrefs="z2"></relationship>
                </object>
                <object type="XDDEVENTITYMAPPING" id="z2">
                    <attribute name="sourcename" type="string">Note</attribute>
                    <attribute name="destinationname" type="string">Note</attribute>
                    <attribute name="mappingtypename" type="string">Undefined</attribute>
                    <attribute name="autogenerateexpression" type="bool">1</attribute>
                    <relationship name="attributemappings" type="0/0" destination="XDDEVATTRIBUTEMAPPING" idrefs="z3 z4"></relationship>
                </object>
                <object type="XDDEVATTRIBUTEMAPPING" id="z3">
                    <attribute name="name" type="string">title</attribute>
                </object>
                <object type="XDDEVATTRIBUTEMAPPING" id="z4">
                    <attribute name="autogenerateexpression" type="bool">0</attribute>
                    <attribute name="name" type="string">created</attribute>
                </object>
            </database>
            """
        try Data(xml.utf8).write(to: folder.appendingPathComponent("xcmapping.xml"))
        let model = NotesModel.make()
        let read = try XcodeMappingModelReader.read(folder, sourceModel: model, destinationModel: model)
        let mappings = try #require(read.entityMappings.first?.attributeMappings)
        #expect(mappings.first { $0.name == "title" }?.valueExpression?.description == "$source.title")
        #expect(mappings.first { $0.name == "created" }?.valueExpression == nil)
    }
}

extension RealSuiteShapesTests {
    /// A process killed while it created its store leaves an empty file: opened again
    /// through a container, whose descriptions migrate automatically by default, it is a
    /// new store (no migration to check), not a read-only error.
    @Test func anEmptyStoreFileLeftByACrashOpensAsANewStore() throws {
        let dir = TempDirectory("empty-store-file")
        let url = dir.file("Notes.sqlite")
        #expect(FileManager.default.createFile(atPath: url.path, contents: Data()))
        #expect(try StoreFit.of(storeAt: url, model: NotesModel.make().runtimeModel) == .noStore)
        let container = try NotesModel.container(in: dir)
        try container.viewContext.performAndWait { () throws in
            Note(context: container.viewContext).title = "after the crash"
            try container.viewContext.save()
        }
    }
}

extension RealSuiteShapesTests {
    /// JSQCoreDataKit asks `NSMappingModel(from:forSourceModel:destinationModel:)` for every
    /// pair of versions: the Contacts 1 to 2 mapping model is found for versions 1 and 2,
    /// not for 2 and 1 (the versions it records), though its entities' names fit both ways.
    @Test func aMappingModelIsFoundForItsOwnVersionsOnly() throws {
        let dir = TempDirectory("mapping-versions")
        try FileManager.default.copyItem(at: Fixtures.url("Contacts1to2.xcmappingmodel"), to: dir.url.appendingPathComponent("Contacts1to2.xcmappingmodel"))
        let bundle = try #require(Bundle(url: dir.url))
        let (v1, v2) = (try MappingMigrationTests.version(1), try MappingMigrationTests.version(2))
        #expect(NSMappingModel(from: [bundle], forSourceModel: v1, destinationModel: v2) != nil)
        #expect(NSMappingModel(from: [bundle], forSourceModel: v2, destinationModel: v1) == nil)
        // JSQCoreDataKit's tests load a version by its compiled URL, `Model.xcdatamodeld/Version 1.mom`
        // (`modelURL.appendingPathComponent("\(versionName).mom")`): that URL names the same version.
        let compiledV1 = try #require(NSManagedObjectModel(contentsOf: Fixtures.url("Contacts.xcdatamodeld").appendingPathComponent("Contacts.mom")))
        #expect(NSMappingModel(from: [bundle], forSourceModel: compiledV1, destinationModel: v2) != nil)
        #expect(NSMappingModel(from: [bundle], forSourceModel: v2, destinationModel: compiledV1) == nil)
    }

    /// JSQCoreDataKit's `bundle.url(forResource: "Version1_to_Version2", withExtension: "cdm")`,
    /// ported to `url(forModelResource:withExtension:)`: Linux has no compiled mapping model
    /// (`.cdm`), so it is the Xcode one, which `NSMappingModel(contentsOf:)` reads.
    @Test func aCompiledMappingModelIsTheXcodeOne() throws {
        let dir = TempDirectory("mapping-cdm")
        try FileManager.default.copyItem(at: Fixtures.url("Contacts1to2.xcmappingmodel"), to: dir.url.appendingPathComponent("Contacts1to2.xcmappingmodel"))
        let bundle = try #require(Bundle(url: dir.url))
        let url = try #require(bundle.url(forModelResource: "Contacts1to2", withExtension: "cdm"))
        #expect(url.lastPathComponent == "Contacts1to2.xcmappingmodel")
        let read = try #require(NSMappingModel(contentsOf: url))
        let found = try #require(NSMappingModel(from: [bundle], forSourceModel: try MappingMigrationTests.version(1), destinationModel: try MappingMigrationTests.version(2)))
        #expect(read.entityMappings.map(\.name) == found.entityMappings.map(\.name) && !read.entityMappings.isEmpty)
        // With the models it records beside it, as a bundle has them, it is the mapping the
        // search finds, whole (a compiled one holds its models' hashes and expressions):
        // JSQCoreDataKit's MigrationTests compares the two.
        #expect(read != found)
        try FileManager.default.copyItem(at: Fixtures.url("Contacts.xcdatamodeld"), to: dir.url.appendingPathComponent("Contacts.xcdatamodeld"))
        #expect(NSMappingModel(contentsOf: url) == found)
        #expect(bundle.url(forModelResource: "Missing", withExtension: "cdm") == nil)
    }
}

extension RealSuiteShapesTests {
    /// A Notes store, a background context on it, and a child context of that one, as
    /// bignerdranch's stack nests its main-queue context. The folder and container come
    /// back too: the caller keeps them, so the store stays where it is.
    static func childOfABackgroundContext(
        _ name: String, _ type: NSManagedObjectContextConcurrencyType
    ) throws -> ((TempDirectory, NSPersistentContainer), NSManagedObjectContext, NSManagedObjectContext) {
        let dir = TempDirectory(name)
        let container = try NotesModel.container(in: dir)
        let parent = container.newBackgroundContext()
        let child = NSManagedObjectContext(concurrencyType: type)
        child.parent = parent
        return ((dir, container), parent, child)
    }
}

/// A class of this test module, which has no SwiftPM resources.
final class RealSuiteClass {}
