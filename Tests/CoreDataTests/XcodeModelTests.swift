import Foundation
import Testing
import TestSupport
import XcodeModel

@testable import CoreData

/// Reading Xcode models as they are on disk. Apple's documentation of
/// `NSManagedObjectModel.init(contentsOf:)` ("Initializes the receiver using the model
/// file at the specified URL"; returns nil when it cannot) and of the model's parts
/// (`NSAttributeDescription`, `NSRelationshipDescription`, `NSEntityDescription`) is the
/// reference for what each value means.
@Suite struct XcodeModelTests {
    static func notebook() throws -> NSManagedObjectModel {
        try #require(NSManagedObjectModel(contentsOf: Fixtures.url("Notebook.xcdatamodeld")))
    }

    @Test func theRealSurfJournalModelLoads() throws {
        let model = try #require(NSManagedObjectModel(contentsOf: Fixtures.surfJournalModel))
        let entry = try #require(model.entitiesByName["JournalEntry"])
        #expect(entry.managedObjectClassName == "SurfJournal.JournalEntry")
        #expect(entry.attributesByName.keys.sorted() == ["date", "height", "location", "period", "rating", "wind"])
        #expect(entry.attributesByName["rating"]?.attributeType == .integer16AttributeType)
        #expect(entry.attributesByName["rating"]?.defaultValue as? Int16 == 0)
        #expect(entry.attributesByName["date"]?.attributeType == .dateAttributeType)
        #expect(entry.attributesByName["date"]?.isOptional == true)
        // The model compiles into the runtime: one entity, its six attributes.
        #expect(model.runtimeModel.entity(named: "JournalEntry")?.attributes.count == 6)
        #expect(model.sourceURL == Fixtures.surfJournalModel)
    }

    /// A `.xcdatamodeld` is read at the version its `.xccurrentversion` names (Xcode's
    /// "Current" model version), not the first one.
    @Test func theCurrentVersionIsTheOneXccurrentversionNames() throws {
        let model = try Self.notebook()
        #expect(model.versionIdentifiers == ["v2"])
        #expect(model.entitiesByName["Note"]?.attributesByName["pinned"] != nil)
        let v1 = try #require(NSManagedObjectModel(contentsOf: Fixtures.url("Notebook.xcdatamodeld/Notebook.xcdatamodel")))
        #expect(v1.versionIdentifiers == ["v1"])
        #expect(v1.entitiesByName["Note"]?.attributesByName["pinned"] == nil)
    }

    /// Every attribute type, with Core Data's `NSAttributeType` and its default value
    /// converted to the type (`defaultValue`: "the default value of the attribute";
    /// a Date default is seconds since the reference date, as Xcode writes
    /// `defaultDateTimeInterval`).
    @Test func everyAttributeTypeAndItsDefault() throws {
        let note = try #require(try Self.notebook().entitiesByName["Note"])
        let a = note.attributesByName
        let expected: [String: NSAttributeType] = [
            "body": .stringAttributeType, "created": .dateAttributeType, "draft": .stringAttributeType, "identifier": .UUIDAttributeType,
            "link": .URIAttributeType, "pinned": .booleanAttributeType, "price": .decimalAttributeType, "priority": .integer16AttributeType,
            "revision": .integer64AttributeType, "score": .doubleAttributeType, "tags": .transformableAttributeType,
            "thumbnail": .binaryDataAttributeType, "title": .stringAttributeType, "weight": .floatAttributeType, "wordCount": .integer32AttributeType,
        ]
        #expect(a.mapValues(\.attributeType) == expected)
        #expect(a["title"]?.defaultValue as? String == "Untitled")
        #expect(a["pinned"]?.defaultValue as? Bool == true)
        #expect(a["priority"]?.defaultValue as? Int16 == 3)
        #expect(a["wordCount"]?.defaultValue as? Int32 == 0)
        #expect(a["revision"]?.defaultValue as? Int64 == -7)
        #expect(a["score"]?.defaultValue as? Double == 0.5)
        #expect(a["weight"]?.defaultValue as? Float == 1.25)
        #expect(a["price"]?.defaultValue as? Decimal == Decimal(string: "9.99"))
        #expect(a["created"]?.defaultValue as? Date == Date(timeIntervalSinceReferenceDate: 86400))
        #expect(a["identifier"]?.defaultValue as? UUID == UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF"))
        #expect(a["link"]?.defaultValue as? URL == URL(string: "https://example.com/notes"))
        #expect(a["body"]?.defaultValue == nil)
        #expect(a["tags"]?.valueTransformerName == "NSSecureUnarchiveFromData")
        #expect(a["tags"]?.attributeValueClassName == "[String]")
        #expect(a["thumbnail"]?.allowsExternalBinaryDataStorage == true)
        #expect(a["draft"]?.isTransient == true)
        #expect(a["title"]?.isOptional == false)
        #expect(a["body"]?.isOptional == true)
        #expect(a["priority"]?.usesScalarValueType == true)
        #expect(a["wordCount"]?.usesScalarValueType == false)
        #expect(a["title"]?.userInfo?["maxLength"] as? String == "120")
    }

