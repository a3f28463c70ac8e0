public import Foundation
import CtxdebugHelpers
import GRDB

/// How an existing store fits a model, found from the store's own schema (Z_PRIMARYKEY,
/// its tables and columns), as `SchemaComparison` compares them. The CoreData layer uses
/// it to pick the model version a store was written with and to choose between the
/// in-place lightweight migration and a migration through a mapping model.
@_spi(CoreData) public enum StoreFit: Sendable, Equatable {
    /// No store at the path, or an empty file: nothing to migrate.
    case noStore
    /// The store's schema is the model's.
    case matches
    /// Lightweight migration can make the store fit in place, in one SQL transaction.
    case migratesInPlace(String)
    /// The difference needs a migration through a mapping model (or is damage).
    case differs(String)

    /// The fit of the store at `url` with `model`, read without changing the file.
    public static func of(storeAt url: URL, model: ManagedObjectModel) throws(ManagedContextError) -> StoreFit {
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else { return .noStore }
        // An empty file is a store not yet made (a process killed while creating one): nothing to migrate.
        if try StoreSchema.isEmptyDatabaseFile(path: path, readOnly: false) { return .noStore }
        try StoreSchema.validateHeader(path: path)
        let comparison: SchemaComparison?
        do {
            comparison = try DispatchBypass.run { try StoreSchema.compare(path: path, model: model) }
        } catch {
            throw SQLiteStore.translate(error, path: path, doing: "read the store's schema")
        }
        guard let comparison else { return .noStore }
        if comparison.matches { return .matches }
        if comparison.damage.isEmpty && comparison.blockers.isEmpty { return .migratesInPlace(comparison.summary()) }
        return .differs(comparison.summary())
    }
}

/// The files of a migration that goes through a second store: the destination is built
/// in a scratch store beside the target, and copied over the target in one SQLite
/// transaction (the online backup, in WAL mode): a process killed before that commit
/// leaves the target as it was, one killed after leaves it whole in its new shape.
@_spi(CoreData) public enum MigrationFiles {
    /// The scratch store beside `target` a migration builds its destination in.
    public static func scratchURL(for target: URL) -> URL {
        target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).migrating")
    }

    /// Deletes a scratch store (and its -wal and -shm), as a killed migration leaves it.
    public static func removeScratch(_ scratch: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: scratch.path + suffix)
        }
    }

    /// Makes the store at `target` the store at `scratch`, in one transaction on the
    /// target (a new file when there is none), then deletes the scratch store.
    public static func commit(_ scratch: URL, over target: URL) throws(ManagedContextError) {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: []))
        try coordinator.replaceStore(at: target, withStoreFrom: scratch)
        removeScratch(scratch)
    }
}
