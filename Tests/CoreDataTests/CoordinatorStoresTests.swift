import CoreData
import Dispatch
import Foundation
import TestSupport
import Testing

/// The coordinator's own queue and what it does to store files, as Apple documents them
/// (NSPersistentStoreCoordinator: `perform(_:)`, `performAndWait(_:)`,
/// `metadataForPersistentStore(ofType:at:options:)`, `setMetadata(_:for:)`,
/// `destroyPersistentStore(at:ofType:options:)`, `replacePersistentStore(…)`,
/// `migratePersistentStore(_:to:options:withType:)`, `addPersistentStore(with:completionHandler:)`),
/// and the model's configurations and `isConfiguration(withName:compatibleWithStoreMetadata:)`.
@Suite("The coordinator's queue and store files; model configurations")
struct CoordinatorStoresTests {
    static func savedNotes(_ titles: [String], in dir: TempDirectory, file: String = "Notes.sqlite") throws -> (NSPersistentContainer, URL) {
        let container = NSPersistentContainer(name: "Notes", managedObjectModel: NotesModel.make())
        let url = dir.file(file)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for title in titles { Note(context: context).title = title }
            try context.save()
        }
        return (container, url)
    }

    static func titles(at url: URL) throws -> [String] {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NotesModel.make())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(.privateQueue)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait { try context.fetch(NSFetchRequest<Note>(entityName: "Note")).compactMap(\.title).sorted() }
    }

    /// `NSBinaryStoreType`, Core Data's atomic store of one file ("The binary store type",
    /// NSPersistentStoreCoordinator store types), which JSQCoreDataKit's StackTests
    /// builds a stack on: a store at its URL that keeps what is saved, here a SQLite file.
    @Test("a binary store keeps what is saved in its file, reports its type, and is destroyed")
    func aBinaryStore() throws {
        let dir = TempDirectory("binary-store")
        let url = dir.file("Notes.binary")
        do {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NotesModel.make())
            let store = try coordinator.addPersistentStore(ofType: NSBinaryStoreType, configurationName: nil, at: url)
            #expect(store.type == NSBinaryStoreType && store.url == url)
            let context = NSManagedObjectContext(.privateQueue)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                Note(context: context).title = "kept"
                try context.save()
            }
            try coordinator.remove(store)
        }
        #expect(FileManager.default.fileExists(atPath: url.path))
        #expect(try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSBinaryStoreType, at: url)[NSStoreUUIDKey] is String)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NotesModel.make())
        try coordinator.addPersistentStore(ofType: NSBinaryStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(.privateQueue)
        context.persistentStoreCoordinator = coordinator
        #expect(try context.performAndWait { try context.fetch(NSFetchRequest<Note>(entityName: "Note")).compactMap(\.title) } == ["kept"])
        try coordinator.destroyPersistentStore(at: url, ofType: NSBinaryStoreType)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(throws: (any Error).self) { try NSPersistentStoreCoordinator(managedObjectModel: NotesModel.make()).addPersistentStore(ofType: "XML", configurationName: nil, at: url) }
    }

    @Test("perform runs later on the coordinator's queue; performAndWait waits, returns, and is reentrant")
    func performOnTheCoordinatorsQueue() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NotesModel.make())
        let ran = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var performThread: pthread_t?
        coordinator.perform {
            performThread = pthread_self()
            ran.signal()
        }
        ran.wait()
        #expect(performThread != nil)
        let inner = coordinator.performAndWait { coordinator.performAndWait { 41 } + 1 }
        #expect(inner == 42)
        #expect(throws: CocoaError.self) { try coordinator.performAndWait { throw CocoaError(.fileNoSuchFile) } }
    }

    @Test("metadataForPersistentStore reads a store's type, UUID and version hashes without opening it; setMetadata adds keys and keeps those")
    func metadataReadAndWritten() throws {
        let dir = TempDirectory("coordinator-stores")
        let (container, url) = try Self.savedNotes(["a"], in: dir)
        let coordinator = container.persistentStoreCoordinator
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(metadata[NSStoreTypeKey] as? String == NSSQLiteStoreType)
        #expect(metadata[NSStoreUUIDKey] as? String == coordinator.storeUUID)
        #expect((metadata[NSStoreModelVersionHashesKey] as? [String: Any])?.keys.sorted() == ["Folder", "Note"])
        let store = try #require(coordinator.persistentStores.first)
        var changed = coordinator.metadata(for: store)
        changed["lastImport"] = "2026-12-01"
        coordinator.setMetadata(changed, for: store)
        let reread = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        #expect(reread["lastImport"] as? String == "2026-12-01")
        #expect(reread[NSStoreUUIDKey] as? String == coordinator.storeUUID)
        coordinator.setMetadata(["only": 1], for: store)
        #expect(coordinator.metadata(for: store)[NSStoreUUIDKey] as? String == coordinator.storeUUID, "Core Data's own keys stay")
    }

    @Test("metadataForPersistentStore of a missing file or a file that is not a store throws, and changes nothing")
    func metadataOfBadFiles() throws {
        let dir = TempDirectory("coordinator-stores")
        #expect(throws: (any Error).self) { try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: dir.file("none.sqlite")) }
        let text = dir.file("notes.txt")
        try Data("not a database, just some text that is long enough to have a header".utf8).write(to: text)
        #expect(throws: (any Error).self) { try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: text) }
        #expect(try Data(contentsOf: text) == Data("not a database, just some text that is long enough to have a header".utf8))
    }

    @Test("isConfiguration(withName:compatibleWithStoreMetadata:) is true for the store's model and false for a changed one")
    func compatibility() throws {
        let dir = TempDirectory("coordinator-stores")
        let (_, url) = try Self.savedNotes(["a"], in: dir)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        let same = NotesModel.make()
        #expect(same.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        let changed = NotesModel.make()
        let extra = NSAttributeDescription()
        extra.name = "subtitle"
        extra.attributeType = .stringAttributeType
        changed.entitiesByName["Note"]!.properties.append(extra)
        #expect(!changed.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(same.entityVersionHashesByName.keys.sorted() == ["Folder", "Note"])
        #expect(same.entityVersionHashesByName["Note"] != changed.entityVersionHashesByName["Note"])
    }

    /// The chapter's seed, written by Apple's Core Data on a device: its metadata reads,
    /// and its model is found compatible (by entity names: Core Data's hashes are its own).
    @Test("the metadata of a store Apple's Core Data wrote reads, and its own model fits it")
    func metadataOfARealStore() throws {
        let dir = TempDirectory("coordinator-stores")
        let store = try SurfJournalRealAppTests.seededCopy(dir)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: store)
        #expect(metadata[NSStoreTypeKey] as? String == "SQLite")
        #expect((metadata[NSStoreModelVersionHashesKey] as? [String: Any])?.keys.contains("JournalEntry") == true)
        let model = try #require(NSManagedObjectModel(contentsOf: SurfJournalRealAppTests.realApp.appendingPathComponent("SurfJournalModel.xcdatamodeld")))
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(!NotesModel.make().isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    @Test("destroyPersistentStore removes the store with its -wal and -shm, closing it; a new store can be made there")
    func destroy() throws {
        let dir = TempDirectory("coordinator-stores")
        let (container, url) = try Self.savedNotes(["a", "b"], in: dir)
        let coordinator = container.persistentStoreCoordinator
        try coordinator.destroyPersistentStore(at: url, ofType: NSSQLiteStoreType, options: nil)
        #expect(coordinator.persistentStores.isEmpty)
        for suffix in ["", "-wal", "-shm"] { #expect(!FileManager.default.fileExists(atPath: url.path + suffix)) }
        try coordinator.destroyPersistentStore(at: url, type: .sqlite)
        #expect(try Self.titles(at: url).isEmpty)
    }

    @Test("replacePersistentStore makes the destination a copy of the source; the source is kept")
    func replace() throws {
        let dir = TempDirectory("coordinator-stores")
        let (_, source) = try Self.savedNotes(["from the source"], in: dir, file: "Source.sqlite")
        let (container, destination) = try Self.savedNotes(["old"], in: dir, file: "Destination.sqlite")
        try container.persistentStoreCoordinator.replacePersistentStore(
            at: destination, destinationOptions: nil, withPersistentStoreFrom: source, sourceOptions: nil, ofType: NSSQLiteStoreType)
        #expect(try Self.titles(at: destination) == ["from the source"])
        #expect(try Self.titles(at: source) == ["from the source"])
    }

    @Test("migratePersistentStore copies the store to a new URL and the coordinator uses it there")
    func migrate() throws {
        let dir = TempDirectory("coordinator-stores")
        let (container, url) = try Self.savedNotes(["kept"], in: dir)
        let coordinator = container.persistentStoreCoordinator
        let moved = try coordinator.migratePersistentStore(coordinator.persistentStores[0], to: dir.file("Moved.sqlite"), options: nil, withType: NSSQLiteStoreType)
        #expect(moved.url?.lastPathComponent == "Moved.sqlite")
        #expect(coordinator.persistentStores.first === moved)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            Note(context: context).title = "after"
            try context.save()
        }
        #expect(try Self.titles(at: dir.file("Moved.sqlite")) == ["after", "kept"])
        #expect(try Self.titles(at: url) == ["kept"])
    }

    @Test("addPersistentStore(with:completionHandler:) opens a description's store, making its missing folder")
    func addWithDescription() throws {
        let dir = TempDirectory("coordinator-stores")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NotesModel.make())
        let description = NSPersistentStoreDescription(url: dir.file("Library/Application Support/Notes.sqlite"))
        var reported: (any Error)? = CocoaError(.fileNoSuchFile)
        coordinator.addPersistentStore(with: description) { _, error in reported = error }
        #expect(reported == nil)
        #expect(coordinator.persistentStores.count == 1)
        let bad = NSPersistentStoreDescription(url: dir.file("x.sqlite"))
        bad.type = "XML"  // NSXMLStoreType: macOS only
        coordinator.addPersistentStore(with: bad) { _, error in reported = error }
        #expect(reported != nil)
    }

    @Test("a context made with init(_:) and its userInfo")
    func contextInitAndUserInfo() {
        let context = NSManagedObjectContext(.privateQueue)
        #expect(context.concurrencyType == .privateQueueConcurrencyType)
        context.userInfo["importer"] = "nightly"
        #expect(context.userInfo["importer"] as? String == "nightly")
        #expect(NSManagedObjectContext(.mainQueue).concurrencyType == .mainQueueConcurrencyType)
    }

    /// Xcode's `<configuration name="…"><memberEntity name="…"/></configuration>`.
    @Test("a model's configurations are read from the Xcode model, and entities(forConfigurationName:) gives their entities")
    func configurations() throws {
        let dir = TempDirectory("coordinator-stores")
        let modelFolder = dir.file("Configs.xcdatamodel")
        try FileManager.default.createDirectory(at: modelFolder, withIntermediateDirectories: true)
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
                <entity name="Local" representedClassName="Local" syncable="YES" codeGenerationType="class">
                    <attribute name="name" optional="YES" attributeType="String"/>
                </entity>
                <entity name="Shared" representedClassName="Shared" syncable="YES" codeGenerationType="class">
                    <attribute name="name" optional="YES" attributeType="String"/>
                </entity>
                <configuration name="Cloud" usedWithCloudKit="YES">
                    <memberEntity name="Shared"/>
                </configuration>
                <configuration name="Device">
                    <memberEntity name="Local"/>
                    <memberEntity name="Shared"/>
                </configuration>
            </model>
            """.utf8).write(to: modelFolder.appendingPathComponent("contents"))
        let model = try #require(NSManagedObjectModel(contentsOf: modelFolder))
        #expect(model.configurations == ["Cloud", "Device"])
        #expect(model.entities(forConfigurationName: "Cloud")?.compactMap(\.name) == ["Shared"])
        #expect(model.entities(forConfigurationName: "Device")?.compactMap(\.name) == ["Local", "Shared"])
        #expect(model.entities(forConfigurationName: nil)?.count == 2)
        #expect(model.entities(forConfigurationName: "Nowhere") == nil)
    }
}

@Suite("The coordinator's store notifications")
struct CoordinatorNotificationTests {
    @Test("adding and removing a store posts StoresDidChange with the added and removed stores, and WillRemoveStore before")
    func addAndRemovePost() throws {
        let dir = TempDirectory("coordinator-notes")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NotesModel.make())
        nonisolated(unsafe) var seen: [String] = []
        let center = NotificationCenter.default
        let changes = center.addObserver(forName: .NSPersistentStoreCoordinatorStoresDidChange, object: coordinator, queue: nil) { note in
            if let added = note.userInfo?[NSAddedPersistentStoresKey] as? [NSPersistentStore] { seen.append("added \(added.count)") }
            if let removed = note.userInfo?[NSRemovedPersistentStoresKey] as? [NSPersistentStore] { seen.append("removed \(removed.count)") }
        }
        defer { center.removeObserver(changes) }
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: dir.file("Notes.sqlite"))
        // Observed for this store only: other tests remove stores of their own meanwhile.
        let willRemove = center.addObserver(forName: .NSPersistentStoreCoordinatorWillRemoveStore, object: store, queue: nil) { note in
            if note.object is NSPersistentStore { seen.append("will remove") }
        }
        defer { center.removeObserver(willRemove) }
        try coordinator.remove(store)
        #expect(seen == ["added 1", "will remove", "removed 1"])
    }
}

@Suite("Small state questions: objects, entities, stores, locks")
struct ObjectStateTests {
    @Test("faultingState, hasPersistentChangedValues, objectIDs(forRelationshipNamed:), hasFault, subentitiesByName, a store's identifier and metadata, locks")
    func smallQuestions() throws {
        let dir = TempDirectory("object-state")
        let container = try NotesModel.container(in: dir)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let folder = Folder(context: context)
            let note = Note(context: context)
            note.folder = folder
            try context.save()
            #expect(note.faultingState == 0 && !note.hasPersistentChangedValues)
            note.title = "changed"
            #expect(note.hasPersistentChangedValues)
            #expect(note.objectIDs(forRelationshipNamed: "folder") == [folder.objectID])
            #expect(folder.objectIDs(forRelationshipNamed: "notes") == [note.objectID])
            #expect(!note.hasFault(forRelationshipNamed: "folder"))
            context.refresh(folder, mergeChanges: false)
            #expect(folder.faultingState == 1)
            #expect(note.hasFault(forRelationshipNamed: "folder"))
        }
        let parent = NSEntityDescription()
        parent.name = "Parent"
        let child = NSEntityDescription()
        child.name = "Child"
        parent.subentities = [child]
        #expect(parent.subentitiesByName["Child"] === child)
        let coordinator = container.persistentStoreCoordinator
        let store = try #require(coordinator.persistentStores.first)
        #expect(store.identifier == coordinator.storeUUID)
        #expect(store.metadata[NSStoreTypeKey] as? String == NSSQLiteStoreType)
        try store.loadMetadata()
        #expect(coordinator.url(for: store) == store.url)
        context.lock()
        #expect(context.tryLock())
        context.unlock()
        context.unlock()
        coordinator.lock()
        coordinator.unlock()
    }
}
