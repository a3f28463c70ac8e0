import Foundation
import Testing
@testable import CoreData
import TestSupport

// What these tests hold the controller's cache to:
// - Apple, NSFetchedResultsController, "The Controller's Cache": a controller with a cache
//   name writes its sections to disk; one made later "with the same name" tests the cache
//   (entity name, entity version hash, sort descriptors, section key path, the modification
//   dates of the cache and of the store file) and reuses it when consistent, else recomputes
//   it; "If you do not specify a cache name, the controller does not cache data"; "you must
//   call deleteCache(withName:) before changing any of the fetch request, its predicate, or
//   its sort descriptors".
// - Apple, NSFetchedResultsController.deleteCache(withName:): "If name is nil, deletes all
//   cache files"; NSFetchedResultsController.cacheName: "The file itself is stored in a
//   private directory; you can only access it by name using deleteCache(withName:)".
// - The exception Core Data raises for a changed request, as apps quote it in their code
//   (public GitHub code found by searching its text): NSInternalInconsistencyException,
//   "CoreData: FATAL ERROR: The persistent cache of section information does not match the
//   current configuration. You have illegally mutated the NSFetchedResultsController's fetch
//   request, its predicate, or its sort descriptor without either disabling caching or using
//   +deleteCacheWithName:".
// - Open Radar 45072441 (lionheart/openradar-mirror#20533), "NSFetchedResultsController does
//   not update its cache after saving the context": a stale cache showed stale sections on
//   Apple's; here the results must always be an uncached controller's.
// - SQLite's WAL format (wal.c): a commit in WAL mode appends frames to the -wal file, so the
//   store's change is seen there, not in the main file's modification date.

/// A store of notes in sections by `link`, over launches (containers opened and closed in turn).
enum CacheFixture {
    static let items = [("a", "x"), ("b", "x"), ("c", "y"), ("d", "z")]

    /// The notes store in `dir`, with persistent history when `history` is set.
    static func container(_ dir: TempDirectory, history: Bool) throws -> NSPersistentContainer {
        guard history else { return try NotesModel.container(in: dir) }
        let container = NSPersistentContainer(name: "Notes", managedObjectModel: NotesModel.make())
        let description = NSPersistentStoreDescription(url: dir.file("Notes.sqlite"))
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    /// Launch 0: makes the store with `items` and closes it.
    static func seed(_ dir: TempDirectory, history: Bool = false) throws {
        let container = try container(dir, history: history)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for (title, link) in items {
                let note = Note(context: context)
                note.title = title
                note.link = URL(string: "https://\(link).example")
            }
            try context.save()
        }
        close(container)
    }

    static func close(_ container: NSPersistentContainer) {
        for store in container.persistentStoreCoordinator.persistentStores { try? container.persistentStoreCoordinator.remove(store) }
    }

    static func request(_ predicate: NSPredicate? = nil, titleAscending: Bool = true) -> NSFetchRequest<Note> {
        let request = NSFetchRequest<Note>(entityName: "Note")
        request.predicate = predicate
        request.sortDescriptors = [NSSortDescriptor(key: "link", ascending: true), NSSortDescriptor(key: "title", ascending: titleAscending)]
        return request
    }

    /// A controller's sections ("name [title]: objects"), and how many times it computed
    /// them, after `performFetch()` on a new context of `container`.
    static func fetch(_ container: NSPersistentContainer, cacheName: String?, _ request: NSFetchRequest<Note> = request()) throws -> (sections: [String], computed: Int) {
        let context = container.newBackgroundContext()
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "link", cacheName: cacheName)
        return try context.performAndWait {
            try controller.performFetch()
            return (layout(controller), controller.state.cache.sectionComputations)
        }
    }

    static func layout(_ controller: NSFetchedResultsController<Note>) -> [String] {
        (controller.sections ?? []).map { section in
            "\(section.name) [\(section.indexTitle ?? "-")]: " + (section.objects ?? []).map { ($0 as! Note).title ?? "?" }.joined(separator: " ")
        }
    }

    static func entry(_ directory: URL, _ name: String) -> SectionInfoCache.Entry? {
        SectionInfoCache(name: name, in: directory).read()
    }
}

