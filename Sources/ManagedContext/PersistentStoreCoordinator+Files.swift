public import Foundation
import CtxdebugHelpers
import GRDB

/// What Core Data's coordinator does to store files beside opening them: their metadata,
/// destroying a store, and replacing one store's contents with another's. Each works on
/// Core Data's layout (Z_METADATA's Z_PLIST, a binary property list) and on a store and
/// its `-wal` and `-shm` files together.
extension PersistentStoreCoordinator {
    /// The metadata of the store at `url` (`NSStoreType`, `NSStoreUUID`,
    /// `NSStoreModelVersionHashes`, and what the app set), read without opening the store
    /// for this coordinator and without changing the file: Core Data's
    /// `metadataForPersistentStore(ofType:at:options:)`.
    public static func metadataForStore(at url: URL) throws(ManagedContextError) -> [String: Any] {
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else {
            throw ManagedContextError(.storeOpenFailed, "There is no store at this path, so it has no metadata. Check the path.", path: path)
        }
        try StoreSchema.validateHeader(path: path)
        let plist: Data?
        do {
            plist = try DispatchBypass.run {
                try StoreSchema.withPrivateCopy(path: path) { copy in
                    var configuration = Configuration()
                    configuration.readonly = true
                    let queue = try DatabaseQueue(path: copy, configuration: configuration)
                    defer { try? queue.close() }
                    return try queue.read { db -> Data? in
                        guard try db.tableExists("Z_METADATA") else { return nil }
                        return try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1")
                    }
                }
            }
        } catch {
            throw SQLiteStore.translate(error, path: path, doing: "read the store's metadata")
        }
        guard let plist else {
            throw ManagedContextError(.notAStore, "The file is an SQLite database without Core Data's Z_METADATA table: it is not a Core Data store.", path: path)
        }
        var metadata = try StoreMetadata.dictionary(from: plist, path: path)
        if metadata[StoreMetadata.ownVersionKey] == nil { metadata[StoreMetadata.storePathKey] = path }
        return metadata
    }

    /// The metadata of this coordinator's store, as `metadataForStore(at:)` reads it.
    public func storeMetadata() throws(ManagedContextError) -> [String: Any] {
        let store = try store()
        return try store.metadata()
    }

    /// Replaces the metadata of this coordinator's store with `metadata`, keeping the
    /// keys Core Data keeps for itself (`NSStoreType`, `NSStoreUUID`, the version hashes)
    /// when `metadata` leaves them out: Core Data's `setMetadata(_:for:)`. Written at once,
    /// in a transaction of its own (Core Data writes it with the next save).
    public func setStoreMetadata(_ metadata: [String: Any]) throws(ManagedContextError) {
        let store = try store()
        try store.setMetadata(metadata)
    }

