import Foundation
import GRDB
import TestSupport
import Testing
import XcodeModel

@testable import CoreData

/// Core Data's derived attributes (`NSDerivedAttributeDescription`, iOS 13; WWDC 2019
/// session 230 "Making Apps with Core Data"). What these tests rely on:
/// - Apple's documentation of `NSDerivedAttributeDescription`: the expressions are a
///   to-one key path (`name` or `author.name`), one with a function (`canonical:`,
///   `uppercase:`, `lowercase:`; "The canonical: function returns a case- and
///   diacritic-insensitive String value"), an aggregate of a to-many key path
///   (`friends.@count`, `@sum`), and `now()`. Of `derivationExpression`: "If you try to add
///   a store to a coordinator whose model contains derived attributes of a type not
///   supported by the store, the add fails and throws an error."
/// - NSDerivedAttributeDescription.h: "Derived attributes will be recomputed during save,
///   recomputed values will not be reflected in a managed object's property until after a
///   save. NOTE: Prior to macOS 10.16, iOS 14.0 … a refresh of the object is required after
///   a save to reflect recomputed values" — so after the save, without a refresh.
/// - Fatbobman, "How to use Derived and Transient Properties in Core Data" (2021): the
///   values are computed by SQLite triggers when the data is saved (a `now()` trigger
///   `AFTER UPDATE OF Z_OPT`, a `@count` as `SELECT IFNULL(COUNT(ZITEM), 0) FROM
///   ZATTACHEMENT WHERE ZITEM = ZITEM.Z_PK`), a copy is typically of a to-one's attribute
///   (`todolist.name`), a sum is written `student.age.@sum`; the app does not set them (a
///   value set with `setPrimitiveValue` in `awakeFromInsert` "will be overwritten" by the
///   store's at save).
/// - Xcode's `contents` XML: `<attribute name="titleUpper" optional="YES"
///   attributeType="String" derived="YES" derivationExpression="uppercase:(title)"/>`, and
///   `derivationExpression="legalEntity.name"`, `"now()"`, `"title"` (model files found
///   with the search corpus: GNUstep CoreData port's MomcSerializerTests, MIODataModelEditor's
///   DerivationTests).
/// That a to-one copy follows a later rename of its destination is our reading of the
/// trigger design (a trigger on the destination's table), not something Apple states.
@Suite("Derived attributes")
struct DerivedAttributeTests {
    static func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
        let a = NSAttributeDescription()
        a.name = name
        a.attributeType = type
        return a
    }

    static func derived(_ name: String, _ type: NSAttributeType, _ format: String) -> NSDerivedAttributeDescription {
        let a = NSDerivedAttributeDescription()
        a.name = name
        a.attributeType = type
        a.derivationExpression = NSExpression(format: format)
        return a
    }

    /// Folder (name; derived copies, lowercase, canonical, note count, word sum, now())
    /// and Note (title, words; derived folder.name), Folder.notes ↔ Note.folder.
    static func model(folderExtras: [NSPropertyDescription] = []) -> NSManagedObjectModel {
        let folder = NSEntityDescription()
        folder.name = "Folder"
        folder.managedObjectClassName = "NSManagedObject"
        let note = NSEntityDescription()
        note.name = "Note"
        note.managedObjectClassName = "NSManagedObject"
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
        folder.properties =
            [
                attribute("name", .stringAttributeType),
                derived("nameCopy", .stringAttributeType, "name"),
                derived("nameLower", .stringAttributeType, "lowercase:(name)"),
                derived("nameUpper", .stringAttributeType, "uppercase:(name)"),
                derived("searchName", .stringAttributeType, "canonical:(name)"),
                derived("noteCount", .integer64AttributeType, "notes.@count"),
                derived("wordTotal", .integer64AttributeType, "notes.@sum.words"),
                derived("touched", .dateAttributeType, "now()"),
                notes,
            ] + folderExtras
        note.properties = [
            attribute("title", .stringAttributeType),
            attribute("words", .integer64AttributeType),
            derived("folderName", .stringAttributeType, "folder.name"),
            toFolder,
        ]
        let model = NSManagedObjectModel()
        model.entities = [folder, note]
        return model
    }

    static func container(_ model: NSManagedObjectModel, at url: URL) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Derived", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    static func insert(_ entity: String, _ context: NSManagedObjectContext, _ values: [String: Any]) -> NSManagedObject {
        let o = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
        for (k, v) in values { o.setValue(v, forKey: k) }
        return o
    }

    static func int(_ v: Any?) -> Int? {
        if let i = v as? Int64 { return Int(i) }
        if let i = v as? Int { return i }
        if let i = v as? Int32 { return Int(i) }
        return (v as? NSNumber)?.intValue
    }

    /// A column of the store, read with SQLite itself.
    static func column(_ url: URL, _ sql: String) throws -> [String?] {
        try DatabaseQueue(path: url.path).read { db in try String?.fetchAll(db, sql: sql) }
    }

    @Test("a key path, lowercase:, uppercase: and canonical: are computed at save, not before")
    func copyAndStringFunctions() throws {
        let dir = TempDirectory("derived")
        let container = try Self.container(Self.model(), at: dir.file("D.sqlite"))
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let folder = Self.insert("Folder", context, ["name": "Ève Café"])
            // Not reflected before a save (NSDerivedAttributeDescription.h).
            #expect(folder.value(forKey: "nameLower") == nil)
            try context.save()
            #expect(folder.value(forKey: "nameCopy") as? String == "Ève Café")
            #expect(folder.value(forKey: "nameLower") as? String == "ève café")
            #expect(folder.value(forKey: "nameUpper") as? String == "ÈVE CAFÉ")
            #expect(folder.value(forKey: "searchName") as? String == "eve cafe")
            folder.setValue("Über", forKey: "name")
            try context.save()
            #expect(folder.value(forKey: "searchName") as? String == "uber")
            #expect(folder.value(forKey: "nameCopy") as? String == "Über")
        }
        let stored = try Self.column(dir.file("D.sqlite"), "SELECT ZSEARCHNAME FROM ZFOLDER")
        #expect(stored == ["uber"])
    }

    @Test("a value the app sets is replaced by the store's at save")
    func anAppSetValueIsRecomputed() throws {
        let dir = TempDirectory("derived")
        let container = try Self.container(Self.model(), at: dir.file("D.sqlite"))
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let folder = Self.insert("Folder", context, ["name": "Inbox", "nameLower": "set by the app"])
            try context.save()
            #expect(folder.value(forKey: "nameLower") as? String == "inbox")
        }
    }

    /// Fatbobman: a derived attribute that is not optional fails the save with Code=1570
    /// ("count is a required value") unless the app gives it a placeholder (with
    /// `setPrimitiveValue` in `awakeFromInsert`), which the store's value then replaces.
    @Test("a non-optional derived attribute is validated like any other before the store derives it")
    func aMandatoryDerivedAttributeNeedsAPlaceholder() throws {
        let dir = TempDirectory("derived")
        let mandatory = Self.derived("mandatoryCount", .integer64AttributeType, "notes.@count")
        mandatory.isOptional = false
        let container = try Self.container(Self.model(folderExtras: [mandatory]), at: dir.file("D.sqlite"))
        let context = container.newBackgroundContext()
        context.performAndWait {
            let folder = Self.insert("Folder", context, ["name": "Inbox"])
            do {
                try context.save()
                Issue.record("the save did not fail")
            } catch {
                #expect((error as NSError).code == NSValidationMissingMandatoryPropertyError)
            }
            folder.setPrimitiveValue(Int64(-1), forKey: "mandatoryCount")
            do {
                try context.save()
                #expect(Self.int(folder.value(forKey: "mandatoryCount")) == 0)
            } catch {
                Issue.record("the save failed: \(error)")
            }
        }
    }

    @Test("a key path through a to-one relationship copies the destination's attribute, and follows its rename")
    func toOneKeyPath() throws {
        let dir = TempDirectory("derived")
        let container = try Self.container(Self.model(), at: dir.file("D.sqlite"))
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let folder = Self.insert("Folder", context, ["name": "Work"])
            let note = Self.insert("Note", context, ["title": "a", "words": Int64(3)])
            note.setValue(folder, forKey: "folder")
            try context.save()
            #expect(note.value(forKey: "folderName") as? String == "Work")
            folder.setValue("Play", forKey: "name")
            try context.save()
            #expect(note.value(forKey: "folderName") as? String == "Play")
            note.setValue(nil, forKey: "folder")
            try context.save()
            #expect(note.value(forKey: "folderName") == nil)
        }
        #expect(try Self.column(dir.file("D.sqlite"), "SELECT ZFOLDERNAME FROM ZNOTE") == [nil])
    }

    @Test("@count and @sum of a to-many relationship follow added, moved, changed and deleted members")
    func toManyAggregates() throws {
        let dir = TempDirectory("derived")
        let container = try Self.container(Self.model(), at: dir.file("D.sqlite"))
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let work = Self.insert("Folder", context, ["name": "Work"])
            let play = Self.insert("Folder", context, ["name": "Play"])
            try context.save()
            #expect(Self.int(work.value(forKey: "noteCount")) == 0)
            #expect(Self.int(work.value(forKey: "wordTotal")) == 0)
            let a = Self.insert("Note", context, ["title": "a", "words": Int64(3), "folder": work])
            let b = Self.insert("Note", context, ["title": "b", "words": Int64(4), "folder": work])
            try context.save()
            #expect(Self.int(work.value(forKey: "noteCount")) == 2)
            #expect(Self.int(work.value(forKey: "wordTotal")) == 7)
            // Added through the to-many side.
            let c = Self.insert("Note", context, ["title": "c", "words": Int64(10)])
            work.mutableSetValue(forKey: "notes").add(c)
            try context.save()
            #expect(Self.int(work.value(forKey: "noteCount")) == 3)
            #expect(Self.int(work.value(forKey: "wordTotal")) == 17)
            // Moved to another folder.
            b.setValue(play, forKey: "folder")
            try context.save()
            #expect(Self.int(work.value(forKey: "noteCount")) == 2)
            #expect(Self.int(play.value(forKey: "noteCount")) == 1)
            #expect(Self.int(play.value(forKey: "wordTotal")) == 4)
            // A member's summed attribute changed.
            a.setValue(Int64(30), forKey: "words")
            try context.save()
            #expect(Self.int(work.value(forKey: "wordTotal")) == 40)
            // Deleted.
            context.delete(c)
            try context.save()
            #expect(Self.int(work.value(forKey: "noteCount")) == 1)
            #expect(Self.int(work.value(forKey: "wordTotal")) == 30)
        }
        let counts = try Self.column(dir.file("D.sqlite"), "SELECT ZNOTECOUNT FROM ZFOLDER ORDER BY ZNAME")
        #expect(counts == ["1", "1"])
    }

    @Test("now() is the time of the save that wrote the row")
    func nowIsTheSaveTime() throws {
        let dir = TempDirectory("derived")
        let container = try Self.container(Self.model(), at: dir.file("D.sqlite"))
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let folder = Self.insert("Folder", context, ["name": "Inbox"])
            #expect(folder.value(forKey: "touched") == nil)
            let before = Date()
            try context.save()
            let first = try #require(folder.value(forKey: "touched") as? Date)
            #expect(first >= before.addingTimeInterval(-0.001) && first <= Date().addingTimeInterval(0.001))
            // The clock moves past the first save's time before the second save (no sleep).
            while Date() <= first {}
            folder.setValue("Outbox", forKey: "name")
            try context.save()
            let second = try #require(folder.value(forKey: "touched") as? Date)
            #expect(second > first)
        }
    }

    @Test("a fresh coordinator on the same file reads the derived values")
    func aFreshCoordinatorReadsThem() throws {
        let dir = TempDirectory("derived")
        do {
            let container = try Self.container(Self.model(), at: dir.file("D.sqlite"))
            let context = container.newBackgroundContext()
            try context.performAndWait {
                let folder = Self.insert("Folder", context, ["name": "Ärger"])
                _ = Self.insert("Note", context, ["title": "a", "words": Int64(5), "folder": folder])
                try context.save()
            }
        }
        let reopened = try Self.container(Self.model(), at: dir.file("D.sqlite"))
        let context = reopened.newBackgroundContext()
        try context.performAndWait {
            let folders = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Folder"))
            let folder = try #require(folders.first)
            #expect(folder.value(forKey: "searchName") as? String == "arger")
            #expect(Self.int(folder.value(forKey: "noteCount")) == 1)
            #expect(Self.int(folder.value(forKey: "wordTotal")) == 5)
            #expect(folder.value(forKey: "touched") is Date)
            let notes = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
            #expect(notes.first?.value(forKey: "folderName") as? String == "Ärger")
            // A fetch can use the derived column, which is what it is for.
            let request = NSFetchRequest<NSManagedObject>(entityName: "Folder")
            request.predicate = NSPredicate(format: "searchName == %@", "arger")
            #expect(try context.count(for: request) == 1)
        }
    }

    static func writeModel(_ dir: TempDirectory, _ body: String) throws -> URL {
        let model = dir.file("Derived.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="23231" systemVersion="24A335" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
        \(body)
        </model>
        """.write(to: model.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        return model
    }

    static let xcodeEntities = """
            <entity name="Author" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="searchName" optional="YES" attributeType="String" derived="YES" derivationExpression="canonical:(name)"/>
                <attribute name="bookCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="books.@count"/>
                <attribute name="pageTotal" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="books.pages.@sum"/>
                <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
            </entity>
            <entity name="Book" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="title" optional="YES" attributeType="String"/>
                <attribute name="pages" optional="YES" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="titleUpper" optional="YES" attributeType="String" derived="YES" derivationExpression="uppercase:(title)"/>
                <attribute name="authorName" optional="YES" attributeType="String" derived="YES" derivationExpression="author.name"/>
                <attribute name="stamp" optional="YES" attributeType="Date" derived="YES" derivationExpression="now()"/>
                <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
            </entity>
        """

    @Test("an Xcode model's derived attributes load as NSDerivedAttributeDescription and derive")
    func xcodeModelDerivedAttributes() throws {
        let dir = TempDirectory("derived-xcode")
        let url = try Self.writeModel(dir, Self.xcodeEntities)
        let model = try XcodeModelReader.load(from: url)
        let author = try #require(model.entitiesByName["Author"])
        let search = try #require(author.attributesByName["searchName"] as? NSDerivedAttributeDescription)
        #expect(search.derivationExpression?.expressionType == .function)
        #expect(search.derivationExpression?.description == "canonical:(name)")
        #expect((author.attributesByName["bookCount"] as? NSDerivedAttributeDescription)?.derivationExpression?.keyPath == "books.@count")
        #expect(!(author.attributesByName["name"] is NSDerivedAttributeDescription))

        let container = try Self.container(model, at: dir.file("X.sqlite"))
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let writer = Self.insert("Author", context, ["name": "Émile Zola"])
            let book = Self.insert("Book", context, ["title": "Germinal", "pages": Int32(600), "author": writer])
            _ = Self.insert("Book", context, ["title": "Nana", "pages": Int32(400), "author": writer])
            try context.save()
            #expect(writer.value(forKey: "searchName") as? String == "emile zola")
            #expect(Self.int(writer.value(forKey: "bookCount")) == 2)
            #expect(Self.int(writer.value(forKey: "pageTotal")) == 1000)
            #expect(book.value(forKey: "titleUpper") as? String == "GERMINAL")
            #expect(book.value(forKey: "authorName") as? String == "Émile Zola")
            #expect(book.value(forKey: "stamp") is Date)
        }
    }

    @Test(
        "a malformed or unsupported derivation in an Xcode model is refused with the entity, attribute, file and line",
        arguments: [
            ("lowercase:(name", "does not parse"),
            ("lowercase:(nosuch)", "nosuch"),
            ("name.@bogus", "@bogus"),
            ("books.@count", "books"),
            ("reverse:(name)", "reverse:"),
            ("now()", "Date"),
        ])
    func malformedXcodeDerivationsAreRefused(_ expression: String, _ named: String) throws {
        let dir = TempDirectory("derived-bad")
        let url = try Self.writeModel(
            dir,
            """
                <entity name="Thing" representedClassName="Thing" syncable="YES">
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <attribute name="derivedName" optional="YES" attributeType="String" derived="YES" derivationExpression="\(expression)"/>
                </entity>
            """)
        do {
            _ = try XcodeModelReader.load(from: url)
            Issue.record("the model loaded with the derivation \(expression)")
        } catch {
            #expect(error.kind == .invalidValue)
            #expect(error.message.contains("Thing.derivedName"))
            #expect(error.message.contains(named))
            #expect(error.file.hasSuffix("Derived.xcdatamodel/contents"))
            #expect(error.line == 5)
        }
        #expect(NSManagedObjectModel(contentsOf: url) == nil)
    }

    @Test("a model built in code with an unsupported derivation fails loadPersistentStores, naming it")
    func malformedCodeDerivationsAreRefused() throws {
        let dir = TempDirectory("derived-bad")
        let bad = Self.derived("broken", .integer64AttributeType, "notes.@median.words")
        let model = Self.model(folderExtras: [bad])
        #expect(throws: ModelCompileError.self) { try ModelCompiler.checkedDeclarations(of: model) }
        do {
            _ = try Self.container(model, at: dir.file("D.sqlite"))
            Issue.record("the store loaded")
        } catch {
            #expect("\(error)".contains("Folder.broken"))
            #expect("\(error)".contains("@median"))
        }
        let missing = NSDerivedAttributeDescription()
        missing.name = "empty"
        missing.attributeType = .stringAttributeType
        #expect(throws: ModelCompileError.self) { try ModelCompiler.checkedDeclarations(of: Self.model(folderExtras: [missing])) }
    }

    @Test("NSExpression(format:) reads derivations as Core Data's does")
    func expressionFormats() {
        let lower = NSExpression(format: "lowercase:(name)")
        #expect(lower.expressionType == .function && lower.function == "lowercase:")
        #expect(lower.arguments?.first?.keyPath == "name")
        #expect(NSExpression(format: "now()").function == "now")
        #expect(NSExpression(format: "notes.@count").keyPath == "notes.@count")
        #expect(NSExpression(format: "folder.name").keyPath == "folder.name")
    }
}