@Suite("Fetched results controller: the cache of section information")
struct FetchedResultsCacheTests {
    let expected = ["https://x.example [H]: a b", "https://y.example [H]: c", "https://z.example [H]: d"]

    /// The second launch is a second coordinator on the store file the first still has
    /// open. A store closed and opened again is computed again: opening a store whose
    /// -wal file is missing or empty commits an empty transaction (GRDB makes a table and
    /// drops it, so that a -wal file exists), which changes the store's files.
    @Test("a second controller, and a second launch, with the same name and configuration take the sections from the cache")
    func reusedByASecondControllerAndASecondLaunch() throws {
        let dir = TempDirectory("frc-cache-reuse")
        let caches = dir.file("caches")
        try CacheFixture.seed(dir)
        try SectionInfoCache.$directoryOverride.withValue(caches) {
            let launch1 = try NotesModel.container(in: dir)
            let first = try CacheFixture.fetch(launch1, cacheName: "Notes")
            #expect(first.sections == expected)
            #expect(first.computed == 1)
            let entry = try #require(CacheFixture.entry(caches, "Notes"))
            #expect(entry.configuration.entity == "Note" && entry.configuration.sectionNameKeyPath == "link")
            #expect(entry.sections.map(\.count) == [2, 1, 1])
            #expect(FileManager.default.fileExists(atPath: caches.appendingPathComponent("Notes/sectionInfo.json").path))

            let second = try CacheFixture.fetch(launch1, cacheName: "Notes")
            #expect(second.sections == expected)
            #expect(second.computed == 0)

            let launch2 = try NotesModel.container(in: dir)
            let third = try CacheFixture.fetch(launch2, cacheName: "Notes")
            #expect(third.sections == expected)
            #expect(third.computed == 0)
            // And the uncached controller agrees.
            #expect(try CacheFixture.fetch(launch2, cacheName: nil).sections == expected)
            CacheFixture.close(launch2)
            CacheFixture.close(launch1)

            let reopened = try NotesModel.container(in: dir)
            defer { CacheFixture.close(reopened) }
            let fourth = try CacheFixture.fetch(reopened, cacheName: "Notes")
            #expect(fourth.sections == expected)
            #expect(try CacheFixture.fetch(reopened, cacheName: "Notes").computed == 0)
        }
    }

    /// With persistent history the store's newest transaction says whether it changed, and
    /// that lasts when the store is closed and opened again.
    @Test("with persistent history, the next launch takes the sections from the cache, until a save")
    func reusedByTheNextLaunchWithHistory() throws {
        let dir = TempDirectory("frc-cache-history")
        let caches = dir.file("caches")
        try CacheFixture.seed(dir, history: true)
        try SectionInfoCache.$directoryOverride.withValue(caches) {
            let launch1 = try CacheFixture.container(dir, history: true)
            #expect(try CacheFixture.fetch(launch1, cacheName: "Notes").computed == 1)
            #expect(CacheFixture.entry(caches, "Notes")?.store.historyTransaction != nil)
            CacheFixture.close(launch1)

            let launch2 = try CacheFixture.container(dir, history: true)
            defer { CacheFixture.close(launch2) }
            let reused = try CacheFixture.fetch(launch2, cacheName: "Notes")
            #expect(reused.sections == expected)
            #expect(reused.computed == 0)

            let context = launch2.newBackgroundContext()
            try context.performAndWait {
                let request = NSFetchRequest<Note>(entityName: "Note")
                request.predicate = NSPredicate(format: "title == %@", "b")
                try #require(try context.fetch(request).first).link = URL(string: "https://y.example")
                try context.save()
            }
            let changed = try CacheFixture.fetch(launch2, cacheName: "Notes")
            #expect(changed.sections == ["https://x.example [H]: a", "https://y.example [H]: b c", "https://z.example [H]: d"])
            #expect(changed.computed == 1)
            #expect(try CacheFixture.fetch(launch2, cacheName: nil).sections == changed.sections)
        }
    }

