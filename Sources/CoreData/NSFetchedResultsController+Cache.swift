@_spi(CoreData) import ManagedContext
import CtxdebugHelpers
import Foundation

/// Core Data's persistent cache of section information ("The Controller's Cache",
/// NSFetchedResultsController): a controller made with a `cacheName` writes the layout of
/// its sections (their names and sizes, and the order of the objects' IDs) to
/// `<caches>/ctxdebug/CoreDataCaches/SectionInfoCaches/<name>/sectionInfo.json`, where
/// `<caches>` is the user's caches folder (`$XDG_CACHE_HOME`, else `~/.cache`). A later
/// `performFetch()` under that name, in this process or a later one, takes the sections
/// from it instead of reading the section key path of every object, when it is still
/// right: same entity, entity version hash, predicate, sort descriptors, section key path,
/// limit and offset; the same store, unchanged since (its UUID, and its newest persistent
/// history transaction, or without history the size, modification date and file number of
/// the store file and of its `-wal` file, whose header and count of current frames are
/// compared too, since a commit in WAL mode changes only the `-wal` file); and the fetch's
/// object IDs, in order, the cached ones. The fetch itself always runs, so the objects are
/// always the store's; the sections then are exactly what an uncached controller computes.
/// Without persistent history a store opened afresh has changed files (see `StoreState`),
/// so the cache then serves the later controllers of a launch and the other coordinators
/// on the open store, and is computed again at the first fetch of the next launch.
///
/// Not cached (computed at each fetch, as with `cacheName: nil`): in-memory stores (their
/// file is gone with the process, so no later launch could use it), child contexts
/// (their parent's unsaved changes are not in the store), a context with unsaved changes,
/// and results that are not managed objects. Objects the context already held before the
/// fetch may have values older than the store's (related objects a section key path goes
/// through are not refreshed by the fetch): their section names are checked against the
/// cache, and sections computed from them are not written. The cache is written by the
/// `performFetch()` that computed the sections; the controller's later changes are not
/// written (a save makes the cache invalid, through the store's state).
struct SectionInfoCache {
    // MARK: Where

    /// The folder of the caches for this task (the tests' own temporary folders), else
    /// `defaultDirectory`. A controller takes it when it is made.
    @TaskLocal static var directoryOverride: URL?

    /// `<caches>/ctxdebug/CoreDataCaches/SectionInfoCaches`.
    static let defaultDirectory: URL = {
        let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first ?? FileManager.default.temporaryDirectory
        return caches.appendingPathComponent("ctxdebug/CoreDataCaches/SectionInfoCaches", isDirectory: true)
    }()

    static var directory: URL { directoryOverride ?? defaultDirectory }

    let folder: URL
    var file: URL { folder.appendingPathComponent("sectionInfo.json") }

    init(name: String, in directory: URL) {
        folder = directory.appendingPathComponent(Self.folderName(name), isDirectory: true)
    }

    /// The name as one path component: letters, digits, `-` and `_` as they are, the
    /// rest percent-encoded (`.` too, so no name is `..`); "" is `%`.
    static func folderName(_ name: String) -> String {
        if name.isEmpty { return "%" }
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-_")
        return name.addingPercentEncoding(withAllowedCharacters: allowed) ?? "%"
    }

    // MARK: Reading and writing

    func read() -> Entry? {
        guard let data = try? Data(contentsOf: file), let entry = try? JSONDecoder().decode(Entry.self, from: data) else { return nil }
        return entry.format == Entry.currentFormat ? entry : nil
    }

