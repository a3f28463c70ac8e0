@_spi(CoreData) import ManagedContext
import Foundation

/// The option key of `addPersistentStore` that carries an `NSStagedMigrationManager`.
public let NSPersistentStoreStagedMigrationManagerOptionKey = "NSPersistentStoreStagedMigrationManagerOptionKey"

extension NSManagedObjectModel {
    /// Core Data's `versionChecksum`: a digest of the model's entity version hashes
    /// (base64). Core Data's is not documented; this is this runtime's, from its own
    /// hashes, so a checksum is used with models of this runtime.
    public var versionChecksum: String {
        let hashes = entityVersionHashesByName.sorted { $0.key < $1.key }
        var lanes: [UInt64] = [0xcbf2_9ce4_8422_2325, 0x1000_0000_01b3, 0x9e37_79b9_7f4a_7c15, 0x2545_f491_4f6c_dd1d]
        for (name, hash) in hashes {
            for byte in Array(name.utf8) + Array(hash) {
                for i in lanes.indices { lanes[i] = (lanes[i] ^ UInt64(byte)) &* 0x100_0000_01b3 &+ UInt64(i) }
            }
        }
        return Data(lanes.flatMap { lane in (0..<8).map { UInt8(truncatingIfNeeded: lane >> (UInt64($0) * 8)) } }).base64EncodedString()
    }
}

/// Core Data's `NSManagedObjectModelReference`: a model version a stage names, resolved
/// when the migration runs.
open class NSManagedObjectModelReference: NSObject, @unchecked Sendable {
    public let versionChecksum: String
    private let resolve: () -> NSManagedObjectModel?

    public init(model: NSManagedObjectModel, versionChecksum: String) {
        self.versionChecksum = versionChecksum
        resolve = { model }
    }

    public init(fileURL: URL, versionChecksum: String) {
        self.versionChecksum = versionChecksum
        resolve = { try? XcodeModelReader.load(from: fileURL) }
    }

    /// The model named `modelName` (a `.xcdatamodeld` or `.xcdatamodel`, or a version in one) in `bundle`.
    public init(name modelName: String, in bundle: Bundle?, versionChecksum: String) {
        self.versionChecksum = versionChecksum
        resolve = {
            let dirs = bundle.map { [$0.resourceURL, $0.bundleURL].compactMap { $0 } } ?? XcodeModelLocator.searchDirectories()
            if let url = XcodeModelLocator.modelURL(named: modelName, in: dirs) { return try? XcodeModelReader.load(from: url) }
            let versions = XcodeModelLocator.allModelURLs(in: dirs).filter { $0.pathExtension == "xcdatamodeld" }.flatMap(ModelVersions.versionURLs(in:))
            return versions.first { $0.deletingPathExtension().lastPathComponent == modelName }.flatMap { try? XcodeModelReader.load(from: $0) }
        }
    }

    /// The version in `bundle` whose entity version hashes are `versionHashes`.
    public init(entityVersionHashes versionHashes: [AnyHashable: Any], in bundle: Bundle?, versionChecksum: String) {
        self.versionChecksum = versionChecksum
        resolve = {
            let dirs = bundle.map { [$0.resourceURL, $0.bundleURL].compactMap { $0 } } ?? XcodeModelLocator.searchDirectories()
            let wanted = Dictionary(versionHashes.compactMap { k, v in (k as? String).flatMap { n in (v as? Data).map { (n, $0) } } }, uniquingKeysWith: { a, _ in a })
            for modeld in XcodeModelLocator.allModelURLs(in: dirs) where modeld.pathExtension == "xcdatamodeld" {
                for url in ModelVersions.versionURLs(in: modeld) {
                    if let m = try? XcodeModelReader.load(from: url), m.entityVersionHashesByName == wanted { return m }
                }
            }
            return nil
        }
    }

    public var resolvedModel: NSManagedObjectModel {
        guard let model = resolve() else {
            preconditionFailure("The model reference with checksum \(versionChecksum) names no model this program has: check the name, the bundle and the checksum.")
        }
        return model
    }

    func resolved() -> NSManagedObjectModel? { resolve() }
}

/// Core Data's `NSMigrationStage`.
open class NSMigrationStage: NSObject, @unchecked Sendable {
    open var label: String?
    public override init() {}
}

/// Core Data's `NSLightweightMigrationStage`: the model versions, by checksum, that
/// follow one another by lightweight migration.
open class NSLightweightMigrationStage: NSMigrationStage, @unchecked Sendable {
    public let versionChecksums: [String]
    public init(_ versionChecksums: [String]) {
        self.versionChecksums = versionChecksums
        super.init()
    }
}

/// Core Data's `NSCustomMigrationStage`: from `currentModel` to `nextModel` by
/// lightweight migration, with `willMigrateHandler` run on the store at the current
/// model before and `didMigrateHandler` on it at the next model after (each given the
/// manager, whose `container` has the store loaded at that model).
open class NSCustomMigrationStage: NSMigrationStage, @unchecked Sendable {
    public let currentModel: NSManagedObjectModelReference
    public let nextModel: NSManagedObjectModelReference
    open var willMigrateHandler: ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)?
    open var didMigrateHandler: ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)?

    public init(migratingFrom currentModel: NSManagedObjectModelReference, to nextModel: NSManagedObjectModelReference) {
        self.currentModel = currentModel
        self.nextModel = nextModel
        super.init()
    }
}