    /// Deletes the store at `url` with its `-wal` and `-shm` files, closing it first when
    /// it is this coordinator's: Core Data's `destroyPersistentStore(at:ofType:options:)`.
    /// A missing store is not an error; a file that is not a store is refused, untouched.
    public func destroyStore(at url: URL) throws(ManagedContextError) {
        let path = url.standardizedFileURL.path
        if storeURL?.standardizedFileURL.path == path { removePersistentStore() }
        guard FileManager.default.fileExists(atPath: path) else { return }
        if (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 > 0 {
            try StoreSchema.validateHeader(path: path)
        }
        for suffix in ["-wal", "-shm", ""] {
            let file = path + suffix
            guard FileManager.default.fileExists(atPath: file) else { continue }
            do {
                try FileManager.default.removeItem(atPath: file)
            } catch {
                throw ManagedContextError(
                    .directoryUnwritable, "The store file \(file) could not be deleted: \(error.localizedDescription). Check the folder's permissions.",
                    path: path, cause: SendableErrorDescription(error))
            }
        }
    }

    /// Makes the store at `destination` a copy of the store at `source` (its rows and
    /// metadata), through SQLite's online backup, so neither needs to be closed first and
    /// no half-copied file is ever read: Core Data's
    /// `replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:ofType:)`.
    /// A destination that this coordinator has open is closed first.
    public func replaceStore(at destination: URL, withStoreFrom source: URL) throws(ManagedContextError) {
        let sourcePath = source.standardizedFileURL.path, destinationPath = destination.standardizedFileURL.path
        guard sourcePath != destinationPath else { return }
        guard FileManager.default.fileExists(atPath: sourcePath) else {
            throw ManagedContextError(.storeOpenFailed, "There is no store at the source path to copy from. Check the path.", path: sourcePath)
        }
        try StoreSchema.validateHeader(path: sourcePath)
        try StoreSchema.validateLocation(path: destinationPath, readOnly: false)
        if storeURL?.standardizedFileURL.path == destinationPath { removePersistentStore() }
        do {
            try DispatchBypass.run {
                var readOnly = Configuration()
                readOnly.readonly = true
                let from = try DatabaseQueue(path: sourcePath, configuration: readOnly)
                defer { try? from.close() }
                let to = try DatabaseQueue(path: destinationPath)
                defer { try? to.close() }
                try from.backup(to: to)
                try to.writeWithoutTransaction { db in _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") }
            }
        } catch {
            throw SQLiteStore.translate(error, path: destinationPath, doing: "copy the store from \(sourcePath)")
        }
    }
}

extension SQLiteStore {
    /// This store's metadata (Z_PLIST), read from its pool.
    func metadata() throws(ManagedContextError) -> [String: Any] {
        let plist: Data?
        do {
            plist = try DispatchBypass.run {
                try pool.read { db in try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1") }
            }
        } catch {
            throw Self.translate(error, path: url.path, doing: "read the store's metadata")
        }
        return try StoreMetadata.dictionary(from: plist ?? Data(), path: url.path)
    }

    func setMetadata(_ metadata: [String: Any]) throws(ManagedContextError) {
        guard !isReadOnly else {
            throw ManagedContextError(.readOnlyStore, "The store was opened read-only; its metadata cannot be set.", path: url.path)
        }
        var merged = (try? self.metadata()) ?? [:]
        let kept = ["NSStoreType", "NSStoreUUID", "NSStoreModelVersionHashes", "NSStoreModelVersionHashesVersion", "NSPersistenceFrameworkVersion"]
        merged = merged.filter { kept.contains($0.key) }
        for (key, value) in metadata where key != StoreMetadata.storePathKey { merged[key] = value }
        let data: Data
        do {
            data = try PropertyListSerialization.data(fromPropertyList: merged, format: .binary, options: 0)
        } catch {
            throw ManagedContextError(
                .saveFailed, "The metadata cannot be written as a property list (\(error.localizedDescription)): keep to strings, numbers, dates, data, arrays and dictionaries.",
                path: url.path, cause: SendableErrorDescription(error))
        }
        do {
            try DispatchBypass.run {
                try pool.write { db in
                    try db.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = ? WHERE Z_VERSION = (SELECT MIN(Z_VERSION) FROM Z_METADATA)", arguments: [data])
                }
            }
        } catch {
            throw Self.translate(error, path: url.path, doing: "write the store's metadata")
        }
    }
}

extension StoreMetadata {
    /// Z_PLIST as a dictionary; a damaged one is `.corruptStore`.
    static func dictionary(from plist: Data, path: String) throws(ManagedContextError) -> [String: Any] {
        guard let object = try? PropertyListSerialization.propertyList(from: plist, options: [], format: nil), let dictionary = object as? [String: Any] else {
            throw ManagedContextError(.corruptStore, "The store's metadata (Z_METADATA's Z_PLIST) is not a property list dictionary. Restore the store from a copy.", path: path)
        }
        return dictionary
    }
}

extension ManagedObjectModel {
    /// Each entity's version hash, by name, as this runtime writes them into a store's
    /// metadata (`NSStoreModelVersionHashes`): Core Data's `entityVersionHashesByName`.
    /// Core Data's own hash function is not documented, so these are ctxdebug's.
    public var entityVersionHashesByName: [String: Data] {
        Dictionary(uniqueKeysWithValues: entities.map { ($0.name, StoreMetadata.versionHash(of: $0)) })
    }

    /// Whether a store with `metadata` fits the entities `names` of this model (all of
    /// them when nil), as Core Data's `isConfiguration(withName:compatibleWithStoreMetadata:)`
    /// asks before opening a store. Metadata this runtime wrote is matched hash for hash;
    /// metadata Core Data wrote (its hash function is not documented) by entity names and,
    /// when `metadataForStore(at:)` read it from a file (it notes the path), by that
    /// store's schema: the whole model's tables and columns must be the store's.
    public func isCompatible(withStoreMetadata metadata: [String: Any], entityNames names: Set<String>? = nil) -> Bool {
        guard let stored = metadata["NSStoreModelVersionHashes"] as? [String: Any] else { return false }
        let wanted = names ?? Set(entities.map(\.name))
        let mine = entityVersionHashesByName.filter { wanted.contains($0.key) }
        let theirs = names == nil ? stored : stored.filter { wanted.contains($0.key) }
        guard Set(mine.keys) == Set(theirs.keys), mine.count == wanted.count else { return false }
        guard metadata[StoreMetadata.ownVersionKey] != nil else {
            guard names == nil, let path = metadata[StoreMetadata.storePathKey] as? String else { return true }
            return (try? StoreFit.of(storeAt: URL(fileURLWithPath: path), model: self)) == .matches
        }
        return mine.allSatisfy { name, hash in (theirs[name] as? Data) == hash }
    }
}

extension EntityDescription {
    /// The entity's version hash, as `ManagedObjectModel.entityVersionHashesByName` gives it.
    public var versionHash: Data { StoreMetadata.versionHash(of: self) }
}