    @Test func relationshipsConstraintsIndexesAndUserInfo() throws {
        let model = try Self.notebook()
        let note = try #require(model.entitiesByName["Note"])
        let folder = try #require(model.entitiesByName["Folder"])
        let toFolder = try #require(note.relationshipsByName["folder"])
        let notes = try #require(folder.relationshipsByName["notes"])
        #expect(toFolder.destinationEntity === folder)
        #expect(toFolder.inverseRelationship === notes)
        #expect(notes.inverseRelationship === toFolder)
        #expect(!toFolder.isToMany && toFolder.maxCount == 1)
        #expect(notes.isToMany && notes.maxCount == 100 && notes.minCount == 0)
        #expect(notes.deleteRule == .cascadeDeleteRule)
        #expect(toFolder.deleteRule == .nullifyDeleteRule)
        #expect(toFolder.userInfo?["display"] as? String == "Folder")
        #expect(note.uniquenessConstraints.map { $0.compactMap { $0 as? String } } == [["identifier"], ["title", "folder"]])
        #expect(note.indexes.map(\.name) == ["byCreatedIndex", "byTitleAndPriority"])
        #expect(note.indexes.last?.elements.map(\.propertyName) == ["title", "priority"])
        #expect(note.indexes.last?.elements.first?.property === note.propertiesByName["title"])
        #expect(note.indexes.last?.entity === note)
        #expect(note.userInfo?["source"] as? String == "fixture")
        #expect(note.userInfo?["owner"] as? String == "notes team")
        #expect(note.managedObjectClassName == "Note")
        #expect(note.codeGenerationType == "class")
        #expect(folder.codeGenerationType == "category")
        #expect(folder.attributesByName["name"]?.defaultValue as? String == "Inbox")
    }

    /// Inheritance, abstract entities, ordered to-many with counts, Deny and No Action
    /// rules (`NSEntityDescription.superentity`/`subentities`, `isAbstract`;
    /// `NSRelationshipDescription.isOrdered`, `minCount`, `maxCount`, `deleteRule`).
    @Test func inheritanceAndOrderedRelationshipsAreRead() throws {
        let model = try #require(NSManagedObjectModel(contentsOf: Fixtures.url("Shapes.xcdatamodel")))
        let shape = try #require(model.entitiesByName["Shape"])
        let circle = try #require(model.entitiesByName["Circle"])
        #expect(shape.isAbstract)
        #expect(circle.superentity === shape)
        #expect(Set(shape.subentities.compactMap(\.name)) == ["Circle", "Square"])
        #expect(circle.attributesByName.keys.sorted() == ["color", "radius"])
        #expect(circle.relationshipsByName["canvas"]?.deleteRule == .noActionDeleteRule)
        #expect(circle.isKindOf(entity: shape))
        let shapes = try #require(model.entitiesByName["Canvas"]?.relationshipsByName["shapes"])
        #expect(shapes.isOrdered && shapes.isToMany && shapes.minCount == 1 && shapes.maxCount == 12)
        #expect(shapes.deleteRule == .denyDeleteRule)
    }

    @Test func aMalformedContentsFileNamesTheFileAndLine() throws {
        #expect(throws: XcodeModelError.self) { try XcodeModelReader.load(from: Fixtures.url("Malformed.xcdatamodel")) }
        do {
            _ = try XcodeModelReader.load(from: Fixtures.url("Malformed.xcdatamodel"))
        } catch {
            #expect(error.kind == .malformedXML)
            #expect(error.file.hasSuffix("Malformed.xcdatamodel/contents"))
            // The unclosed <attribute> of line 5 is found where </entity> closes it, at line 6.
            #expect(error.line == 6)
            #expect(error.description.contains("Malformed.xcdatamodel/contents:6:"))
        }
    }

