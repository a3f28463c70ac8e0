@_spi(CoreData) import ManagedContext
import Foundation

/// What `addPersistentStore` does with `NSMigratePersistentStoresAutomaticallyOption`
/// before it opens a store that does not fit the coordinator's model, as Core Data does
/// it ("Migrating your data model automatically"; "Core Data looks for models in the
/// bundles returned by allBundles and allFrameworks"):
/// 1. the store's model version is found among the versions of the model's
///    `.xcdatamodeld` and the models in the program's bundles: by the version hashes of
///    the store's metadata when this runtime wrote them, else by the store's schema
///    (Core Data's own hash is not documented; a store Apple's Core Data wrote is
///    matched to the version whose tables and columns it has);
/// 2. a mapping model in the bundles from that version to the model is used if there is
///    one (with `NSInferMappingModelAutomaticallyOption` too, Core Data looks for one first);
/// 3. else, with inference, the store is migrated in place by SQL when the change allows
///    it, or through the inferred mapping model;
/// 4. else the versions in between are migrated one step at a time, each step by its
///    own mapping model or an inferred one (Core Data stops at 134140 here; the chain is
///    this runtime's, so a model with many versions needs no mapping from each to the last).
/// The steps run in scratch stores; only the last is copied over the store, in one
/// SQLite transaction.
enum AutomaticMigration {
    static func migrateIfNeeded(storeAt url: URL, to destination: NSManagedObjectModel, infer: Bool) throws {
        let fit = try StoreFit.of(storeAt: url, model: destination.runtimeModel)
        switch fit {
        case .noStore, .matches: return
        case .migratesInPlace, .differs: break
        }
        cleanScratch(url)
        let versions = ModelVersions.candidates(for: destination)
        guard let sourceIndex = try ModelVersions.index(ofStoreAt: url, in: versions) else {
            // A versioned model none of whose versions is the store's: Core Data's 134130. A
            // model with no versions of its own (built in code) leaves the store to the
            // in-place migration, or to its refusal, which names what differs.
            let ownVersions = destination.sourceURL.flatMap(ModelVersions.package(of:)).map(ModelVersions.versionURLs(in:))?.count ?? 0
            if case .differs(let summary) = fit, ownVersions > 1 {
                throw MigrationFailure(
                    NSMigrationMissingSourceModelError,
                    "Can't find the model for the source store: no version of the model (\(versions.map(\.name).joined(separator: ", "))) is the store's (\(summary)). Nothing was changed; add the version the store was written with to the model.")
            }
            return  // the in-place migration, or the refusal, of the store itself
        }
        let source = versions[sourceIndex].model
        if let mapping = mappingModel(from: source, to: destination, near: versions) {
            try NSMigrationManager(sourceModel: source, destinationModel: destination).migrateStore(
                from: url, sourceType: NSSQLiteStoreType, with: mapping, toDestinationURL: url, destinationType: NSSQLiteStoreType)
            return
        }
        guard infer else {
            throw MigrationFailure(NSMigrationMissingMappingModelError, "Can't find a mapping model from the store's model (\(versions[sourceIndex].name)) to the current one, and inferring one is off (NSInferMappingModelAutomaticallyOption). Nothing was changed.")
        }
        if case .migratesInPlace = fit { return }  // in situ, by SQL, when the store opens
        if let inferred = try? NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination) {
            try NSMigrationManager(sourceModel: source, destinationModel: destination).migrateStore(
                from: url, sourceType: NSSQLiteStoreType, with: inferred, toDestinationURL: url, destinationType: NSSQLiteStoreType)
            return
        }
        guard let destinationIndex = versions.firstIndex(where: { $0.model === destination || $0.isCurrent }), sourceIndex < destinationIndex else {
            _ = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)  // throws the reason
            return
        }
        try migrateInSteps(url, versions: Array(versions[sourceIndex...destinationIndex]), destination: destination)
    }

    /// Each version to the next, in scratch stores; the last step lands on `url`.
    static func migrateInSteps(_ url: URL, versions: [ModelVersions.Version], destination: NSManagedObjectModel) throws {
        var from = url
        for (k, pair) in zip(versions, versions.dropFirst()).enumerated() {
            let next = k == versions.count - 2 ? destination : pair.1.model
            let mapping: NSMappingModel
            if let found = mappingModel(from: pair.0.model, to: next, near: versions) {
                mapping = found
            } else {
                do {
                    mapping = try NSMappingModel.inferredMappingModel(forSourceModel: pair.0.model, destinationModel: next)
                } catch {
                    throw MigrationFailure(
                        NSMigrationMissingMappingModelError,
                        "Can't migrate the store from \(pair.0.name) to \(pair.1.name): there is no mapping model between them and none can be inferred (\(error)). Nothing was changed.", underlying: error)
                }
            }
            let to = k == versions.count - 2 ? url : stepURL(url, k)
            try NSMigrationManager(sourceModel: pair.0.model, destinationModel: next).migrateStore(
                from: from, sourceType: NSSQLiteStoreType, with: mapping, toDestinationURL: to, destinationType: NSSQLiteStoreType)
            if from != url { MigrationFiles.removeScratch(from) }
            from = to
        }
    }

    static func stepURL(_ url: URL, _ k: Int) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).step-\(k)")
    }

    /// Scratch stores a killed migration left beside `url`.
    static func cleanScratch(_ url: URL) {
        MigrationFiles.removeScratch(MigrationFiles.scratchURL(for: url))
        for k in 0..<32 {
            let step = stepURL(url, k)
            MigrationFiles.removeScratch(step)
            MigrationFiles.removeScratch(MigrationFiles.scratchURL(for: step))
        }
    }

    /// A mapping model from `source` to `destination` in the program's bundles or beside
    /// the models' own files.
    static func mappingModel(from source: NSManagedObjectModel, to destination: NSManagedObjectModel, near versions: [ModelVersions.Version]) -> NSMappingModel? {
        var directories = XcodeModelLocator.searchDirectories()
        for url in [source.sourceURL, destination.sourceURL].compactMap({ $0 }) {
            var dir = url.deletingLastPathComponent()
            if dir.pathExtension == "xcdatamodeld" { dir = dir.deletingLastPathComponent() }
            directories.append(dir)
        }
        for url in XcodeMappingModelReader.mappingModelURLs(in: directories) {
            guard let read = try? XcodeMappingModelReader.read(url, sourceModel: nil, destinationModel: nil) else { continue }
            guard ModelVersions.names(read.sourceModelPath, source), ModelVersions.names(read.destinationModelPath, destination),
                XcodeMappingModelReader.fits(read, source, destination)
            else { continue }
            XcodeMappingModelReader.complete(read.entityMappings, from: source, to: destination)
            let model = NSMappingModel()
            model.entityMappings = read.entityMappings
            return model
        }
        return nil
    }
}

extension AutomaticMigration {
    /// The hook of `addPersistentStore(ofType:configurationName:at:options:)`: a staged
    /// migration manager in the options runs its stages; else, with automatic migration,
    /// `migrateIfNeeded`. A store that fits, or none, is left alone.
    static func beforeOpening(_ url: URL, coordinator: PersistentStoreCoordinator, options: [AnyHashable: Any]?, migrate: Bool, infer: Bool) throws {
        guard let model = (coordinator.runtimeModel.entities.first?.declaration as? NSEntityDescription)?.managedObjectModel else { return }
        if let staged = options?[NSPersistentStoreStagedMigrationManagerOptionKey] as? NSStagedMigrationManager {
            try staged.migrate(storeAt: url, to: model)
        } else if migrate {
            try migrateIfNeeded(storeAt: url, to: model, infer: infer)
        }
    }
}