    @Test("another configuration under the same name is seen, and its sections computed")
    func anotherConfigurationUnderTheSameNameIsRecomputed() throws {
        let dir = TempDirectory("frc-cache-config")
        let caches = dir.file("caches")
        try CacheFixture.seed(dir)
        try SectionInfoCache.$directoryOverride.withValue(caches) {
            let container = try NotesModel.container(in: dir)
            defer { CacheFixture.close(container) }
            #expect(try CacheFixture.fetch(container, cacheName: "Shared").computed == 1)
            let filtered = try CacheFixture.fetch(container, cacheName: "Shared", CacheFixture.request(NSPredicate(format: "title != %@", "b")))
            #expect(filtered.sections == ["https://x.example [H]: a", "https://y.example [H]: c", "https://z.example [H]: d"])
            #expect(filtered.computed == 1)
            let reversed = try CacheFixture.fetch(container, cacheName: "Shared", CacheFixture.request(titleAscending: false))
            #expect(reversed.sections == ["https://x.example [H]: b a", "https://y.example [H]: c", "https://z.example [H]: d"])
            #expect(reversed.computed == 1)
            #expect(CacheFixture.entry(caches, "Shared")?.configuration.sortDescriptors == ["link ascending", "title descending"])
            // The first configuration again: the cache is the last one's, so computed again.
            let again = try CacheFixture.fetch(container, cacheName: "Shared")
            #expect(again.sections == expected)
            #expect(again.computed == 1)
        }
    }

    /// A section name changed by another coordinator, the objects and their order unchanged:
    /// only the store's own files tell (its -wal file, in WAL mode).
    @Test("a store changed by another coordinator since the cache was written is seen")
    func aStoreChangedElsewhereIsSeen() throws {
        let dir = TempDirectory("frc-cache-store")
        let caches = dir.file("caches")
        try CacheFixture.seed(dir)
        try SectionInfoCache.$directoryOverride.withValue(caches) {
            let reader = try NotesModel.container(in: dir)
            defer { CacheFixture.close(reader) }
            #expect(try CacheFixture.fetch(reader, cacheName: "Notes").computed == 1)
            #expect(try CacheFixture.fetch(reader, cacheName: "Notes").computed == 0)

            let writer = try NotesModel.container(in: dir)
            let context = writer.newBackgroundContext()
            try context.performAndWait {
                let request = NSFetchRequest<Note>(entityName: "Note")
                request.predicate = NSPredicate(format: "title == %@", "d")
                let d = try #require(try context.fetch(request).first)
                d.link = URL(string: "https://zz.example")
                try context.save()
            }
            let changed = try CacheFixture.fetch(reader, cacheName: "Notes")
            #expect(changed.sections == ["https://x.example [H]: a b", "https://y.example [H]: c", "https://zz.example [H]: d"])
            #expect(changed.computed == 1)
            #expect(try CacheFixture.fetch(reader, cacheName: "Notes").computed == 0)

            // An insert by another context of the reader's own coordinator.
            let other = reader.newBackgroundContext()
            try other.performAndWait {
                let e = Note(context: other)
                e.title = "e"
                e.link = URL(string: "https://y.example")
                try other.save()
            }
            let inserted = try CacheFixture.fetch(reader, cacheName: "Notes")
            #expect(inserted.sections == ["https://x.example [H]: a b", "https://y.example [H]: c e", "https://zz.example [H]: d"])
            #expect(inserted.computed == 1)
            #expect(try CacheFixture.fetch(reader, cacheName: nil).sections == inserted.sections)
            CacheFixture.close(writer)
        }
    }

