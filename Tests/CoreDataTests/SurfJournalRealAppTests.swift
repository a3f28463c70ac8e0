import CoreData
import Foundation
import TestSupport
import Testing

/// The chapter's entity class, written as `ctxdebug port` writes the chapter's
/// `JournalEntry.swift` (`@NSManaged` properties through key-value access).
final class JournalEntry: NSManagedObject {
    var date: Date? {
        get { value(forKey: "date") as? Date }
        set { setValue(newValue, forKey: "date") }
    }
    var height: String? {
        get { value(forKey: "height") as? String }
        set { setValue(newValue, forKey: "height") }
    }
    var location: String? {
        get { value(forKey: "location") as? String }
        set { setValue(newValue, forKey: "location") }
    }
    var rating: NSNumber? {
        get { (value(forKey: "rating") as? Int16).map { NSNumber(value: $0) } }
        set { setValue(newValue, forKey: "rating") }
    }
}

/// The real model and seeded store of the "Multiple Managed Object Contexts" chapter
/// (`../shared/real-apps/surfjournal`, data the chapter ships), opened as the chapter's
/// `CoreDataStack` does and read as its `JournalListViewController` does.
@Suite struct SurfJournalRealAppTests {
    static let realApp = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../shared/real-apps/surfjournal").standardizedFileURL

    /// A copy of the seed with its -wal and -shm, as `seedCoreDataContainerIfFirstLaunch`
    /// copies it (most rows are in the -wal).
    static func seededCopy(_ dir: TempDirectory) throws -> URL {
        let seed = realApp.appendingPathComponent("CoreDataSeed/SurfJournalModel.sqlite")
        let store = dir.file("SurfJournalModel.sqlite")
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: seed.path + suffix, toPath: store.path + suffix)
        }
        return store
    }

    @Test func theChaptersStoreReturnsItsEntriesNewestFirst() throws {
        let dir = TempDirectory("surfjournal-real")
        let store = try Self.seededCopy(dir)
        let modelURL = Self.realApp.appendingPathComponent("SurfJournalModel.xcdatamodeld")
        let model = try #require(NSManagedObjectModel(contentsOf: modelURL))
        // The model names `SurfJournal.JournalEntry`, and this test program links the
        // project's SurfJournal module, which has that class: point the entity at this
        // file's class (a model may be changed until a coordinator uses it, as in Core Data).
        model.entitiesByName["JournalEntry"]?.managedObjectClassName = String(reflecting: JournalEntry.self)
        let container = NSPersistentContainer(name: "SurfJournalModel", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: store)]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }

        let context = container.viewContext
        let entries: [JournalEntry] = try context.performAndWait {
            // JournalListViewController's request, as the chapter writes it.
            let fetchRequest: NSFetchRequest<JournalEntry> = NSFetchRequest<JournalEntry>(entityName: "JournalEntry")
            fetchRequest.sortDescriptors = [NSSortDescriptor(key: "date", ascending: false)]
            return try context.fetch(fetchRequest)
        }
        // The seed's rows, counted with SQLite itself (the -wal included).
        let expected = try sqliteCount(store.path)
        #expect(entries.count == expected)
        #expect(expected > 0)
        try context.performAndWait {
            let dates = entries.compactMap(\.date)
            #expect(dates == dates.sorted(by: >))
            #expect(entries.allSatisfy { $0.location != nil })
            _ = try #require(entries.first?.rating)
        }
    }

    private func sqliteCount(_ path: String) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", "-readonly", path, "SELECT COUNT(*) FROM ZJOURNALENTRY"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }
}