    /// Writes `entry` (atomically: a reader sees the old cache or the new one). A folder
    /// that cannot be made or written is said once per process, on stderr.
    func write(_ entry: Entry) {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try JSONEncoder().encode(entry).write(to: file, options: .atomic)
        } catch {
            Self.warnOnce(
                "CoreData: warning: NSFetchedResultsController cannot write its section cache at \(file.path) (\(error.localizedDescription)); "
                    + "its sections are computed at each fetch. Make the caches folder writable (or set XDG_CACHE_HOME to one that is).\n")
        }
    }

    private static let warned = LockedValue(false)
    static func warnOnce(_ message: String) {
        let first = warned.withLock { warned in
            defer { warned = true }
            return !warned
        }
        if first { FileHandle.standardError.write(Data(message.utf8)) }
    }

    /// Core Data's `deleteCache(withName:)`: removes the cache `name`, or every cache for nil.
    static func delete(_ name: String?) {
        deletions.withLock { marks in
            if let name { marks.byName[name, default: 0] += 1 } else { marks.all += 1 }
        }
        let target = name.map { SectionInfoCache(name: $0, in: directory).folder } ?? directory
        try? FileManager.default.removeItem(at: target)
    }

    /// How many times `deleteCache(withName:)` has removed the cache `name` (by name or all):
    /// a controller may change its request when this moved since its last fetch.
    static func deletionMark(_ name: String) -> Int {
        deletions.withLock { $0.all + $0.byName[name, default: 0] }
    }
    private static let deletions = LockedValue((all: 0, byName: [String: Int]()))

    // MARK: What a cache holds

    struct Entry: Codable, Equatable {
        static let currentFormat = 1
        var format = currentFormat
        var configuration: Configuration
        var store: StoreState
        var sections: [Section]
        /// The objects' `uriRepresentation()`s, in the fetch's order.
        var objectIDs: [String]

        struct Section: Codable, Equatable {
            var name: String
            var count: Int
        }
    }

    /// What a controller's results depend on besides the store's content.
    struct Configuration: Codable, Equatable, CustomStringConvertible {
        var entity: String
        var entityVersionHash: String
        var predicate: String?
        var sortDescriptors: [String]
        var sectionNameKeyPath: String?
        var fetchLimit: Int
        var fetchOffset: Int
        var includesSubentities: Bool

        init(_ request: NSFetchRequest<some Any>, sectionNameKeyPath: String?, coordinator: PersistentStoreCoordinator?) {
            entity = request.entityName ?? request.entity?.name ?? ""
            entityVersionHash = coordinator?.runtimeModel.entityVersionHashesByName[entity]?.base64EncodedString() ?? ""
            predicate = request.predicate?.portedPredicateFormat
            sortDescriptors = (request.sortDescriptors ?? []).map { d in
                "\(d.key ?? "\(d.sortKeyPath)") \(d.ascending ? "ascending" : "descending")" + (d.selectorName.map { " \($0)" } ?? "")
            }
            self.sectionNameKeyPath = sectionNameKeyPath
            fetchLimit = request.fetchLimit
            fetchOffset = request.fetchOffset
            includesSubentities = request.includesSubentities
        }

        var description: String {
            "entity \(entity), predicate \(predicate ?? "nil"), sort descriptors [\(sortDescriptors.joined(separator: ", "))]"
                + ", limit \(fetchLimit), offset \(fetchOffset)"
        }
    }

    /// The store's state: two states are equal only if no transaction was committed
    /// between them. A store with persistent history says so by its newest transaction's
    /// number (every save writes one; a store that has history opens read-only without
    /// it), which lasts across launches. Otherwise its files say so: the store file and its
    /// `-wal` file. These change with more than a commit: a checkpoint, and the opening of a
    /// store whose `-wal` file is missing or empty (GRDB then commits an empty transaction,
    /// so that the file exists), so a store closed and opened again has a new state.
    struct StoreState: Codable, Equatable {
        var uuid: String
        var historyTransaction: Int64?
        var database: FileState?
        /// Nil when the `-wal` file is missing or empty (both mean: nothing in it).
        var wal: FileState?

        /// The state of the store `context` reads, or nil when it is not cached (see the type).
        init?(of context: NSManagedObjectContext) {
            guard context.parent == nil, !context.hasChanges, let coordinator = context.persistentStoreCoordinator,
                let store = coordinator.persistentStores.first, store.type != NSInMemoryStoreType,
                let url = coordinator.storeURL, let uuid = coordinator.storeUUID
            else { return nil }
            self.uuid = uuid
            if let token = coordinator.currentPersistentHistoryToken(), token.storeIdentifier == uuid {
                historyTransaction = token.transactionNumber
                return
            }
            guard let database = FileState(path: url.path, isLog: false) else { return nil }
            self.database = database
            self.wal = FileState(path: url.path + "-wal", isLog: true)
        }
    }

    struct FileState: Codable, Equatable {
        var size: UInt64
        var modified: Double
        var fileNumber: UInt64
        /// For the `-wal` file: its header (page size, checkpoint sequence, salts), how many
        /// frames of its current generation follow, and the last one's checksum.
        var frames: String?

        init?(path: String, isLog: Bool) {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                let size = (attributes[.size] as? NSNumber)?.uint64Value, !(isLog && size == 0)
            else { return nil }
            self.size = size
            modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            fileNumber = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
            frames = isLog ? Self.walFrames(path) : nil
        }

        /// SQLite's WAL format (its `wal.c`): a 32-byte header (page size at 8, checkpoint
        /// sequence at 12, salts at 16), then frames of a 24-byte header (salts at 8,
        /// cumulative checksum at 16) and a page. Frames whose salts are not the header's
        /// are left from before the log was restarted, and are not counted.
        static func walFrames(_ path: String) -> String? {
            guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
            defer { try? handle.close() }
            guard let header = try? handle.read(upToCount: 32).map(Array.init), header.count == 32 else { return "short" }
            let size = header[8..<12].reduce(0) { $0 << 8 | Int($1) }
            let pageSize = size == 1 ? 65536 : size
            var count = 0
            var last: ArraySlice<UInt8> = []
            var offset = UInt64(32)
            while pageSize >= 512, (try? handle.seek(toOffset: offset)) != nil,
                let frame = try? handle.read(upToCount: 24).map(Array.init), frame.count == 24, frame[8..<16] == header[16..<24]
            {
                count += 1
                last = frame[16..<24]
                offset += UInt64(24 + pageSize)
            }
            let hex = { (bytes: ArraySlice<UInt8>) in bytes.map { String(format: "%02x", $0) }.joined() }
            return "\(hex(header[0..<24])) \(count) \(hex(last))"
        }
    }

    /// The objects' IDs as the cache keeps them; nil if one is no saved managed object.
    static func objectIDs(_ objects: [Any]) -> [String]? {
        var ids: [String] = []
        ids.reserveCapacity(objects.count)
        for object in objects {
            guard let id = (object as? ManagedObject)?.objectID, !id.isTemporaryID else { return nil }
            ids.append(id.uriRepresentation().absoluteString)
        }
        return ids
    }

    /// What a controller with a cache name remembers: the configuration of its last
    /// fetch, and `deletionMark` then. The folder is the one in force when it was made.
    struct ControllerRecord {
        let directory = SectionInfoCache.directory
        var configuration: Configuration?
        var deletionMark = 0
        /// How many times the controller computed its sections from its objects.
        var sectionComputations = 0
    }
}