    @Test func anUnknownAttributeTypeNamesTheEntityAndAttribute() throws {
        do {
            _ = try XcodeModelReader.load(from: Fixtures.url("UnknownType.xcdatamodel"))
            Issue.record("the model loaded")
        } catch {
            #expect(error.kind == .unknownAttributeType)
            #expect(error.message.contains("Invoice.total"))
            #expect(error.message.contains("'Money'"))
            #expect(error.line == 5)
        }
    }

    @Test func aMissingDestinationEntityNamesTheRelationship() throws {
        do {
            _ = try XcodeModelReader.load(from: Fixtures.url("MissingDestination.xcdatamodel"))
            Issue.record("the model loaded")
        } catch {
            #expect(error.kind == .missingEntity)
            #expect(error.message.contains("Invoice.customer"))
            #expect(error.message.contains("Customer"))
            #expect(error.line == 5)
        }
    }

    @Test func severalVersionsWithoutXccurrentversionIsRefused() throws {
        do {
            _ = try XcodeModelReader.load(from: Fixtures.url("Unversioned.xcdatamodeld"))
            Issue.record("the model loaded")
        } catch {
            #expect(error.kind == .noCurrentVersion)
            #expect(error.message.contains("A.xcdatamodel, B.xcdatamodel"))
        }
    }

    /// `init?(contentsOf:)` is failable, as Core Data's: nil for a model that cannot be
    /// read, with the reason on stderr.
    @Test func initContentsOfReturnsNilForBadModels() {
        #expect(NSManagedObjectModel(contentsOf: Fixtures.url("UnknownType.xcdatamodel")) == nil)
        #expect(NSManagedObjectModel(contentsOf: Fixtures.url("Nothing.xcdatamodeld")) == nil)
    }