    @Test("deleteCache(withName:) removes that cache, and nil removes them all")
    func deleteCacheRemovesOneOrAll() throws {
        let dir = TempDirectory("frc-cache-delete")
        let caches = dir.file("caches")
        try CacheFixture.seed(dir)
        try SectionInfoCache.$directoryOverride.withValue(caches) {
            let container = try NotesModel.container(in: dir)
            defer { CacheFixture.close(container) }
            _ = try CacheFixture.fetch(container, cacheName: "One")
            _ = try CacheFixture.fetch(container, cacheName: "Two/Three")
            #expect(CacheFixture.entry(caches, "One") != nil && CacheFixture.entry(caches, "Two/Three") != nil)
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: caches.path)) == ["One", "Two%2FThree"])

            NSFetchedResultsController<Note>.deleteCache(withName: "One")
            #expect(CacheFixture.entry(caches, "One") == nil)
            #expect(CacheFixture.entry(caches, "Two/Three") != nil)
            let recomputed = try CacheFixture.fetch(container, cacheName: "One")
            #expect(recomputed.computed == 1 && recomputed.sections == expected)
            #expect(try CacheFixture.fetch(container, cacheName: "Two/Three").computed == 0)

            NSFetchedResultsController<Note>.deleteCache(withName: nil)
            #expect(!FileManager.default.fileExists(atPath: caches.path))
            #expect(try CacheFixture.fetch(container, cacheName: "Two/Three").computed == 1)
        }
    }

    @Test("a controller without a cache name writes nothing, nor does one on an in-memory store; one with a name does")
    func noNameAndInMemoryStoresWriteNothing() throws {
        let dir = TempDirectory("frc-cache-none")
        let caches = dir.file("caches")
        try CacheFixture.seed(dir)
        try SectionInfoCache.$directoryOverride.withValue(caches) {
            let container = try NotesModel.container(in: dir)
            defer { CacheFixture.close(container) }
            let uncached = try CacheFixture.fetch(container, cacheName: nil)
            #expect(uncached.sections == expected && uncached.computed == 1)
            #expect(try CacheFixture.fetch(container, cacheName: nil).computed == 1)
            #expect(!FileManager.default.fileExists(atPath: caches.path))
            // The same controller with a name writes one.
            _ = try CacheFixture.fetch(container, cacheName: "Named")
            #expect(try FileManager.default.contentsOfDirectory(atPath: caches.path) == ["Named"])

            let memory = NSPersistentContainer(name: "Notes", managedObjectModel: NotesModel.make())
            let description = NSPersistentStoreDescription()
            description.type = NSInMemoryStoreType
            memory.persistentStoreDescriptions = [description]
            memory.loadPersistentStores { _, error in #expect(error == nil) }
            defer { CacheFixture.close(memory) }
            let context = memory.newBackgroundContext()
            try context.performAndWait {
                let note = Note(context: context)
                note.title = "m"
                note.link = URL(string: "https://m.example")
                try context.save()
            }
            #expect(try CacheFixture.fetch(memory, cacheName: "Memory").computed == 1)
            #expect(try CacheFixture.fetch(memory, cacheName: "Memory").computed == 1)
            #expect(try FileManager.default.contentsOfDirectory(atPath: caches.path) == ["Named"])
        }
    }

    /// A folder that cannot be made (its parent is a file, which stops root too): the
    /// fetches are right, and one warning says so, however many controllers try.
    @Test("an unwritable cache folder still fetches correctly, with one warning")
    func anUnwritableFolderStillFetches() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let dir = TempDirectory("frc-cache-unwritable")
            try CacheFixture.seed(dir)
            let blocker = dir.file("blocker")
            try Data("not a folder".utf8).write(to: blocker)
            try SectionInfoCache.$directoryOverride.withValue(blocker.appendingPathComponent("caches")) {
                let container = try NotesModel.container(in: dir)
                let expected = ["https://x.example [H]: a b", "https://y.example [H]: c", "https://z.example [H]: d"]
                for name in ["One", "Two", "One"] {
                    let fetched = try CacheFixture.fetch(container, cacheName: name)
                    if fetched.sections != expected || fetched.computed != 1 { exit(3) }
                }
                CacheFixture.close(container)
            }
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        let warnings = stderr.split(separator: "\n").filter { $0.contains("cannot write its section cache") }
        #expect(warnings.count == 1, "\(stderr)")
    }

    @Test("performFetch after changing the request of a controller with a cache stops with Core Data's message")
    func aMutatedRequestStops() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dir = TempDirectory("frc-cache-mutated")
            try CacheFixture.seed(dir)
            try SectionInfoCache.$directoryOverride.withValue(dir.file("caches")) {
                let container = try NotesModel.container(in: dir)
                let context = container.newBackgroundContext()
                let request = CacheFixture.request()
                let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "link", cacheName: "Notes")
                try context.performAndWait { try controller.performFetch() }
                request.predicate = NSPredicate(format: "title != %@", "b")
                try context.performAndWait { try controller.performFetch() }
            }
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("You have illegally mutated the NSFetchedResultsController's fetch request, its predicate, or its sort descriptor without either disabling caching or using +deleteCacheWithName:"), "\(stderr)")
        #expect(stderr.contains("deleteCache(withName: \"Notes\")"), "\(stderr)")
        #expect(stderr.contains("title != \"b\""), "\(stderr)")
    }

    @Test("after deleteCache(withName:), the controller may change its request, and caches the new one")
    func aRequestChangedAfterDeleteCacheIsFetched() throws {
        let dir = TempDirectory("frc-cache-changed")
        let caches = dir.file("caches")
        try CacheFixture.seed(dir)
        try SectionInfoCache.$directoryOverride.withValue(caches) {
            let container = try NotesModel.container(in: dir)
            defer { CacheFixture.close(container) }
            let context = container.newBackgroundContext()
            let request = CacheFixture.request()
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "link", cacheName: "Notes")
            try context.performAndWait { try controller.performFetch() }
            NSFetchedResultsController<Note>.deleteCache(withName: "Notes")
            request.predicate = NSPredicate(format: "title != %@", "b")
            try context.performAndWait { try controller.performFetch() }
            #expect(context.performAndWait { CacheFixture.layout(controller) } == ["https://x.example [H]: a", "https://y.example [H]: c", "https://z.example [H]: d"])
            // Written by a fresh context's controller (this one's objects were held already).
            _ = try CacheFixture.fetch(container, cacheName: "Notes", CacheFixture.request(NSPredicate(format: "title != %@", "b")))
            #expect(CacheFixture.entry(caches, "Notes")?.configuration.predicate == "title != \"b\"")
        }
    }

    /// Objects the context already held before another coordinator changed one's section
    /// (not merged here): the cached controller's sections are the uncached one's, whether
    /// the fetch leaves held, unchanged objects their own values (shouldRefreshRefetchedObjects
    /// false) or not: the controller checks the section names of held objects against the cache.
    @Test("a context that already holds the objects gets the sections an uncached controller gets")
    func heldObjectsAreChecked() throws {
        let dir = TempDirectory("frc-cache-held")
        let caches = dir.file("caches")
        try CacheFixture.seed(dir)
        try SectionInfoCache.$directoryOverride.withValue(caches) {
            let reader = try NotesModel.container(in: dir)
            defer { CacheFixture.close(reader) }
            let context = reader.newBackgroundContext()
            let heldNotes = try context.performAndWait { try context.fetch(CacheFixture.request()) }  // link of d "z"
            defer { withExtendedLifetime(heldNotes) {} }

            let writer = try NotesModel.container(in: dir)
            defer { CacheFixture.close(writer) }
            let other = writer.newBackgroundContext()
            try other.performAndWait {
                let request = NSFetchRequest<Note>(entityName: "Note")
                request.predicate = NSPredicate(format: "title == %@", "d")
                try #require(try other.fetch(request).first).link = URL(string: "https://zz.example")
                try other.save()
            }
            // The cache is written from the store (link of d "zz").
            #expect(try CacheFixture.fetch(reader, cacheName: "Held").sections.last == "https://zz.example [H]: d")
            #expect(CacheFixture.entry(caches, "Held") != nil)

            func sections(_ name: String?) throws -> [String] {
                let controller = NSFetchedResultsController(fetchRequest: CacheFixture.request(), managedObjectContext: context, sectionNameKeyPath: "link", cacheName: name)
                return try context.performAndWait {
                    try controller.performFetch()
                    return CacheFixture.layout(controller)
                }
            }
            let uncached = try sections(nil)
            #expect(try sections("Held") == uncached)
        }
    }
}