extension NSFetchedResultsController {
    /// `performFetch()`'s objects and sections: the sections from the cache `cacheName`
    /// when it is still right, else computed (and the cache written).
    func fetchObjectsAndSections() throws -> (objects: [Any], sections: [FetchedResultsSection]) {
        guard let cacheName else {
            let objects = try fetchRequestObjects()
            return (objects, makeSections(objects))
        }
        let configuration = SectionInfoCache.Configuration(
            fetchRequest, sectionNameKeyPath: sectionNameKeyPath, coordinator: managedObjectContext.persistentStoreCoordinator)
        checkUnmutated(configuration, cacheName: cacheName)
        let cache = SectionInfoCache(name: cacheName, in: state.cache.directory)
        // The store before the fetch: a commit during it makes the state read after differ.
        let before = SectionInfoCache.StoreState(of: managedObjectContext)
        let registered = before == nil ? [] : managedObjectContext.registeredObjects
        defer { withExtendedLifetime(registered) {} }  // identifiers of live objects only
        let held = Set(registered.map(ObjectIdentifier.init))
        let objects = try fetchRequestObjects()
        guard let before, let ids = SectionInfoCache.objectIDs(objects) else { return (objects, makeSections(objects)) }
        if let entry = cache.read(), entry.configuration == configuration, entry.store == before, entry.objectIDs == ids,
            SectionInfoCache.StoreState(of: managedObjectContext) == before,
            let sections = sections(from: entry.sections, objects, checking: held)
        {
            return (objects, sections)
        }
        let sections = makeSections(objects)
        if !objects.contains(where: { held.contains(ObjectIdentifier($0 as AnyObject)) }) {
            let layout = sections.map { SectionInfoCache.Entry.Section(name: $0.name, count: $0.members.count) }
            cache.write(SectionInfoCache.Entry(configuration: configuration, store: before, sections: layout, objectIDs: ids))
        }
        return (objects, sections)
    }

    /// Core Data raises NSInternalInconsistencyException when a controller with a cache
    /// fetches with a request changed since its last fetch, unless the cache was deleted since.
    private func checkUnmutated(_ configuration: SectionInfoCache.Configuration, cacheName: String) {
        let mark = SectionInfoCache.deletionMark(cacheName)
        if let last = state.cache.configuration, last != configuration, state.cache.deletionMark == mark {
            preconditionFailure(
                "CoreData: FATAL ERROR: The persistent cache of section information does not match the current configuration. "
                    + "You have illegally mutated the NSFetchedResultsController's fetch request, its predicate, or its sort descriptor "
                    + "without either disabling caching or using +deleteCacheWithName: (cache \"\(cacheName)\": fetched with \(last), now \(configuration)). "
                    + "Call NSFetchedResultsController.deleteCache(withName: \"\(cacheName)\") before changing the request, "
                    + "or make the controller with cacheName: nil.")
        }
        state.cache.configuration = configuration
        state.cache.deletionMark = mark
    }

    /// The cached layout over this fetch's objects; nil when an object the context held
    /// before the fetch (whose values may be older than the store's) is in another section.
    private func sections(
        from layout: [SectionInfoCache.Entry.Section], _ objects: [Any], checking held: Set<ObjectIdentifier>
    ) -> [FetchedResultsSection]? {
        guard layout.reduce(0, { $0 + $1.count }) == objects.count else { return nil }
        guard let keyPath = sectionNameKeyPath else { return [FetchedResultsSection(name: "", indexTitle: nil, members: objects)] }
        var sections: [FetchedResultsSection] = []
        var start = 0
        for section in layout {
            let members = Array(objects[start..<start + section.count])
            start += section.count
            for member in members where held.contains(ObjectIdentifier(member as AnyObject)) {
                if Self.sectionName(of: member, keyPath: keyPath) != section.name { return nil }
            }
            sections.append(FetchedResultsSection(name: section.name, indexTitle: indexTitle(forSectionNamed: section.name), members: members))
        }
        return sections
    }
}