/// Core Data's `NSStagedMigrationManager`: a store migrated through `stages`, one model
/// version at a time, when `addPersistentStore` gets it under
/// `NSPersistentStoreStagedMigrationManagerOptionKey`.
open class NSStagedMigrationManager: NSObject, @unchecked Sendable {
    public let stages: [NSMigrationStage]
    /// The container with the store loaded at the model of the running stage's handler.
    public private(set) var container: NSPersistentContainer!

    public init(_ stages: [NSMigrationStage]) {
        self.stages = stages
    }

    /// One step: a model and the stage that reaches it from the step before.
    struct Step {
        let model: NSManagedObjectModel
        let stage: NSMigrationStage?
    }

    /// The sequence of model versions the stages describe.
    func steps(candidates: [ModelVersions.Version]) throws -> [Step] {
        var steps: [Step] = []
        func byChecksum(_ c: String) throws -> NSManagedObjectModel {
            if let v = candidates.first(where: { $0.model.versionChecksum == c }) { return v.model }
            throw MigrationFailure(NSMigrationMissingSourceModelError, "A lightweight migration stage names the model checksum \(c), which no version of the model has (they are \(candidates.map { "\($0.name): \($0.model.versionChecksum)" }.joined(separator: ", "))).")
        }
        for stage in stages {
            if let light = stage as? NSLightweightMigrationStage {
                for c in light.versionChecksums where steps.last?.model.versionChecksum != c { steps.append(Step(model: try byChecksum(c), stage: steps.isEmpty ? nil : light)) }
            } else if let custom = stage as? NSCustomMigrationStage {
                guard let current = custom.currentModel.resolved(), let next = custom.nextModel.resolved() else {
                    throw MigrationFailure(NSMigrationMissingSourceModelError, "A custom migration stage (\(custom.label ?? "unlabelled")) names a model this program does not have.")
                }
                if steps.last?.model.versionChecksum != current.versionChecksum { steps.append(Step(model: current, stage: nil)) }
                steps.append(Step(model: next, stage: custom))
            }
        }
        return steps
    }
}

extension NSStagedMigrationManager {
    /// Runs the stages from the store's version to `destination`'s (Core Data runs them
    /// when the store is added). Each stage commits on its own, as Core Data's do.
    func migrate(storeAt url: URL, to destination: NSManagedObjectModel) throws {
        let fit = try StoreFit.of(storeAt: url, model: destination.runtimeModel)
        if fit == .noStore || fit == .matches { return }
        AutomaticMigration.cleanScratch(url)
        let steps = try steps(candidates: ModelVersions.candidates(for: destination))
        var at: Int?
        for (i, step) in steps.enumerated() {
            if try StoreFit.of(storeAt: url, model: step.model.runtimeModel) == .matches { at = i }
        }
        guard let start = at else {
            throw MigrationFailure(NSMigrationMissingSourceModelError, "The store's model is none of the stages' models, so the staged migration cannot start. Nothing was changed.")
        }
        for i in steps.indices.dropFirst(start + 1) {
            let (previous, step) = (steps[i - 1].model, steps[i])
            let custom = step.stage as? NSCustomMigrationStage
            if let handler = custom?.willMigrateHandler { try withContainer(url, previous) { try handler(self, custom!) } }
            try Self.lightweight(url, from: previous, to: step.model)
            if let handler = custom?.didMigrateHandler { try withContainer(url, step.model) { try handler(self, custom!) } }
        }
    }

    /// One lightweight migration: in place by SQL when it can be, else through the
    /// inferred mapping model.
    static func lightweight(_ url: URL, from source: NSManagedObjectModel, to next: NSManagedObjectModel) throws {
        switch try StoreFit.of(storeAt: url, model: next.runtimeModel) {
        case .noStore, .matches: return
        case .migratesInPlace:
            let coordinator = PersistentStoreCoordinator(managedObjectModel: next)
            var options = StoreOptions()
            options.shouldMigrateStoreAutomatically = true
            options.shouldInferMappingModelAutomatically = true
            try coordinator.addPersistentStore(at: url, options: options)
            coordinator.removePersistentStore()
        case .differs:
            let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: next)
            try NSMigrationManager(sourceModel: source, destinationModel: next).migrateStore(
                from: url, sourceType: NSSQLiteStoreType, with: mapping, toDestinationURL: url, destinationType: NSSQLiteStoreType)
        }
    }

    private func withContainer(_ url: URL, _ model: NSManagedObjectModel, _ body: () throws -> Void) throws {
        let container = NSPersistentContainer(name: url.deletingPathExtension().lastPathComponent, managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        description.shouldMigrateStoreAutomatically = false
        description.shouldInferMappingModelAutomatically = false
        container.persistentStoreDescriptions = [description]
        var failure: (any Error)?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        self.container = container
        defer {
            for store in container.persistentStoreCoordinator.persistentStores { try? container.persistentStoreCoordinator.remove(store) }
            self.container = nil
        }
        try body()
    }
}