    @Test func badDefaultValuesAreNamed() throws {
        let dir = TempDirectory("bad-default")
        let model = dir.file("Bad.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Thing" syncable="YES">
                <attribute name="count" attributeType="Integer 16" defaultValueString="70000"/>
            </entity>
        </model>
        """.write(to: model.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        do {
            _ = try XcodeModelReader.load(from: model)
            Issue.record("the model loaded")
        } catch {
            #expect(error.kind == .invalidValue)
            #expect(error.message.contains("Thing.count") && error.message.contains("70000"))
            #expect(error.line == 4)
        }
    }

    /// Code written for Apple platforms passes the compiled `Name.momd`; on Linux the
    /// source `Name.xcdatamodeld` beside it (or in the program's resources) is read.
    @Test func aMomdURLReadsTheSourceModel() throws {
        let model = try #require(NSManagedObjectModel(contentsOf: Fixtures.url("Notebook.momd")))
        #expect(model.versionIdentifiers == ["v2"])
        #expect(NSManagedObjectModel(contentsOf: Fixtures.url("NoSuchModel.momd")) == nil)
    }

    /// A model with entities but no class names gives `NSManagedObject`, as Core Data's
    /// `managedObjectClassName` does.
    @Test func entitiesWithoutAClassAreNSManagedObject() throws {
        let model = try #require(NSManagedObjectModel(contentsOf: Fixtures.url("Unversioned.xcdatamodeld/A.xcdatamodel")))
        #expect(model.entitiesByName["Item"]?.managedObjectClassName == "NSManagedObject")
    }
}

/// Finding a model for `NSPersistentContainer(name:)`: SwiftPM puts a target's resources
/// in `Package_Target.resources` next to the executable, with a `.xcdatamodeld` copied
/// as it is (`.copy` and, on Linux, `.process` alike).
@Suite struct XcodeModelLocatorTests {
    static func makeModel(_ url: URL) throws {
        let version = url.appendingPathComponent("M.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try Data(contentsOf: Fixtures.url("Unversioned.xcdatamodeld/A.xcdatamodel/contents")).write(to: version.appendingPathComponent("contents"))
    }

    @Test func aModelInAResourceBundleNextToTheExecutableIsFound() throws {
        let dir = TempDirectory("locator")
        try Self.makeModel(dir.file("App_Storage.resources/Journal.xcdatamodeld"))
        try Self.makeModel(dir.file("App_Other.resources/Nested/Archive.xcdatamodeld"))
        let found = XcodeModelLocator.modelURL(named: "Journal", in: [dir.url])
        #expect(found?.path == dir.file("App_Storage.resources/Journal.xcdatamodeld").path)
        #expect(XcodeModelLocator.modelURL(named: "Archive", in: [dir.url])?.lastPathComponent == "Archive.xcdatamodeld")
        #expect(XcodeModelLocator.modelURL(named: "Missing", in: [dir.url]) == nil)
        let all = XcodeModelLocator.allModelURLs(in: [dir.url]).map(\.lastPathComponent).sorted()
        #expect(all == ["Archive.xcdatamodeld", "Journal.xcdatamodeld"])
    }

    /// A model at the top of the first directory (`Bundle.main`'s resources) wins over
    /// one in a resource bundle, as Core Data looks in the main bundle.
    @Test func theFirstDirectoryWins() throws {
        let main = TempDirectory("locator-main")
        let exe = TempDirectory("locator-exe")
        try Self.makeModel(main.file("Journal.xcdatamodeld"))
        try Self.makeModel(exe.file("App_Storage.resources/Journal.xcdatamodeld"))
        #expect(XcodeModelLocator.modelURL(named: "Journal", in: [main.url, exe.url])?.path == main.file("Journal.xcdatamodeld").path)
    }

    /// The test runner itself: the search includes the executable's folder (where
    /// SwiftPM's `*.resources` bundles are).
    @Test func theSearchIncludesTheExecutablesFolder() throws {
        let exe = try #require(Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent())
        #expect(XcodeModelLocator.searchDirectories().contains { $0.standardizedFileURL.path == exe.standardizedFileURL.path })
    }

    /// `Bundle.main.url(forResource: "Model", withExtension: "momd")!` is how most stacks
    /// written before NSPersistentContainer (and many test stacks since) find the model;
    /// on Linux there is no .momd, so the force unwrap crashed. `ctxdebug port` writes
    /// `url(forModelResource:withExtension:)` for it, which finds the Xcode model.
    @Test func aBundleFindsTheModelWhereTheCompiledOneWouldBe() throws {
        let dir = TempDirectory("model-resource")
        try FileManager.default.copyItem(at: Fixtures.url("Notebook.xcdatamodeld"), to: dir.file("Notebook.xcdatamodeld"))
        try Self.makeModel(dir.file("App_Storage.resources/Journal.xcdatamodeld"))
        try FileManager.default.createDirectory(at: dir.file("Compiled.momd"), withIntermediateDirectories: true)
        // (Before the bundle is made: Foundation reads a bundle's folder once.)
        let bundle = try #require(Bundle(url: dir.url))
        let notebook = try #require(bundle.url(forModelResource: "Notebook", withExtension: "momd"))
        #expect(notebook.standardizedFileURL.path == dir.file("Notebook.xcdatamodeld").standardizedFileURL.path)
        #expect(try #require(NSManagedObjectModel(contentsOf: notebook)).versionIdentifiers == ["v2"])
        #expect(bundle.path(forModelResource: "Notebook", ofType: "mom") == notebook.path)
        // In a SwiftPM resource bundle inside it, as in the program's own folder.
        #expect(bundle.url(forModelResource: "Journal", withExtension: "momd")?.lastPathComponent == "Journal.xcdatamodeld")
        // A compiled model the bundle does have is what it returns.
        #expect(bundle.url(forModelResource: "Compiled", withExtension: "momd")?.lastPathComponent == "Compiled.momd")
        // None: nil, as Foundation's lookup gives, so the app's own handling runs.
        #expect(bundle.url(forModelResource: "NoSuchModel", withExtension: "momd") == nil)
        #expect(bundle.path(forModelResource: "NoSuchModel", ofType: "momd") == nil)
    }

    /// Core Data by Tutorials' EmployeeDirectory (ch. 8) ships a model whose `Sale.amount`
    /// is an Integer 16 with the default `0.0`, which Xcode's model compiler reads as 0:
    /// the model loads, with that default; a fraction is still refused.
    @Test func anIntegerDefaultWrittenAsADecimalIsTheInteger() {
        #expect(XcodeAttribute.value(of: "0.0", type: .integer16AttributeType) as? Int16 == 0)
        #expect(XcodeAttribute.value(of: "12.00", type: .integer32AttributeType) as? Int32 == 12)
        #expect(XcodeAttribute.value(of: "-3.0", type: .integer64AttributeType) as? Int64 == -3)
        #expect(XcodeAttribute.value(of: "7", type: .integer16AttributeType) as? Int16 == 7)
        #expect(XcodeAttribute.value(of: "1.5", type: .integer16AttributeType) == nil)
        #expect(XcodeAttribute.value(of: "40000.0", type: .integer16AttributeType) == nil)
        #expect(XcodeAttribute.value(of: "nan", type: .integer32AttributeType) == nil)
    }

    /// `NSPersistentContainer.defaultDirectoryURL()` exists once asked for, as an app's
    /// Application Support folder does: SurfJournal copies its seeded store there before
    /// it loads the store, and a fresh Linux user has no `~/.local/share`.
    @Test func theDefaultDirectoryExistsOnceAskedFor() {
        var isDirectory: ObjCBool = false
        let url = NSPersistentContainer.defaultDirectoryURL()
        #expect(FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    /// `Bundle(identifier: "com.hexedbits.ExampleModel")!` (JSQCoreDataKit's example model
    /// framework) is nil on Linux, which has no framework bundles: `ctxdebug port` writes
    /// `Bundle(portedIdentifier:)`, the program's bundle, whose lookup searches the
    /// program's resources as the framework's would its own.
    @Test func aBundleByIdentifierIsTheProgramsOnLinux() throws {
        #expect(Bundle(identifier: "com.hexedbits.ExampleModel") == nil)
        let bundle = try #require(Bundle(portedIdentifier: "com.hexedbits.ExampleModel"))
        #expect(bundle.bundleURL.standardizedFileURL.path == Bundle.main.bundleURL.standardizedFileURL.path)
        #expect(XcodeModelLocator.searchDirectories().contains { $0.standardizedFileURL.path == bundle.bundleURL.standardizedFileURL.path })
    }

    /// A framework's identifier ends in its product's name: JSQCoreDataKit's tests find their
    /// models by `Bundle(identifier: "com.hexedbits.ExampleModel")`, and list every model in
    /// it (`test_ThatFindModelsInBundle_ReturnsExpectedModels`). When a module of the
    /// program by that name has a resource bundle, it is that framework's bundle, with its
    /// models only, not every model of the program.
    @Test func aFrameworksIdentifierIsItsModulesResourceBundle() throws {
        let bundle = try #require(Bundle(portedIdentifier: "com.example.SurfJournal"))
        #expect(bundle.bundleURL.lastPathComponent == "ctxdebug_SurfJournal.resources")
        #expect(bundle.urls(forModelResourcesWithExtension: "momd", subdirectory: nil)?.map(\.lastPathComponent) == ["SurfJournalModel.xcdatamodeld"])
    }

    /// SurfJournal's stack seeds its store from `Bundle.main.url(forResource: modelName,
    /// withExtension: "sqlite")!` (Core Data by Tutorials, ch. 9), and BubbleTeaFinder and
    /// WorldCup read `seed.json` the same way: on Linux SwiftPM puts those resources in a
    /// `Package_Target.resources` bundle, which Foundation's lookup does not search, so
    /// `ctxdebug port` writes `url(forPortedResource:withExtension:)`, which does.
    @Test func aMainBundleResourceIsFoundInTheProgramsResourceBundles() throws {
        let dir = TempDirectory("ported-resource")
        try FileManager.default.createDirectory(at: dir.file("App_Journal.resources/CoreDataSeed"), withIntermediateDirectories: true)
        try Data("seed".utf8).write(to: dir.file("App_Journal.resources/CoreDataSeed/PortedSeedModel.sqlite"))
        try Data("{}".utf8).write(to: dir.file("App_Journal.resources/ported-seed.json"))
        let bundle = try #require(Bundle(url: dir.url))
        #expect(bundle.url(forResource: "ported-seed", withExtension: "json") == nil)
        #expect(bundle.url(forPortedResource: "ported-seed", withExtension: "json")?.lastPathComponent == "ported-seed.json")
        // `.copy` of a folder keeps it: its immediate contents are searched too.
        let seed = try #require(bundle.path(forPortedResource: "PortedSeedModel", ofType: "sqlite"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: seed)) == Data("seed".utf8))
        #expect(bundle.url(forPortedResource: "PortedSeedModel", withExtension: "sqlite-wal") == nil)
        #expect(bundle.url(forPortedResource: nil, withExtension: "json") == nil)
    }

    /// `mergedModel(from: nil)` searches the main bundle: on Linux the program's own
    /// SwiftPM resource bundles, not every bundle of the build folder it runs from. A
    /// build folder holds the bundles of every target built there (another program's
    /// model of the same entities made the merge refuse: AERecord's demo beside a
    /// migration example). A stray bundle of a module this test program does not link,
    /// holding SurfJournal's model again, is left out, and SurfJournal's own is merged.
    @Test func mergedModelOfTheMainBundleLeavesOutBundlesOfOtherPrograms() throws {
        let folder = try #require(Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent())
        let stray = folder.appendingPathComponent("ctxdebug_StrayTargetNotInThisProgram.resources")
        try? FileManager.default.removeItem(at: stray)
        try FileManager.default.createDirectory(at: stray, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: stray) }
        // The test program links SurfJournal (its tests share this binary), whose bundle holds its model.
        let surfJournal = folder.appendingPathComponent("ctxdebug_SurfJournal.resources/SurfJournalModel.xcdatamodeld")
        try #require(FileManager.default.fileExists(atPath: surfJournal.path))
        try FileManager.default.copyItem(at: surfJournal, to: stray.appendingPathComponent(surfJournal.lastPathComponent))

        let linked = try #require(ProgramSymbols.resourceBundleModules)
        #expect(linked.contains("SurfJournal") && !linked.contains("StrayTargetNotInThisProgram"))
        let merged = try #require(NSManagedObjectModel.mergedModel(from: nil))
        #expect(merged.entitiesByName["JournalEntry"] != nil)
        #expect(!XcodeModelLocator.allModelURLs(in: XcodeModelLocator.searchDirectories()).contains { $0.path.contains(stray.lastPathComponent) })
    }

    @Test func aResourceBundleIsTheProgramsWhenItsModuleIsLinked() {
        let linked: Set<String> = ["App", "Model_Kit"]
        #expect(XcodeModelLocator.isPartOfProgram(URL(fileURLWithPath: "/b/Pkg_App.resources"), linkedModules: linked))
        #expect(XcodeModelLocator.isPartOfProgram(URL(fileURLWithPath: "/b/Pkg_Model-Kit.resources"), linkedModules: linked))
        #expect(!XcodeModelLocator.isPartOfProgram(URL(fileURLWithPath: "/b/Pkg_AppTests.resources"), linkedModules: linked))
        #expect(XcodeModelLocator.isPartOfProgram(URL(fileURLWithPath: "/b/Legacy.bundle"), linkedModules: linked))
        #expect(XcodeModelLocator.isPartOfProgram(URL(fileURLWithPath: "/b/Pkg_AppTests.resources"), linkedModules: nil))
    }

    /// `mergedModel(from:)`: the entities of every model in the bundles; nil when two
    /// define the same entity ("Can't merge models with two different entities named").
    @Test func mergedModelTakesEveryModelsEntities() throws {
        let dir = TempDirectory("merged")
        try FileManager.default.copyItem(at: Fixtures.url("Notebook.xcdatamodeld"), to: dir.file("Notebook.xcdatamodeld"))
        try FileManager.default.copyItem(at: Fixtures.url("Shapes.xcdatamodel"), to: dir.file("Shapes.xcdatamodel"))
        let bundle = try #require(Bundle(url: dir.url))
        let merged = try #require(NSManagedObjectModel.mergedModel(from: [bundle]))
        #expect(Set(merged.entitiesByName.keys) == ["Canvas", "Circle", "Folder", "Note", "Shape", "Square"])
        try FileManager.default.copyItem(at: Fixtures.url("Notebook.xcdatamodeld/Notebook.xcdatamodel"), to: dir.file("Again.xcdatamodel"))
        #expect(NSManagedObjectModel.mergedModel(from: [bundle]) == nil)
    }
}
