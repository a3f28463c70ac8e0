@_spi(CoreData) public import ManagedContext
import Foundation

/// Core Data's `NSMigrationManager`: migrates a store from its source model to a
/// destination model through a mapping model, in Core Data's three stages ("The
/// Migration Process", Core Data Model Versioning and Data Migration Programming Guide):
/// for each entity mapping, its policy creates the destination instances; then, for
/// each, the relationships; then it validates, and the destination is saved.
///
/// The destination is built in a scratch store beside `destinationURL` and copied over
/// it in one SQLite transaction at the end, so a process killed during a migration
/// leaves the destination as it was (for a migration in place, the old store) or whole
/// in its new shape; the source store is opened read-only and never changed.
open class NSMigrationManager: NSObject {
    public let sourceModel: NSManagedObjectModel
    public let destinationModel: NSManagedObjectModel
    public private(set) var mappingModel: NSMappingModel!
    public private(set) var sourceContext: NSManagedObjectContext!
    public private(set) var destinationContext: NSManagedObjectContext!
    public private(set) var currentEntityMapping: NSEntityMapping!
    /// Core Data's `migrationProgress`, from 0 to 1 (Core Data posts it through KVO;
    /// `progressHandler`, when set, is called with each new value here).
    public private(set) var migrationProgress: Float = 0
    /// Called with `migrationProgress` each time it moves (not Core Data's API: Linux has
    /// no key-value observing of Swift properties).
    public var progressHandler: ((Float) -> Void)?
    open var userInfo: [AnyHashable: Any]?
    /// Core Data's flag; a migration here always goes through the store's own SQL.
    open var usesStoreSpecificMigrationManager = true

    /// Destination instances of each entity mapping, by source object, and back.
    private var forward: [String: [NSManagedObjectID: [NSManagedObject]]] = [:]
    private var backward: [String: [ObjectIdentifier: NSManagedObject]] = [:]
    /// Destination instances of each entity mapping, in the order they were made.
    private var created: [String: [NSManagedObject]] = [:]
    private var cancellation: (any Error)?
    /// Each destination entity's attributes and relationships by name (read once: the
    /// descriptions build these dictionaries on each call).
    var destinationEntities: [String: NSEntityDescription] = [:]
    var destinationProperties: [String: (attributes: [String: NSAttributeDescription], relationships: [String: NSRelationshipDescription])] = [:]
    private var done = 0, total = 1
    /// The key path expressions of the mapping, split once each (`keys(of:)`).
    var parsedKeyPaths: [ObjectIdentifier: ParsedKeyPath] = [:]

    public init(sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel) {
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
    }

    /// Core Data's `migrateStore(from:type:options:mapping:to:type:options:)`.
    open func migrateStore(
        from sourceURL: URL, type sourceType: NSPersistentStore.StoreType, options sourceOptions: [AnyHashable: Any]? = nil, mapping: NSMappingModel,
        to destinationURL: URL, type destinationType: NSPersistentStore.StoreType, options destinationOptions: [AnyHashable: Any]? = nil
    ) throws {
        try migrateStore(
            from: sourceURL, sourceType: sourceType.rawValue, options: sourceOptions, with: mapping, toDestinationURL: destinationURL,
            destinationType: destinationType.rawValue, destinationOptions: destinationOptions)
    }

    /// Core Data's `migrateStore(from:sourceType:options:with:toDestinationURL:destinationType:destinationOptions:)`.
    open func migrateStore(
        from sourceURL: URL, sourceType: String, options sOptions: [AnyHashable: Any]? = nil, with mappings: NSMappingModel?,
        toDestinationURL dURL: URL, destinationType dStoreType: String, destinationOptions dOptions: [AnyHashable: Any]? = nil
    ) throws {
        guard NSPersistentStoreCoordinator.isFileStore(sourceType), NSPersistentStoreCoordinator.isFileStore(dStoreType) else {
            throw MigrationFailure(NSMigrationError, "Only SQLite stores migrate on Linux (\(sourceType) to \(dStoreType)); use NSSQLiteStoreType.")
        }
        let mapping: NSMappingModel
        if let mappings { mapping = mappings } else { mapping = try NSMappingModel.inferredMappingModel(forSourceModel: sourceModel, destinationModel: destinationModel) }
        XcodeMappingModelReader.complete(mapping.entityMappings ?? [], from: sourceModel, to: destinationModel)
        reset()
        mappingModel = mapping
        destinationEntities = destinationModel.entitiesByName
        let scratch = MigrationFiles.scratchURL(for: dURL)
        MigrationFiles.removeScratch(scratch)
        defer { MigrationFiles.removeScratch(scratch) }
        let source = PersistentStoreCoordinator(managedObjectModel: sourceModel)
        do {
            try source.addPersistentStore(at: sourceURL, options: StoreOptions(readOnly: true))
        } catch {
            throw MigrationFailure(NSMigrationManagerSourceStoreError, "The source store cannot be opened with the source model: \(error.message). Nothing was changed.", underlying: error)
        }
        defer { source.removePersistentStore() }
        let destination = PersistentStoreCoordinator(managedObjectModel: destinationModel)
        do {
            try destination.addPersistentStore(at: scratch)
        } catch {
            throw MigrationFailure(NSMigrationManagerDestinationStoreError, "The destination store cannot be made beside \(dURL.path): \(error.message). Nothing was changed.", underlying: error)
        }
        try run(source: source, destination: destination)
        source.removePersistentStore()
        destination.removePersistentStore()
        do {
            try MigrationFiles.commit(scratch, over: dURL)
        } catch {
            throw MigrationFailure(NSMigrationManagerDestinationStoreError, "The migrated store could not be written over \(dURL.path): \(error.message). The store there is as it was.", underlying: error)
        }
        setProgress(done: total)
    }

    /// The three stages, with both contexts held. The two contexts belong to the migrating
    /// thread (confinement contexts), as Core Data's do: a policy's
    /// `createDestinationInstances(forSource:in:manager:)` reads the source instance and
    /// writes the destination one in the same method, on the thread that called
    /// `migrateStore`. (Two private queues, one block nested in the other, had the
    /// checker report every source read from the destination's queue.)
    private func run(source: PersistentStoreCoordinator, destination: PersistentStoreCoordinator) throws {
        let sourceContext = NSManagedObjectContext(confinedToCallingThread: ())
        sourceContext.persistentStoreCoordinator = source
        let destinationContext = NSManagedObjectContext(confinedToCallingThread: ())
        destinationContext.persistentStoreCoordinator = destination
        self.sourceContext = sourceContext
        self.destinationContext = destinationContext
        let mappings = (mappingModel.entityMappings ?? []).filter { $0.mappingType != .removeEntityMappingType }
        if usesStoreSpecificMigrationManager, let copies = rowCopies(mappings) {
            try checkCancelled()
            do {
                if try destination.copyRows(copies, from: source) != nil { return }
            } catch {
                throw MigrationFailure(NSMigrationError, "The migrated rows could not be written: \(error.message). Nothing was changed.", underlying: error)
            }
        }
        try sourceContext.performAndWait {
            try destinationContext.performAndWait {
                let policies = try mappings.map { try NSEntityMigrationPolicy.policy(for: $0) }
                total = 1 + (try mappings.reduce(0) { $0 + (try sourceCount($1)) }) * 2
                savesEarly = Self.canSaveEarly(mappings, policies, destinationModel)
                for (mapping, policy) in zip(mappings, policies) { try createInstances(mapping, policy) }
                for (mapping, policy) in zip(mappings, policies) { try createRelationships(mapping, policy) }
                for (mapping, policy) in zip(mappings, policies) {
                    currentEntityMapping = mapping
                    try policy.performCustomValidation(forMapping: mapping, manager: self)
                }
                try checkCancelled()
                try saveDestination()
                for (mapping, policy) in zip(mappings, policies) {
                    currentEntityMapping = mapping
                    try policy.end(mapping, manager: self)
                }
            }
        }
    }

    /// The mappings as rows copied in SQL, the store-specific migration Core Data makes of
    /// a SQLite store (`usesStoreSpecificMigrationManager`): when no policy of the app's
    /// runs and every value is a source attribute as it is (`$source.name`) or the
    /// destination's default, the objects' three stages would write exactly the rows
    /// `INSERT … SELECT` writes, at SQLite's speed. Nil when any mapping needs the objects
    /// (a policy, a filter, a relationship, another expression); `copyRows` refuses what
    /// the store cannot copy exactly (then the objects run).
    private func rowCopies(_ mappings: [NSEntityMapping]) -> [RowCopy]? {
        var copies: [RowCopy] = []
        for mapping in mappings {
            guard ["", "NSEntityMigrationPolicy"].contains(mapping.entityMigrationPolicyClassName ?? ""), mapping.sourceFilterPredicate == nil,
                let to = mapping.destinationEntityName, let entity = destinationEntities[to],
                (mapping.relationshipMappings ?? []).allSatisfy({ $0.valueExpression == nil })
            else { return nil }
            if mapping.mappingType == .addEntityMappingType { continue }
            guard let from = mapping.sourceEntityName else { return nil }
            let attributes = entity.attributesByName
            var sources: [String: String] = [:]
            for property in mapping.attributeMappings ?? [] {
                guard let name = property.name, attributes[name] != nil else { return nil }
                guard let e = property.valueExpression else { continue }
                guard e.expressionType == .keyPath else { return nil }
                let keys = e.keyPath.split(separator: ".")
                guard keys.count == 2, keys[0] == "$source" else { return nil }
                sources[name] = String(keys[1])
            }
            copies.append(RowCopy(sourceEntity: from, destinationEntity: to, attributes: sources))
        }
        return copies
    }

    private func createInstances(_ mapping: NSEntityMapping, _ policy: NSEntityMigrationPolicy) throws {
        currentEntityMapping = mapping
        try policy.begin(mapping, with: self)
        for source in try sourceInstances(of: mapping) {
            try checkCancelled()
            try policy.createDestinationInstances(forSource: source, in: mapping, manager: self)
            step()
            if savesEarly, done % Self.batch == 0 { try saveDestination() }
        }
        try policy.endInstanceCreation(forMapping: mapping, manager: self)
    }

    private func createRelationships(_ mapping: NSEntityMapping, _ policy: NSEntityMigrationPolicy) throws {
        currentEntityMapping = mapping
        for destination in created[mapping.name ?? ""] ?? [] {
            try checkCancelled()
            try policy.createRelationships(forDestination: destination, in: mapping, manager: self)
            step()
        }
        try policy.endRelationshipCreation(forMapping: mapping, manager: self)
    }

    /// The instances an entity mapping applies to: its source entity's (without
    /// subentities, which have mappings of their own), filtered by its predicate.
    private func sourceInstances(of mapping: NSEntityMapping) throws -> [NSManagedObject] {
        guard let name = mapping.sourceEntityName, mapping.mappingType != .addEntityMappingType else { return [] }
        let request = NSFetchRequest<NSManagedObject>(entityName: name)
        request.includesSubentities = false
        request.predicate = mapping.sourceFilterPredicate
        return try sourceContext.fetch(request)
    }

    private func sourceCount(_ mapping: NSEntityMapping) throws -> Int {
        guard let name = mapping.sourceEntityName, mapping.mappingType != .addEntityMappingType else { return 0 }
        guard sourceModel.entitiesByName[name] != nil else {
            throw MigrationFailure(NSMigrationError, "The entity mapping \(mapping.name ?? "") maps the source entity \(name), which the source model does not have (it has \(sourceModel.entitiesByName.keys.sorted().joined(separator: ", "))).")
        }
        let request = NSFetchRequest<NSManagedObject>(entityName: name)
        request.includesSubentities = false
        request.predicate = mapping.sourceFilterPredicate
        return try sourceContext.count(for: request)
    }

    /// Instances made between saves of the scratch store, when saving early is safe.
    static let batch = 10_000
    private var savesEarly = false

    /// Saving the scratch store before the relationships are made changes nothing a
    /// validation can see (one big save slows per row as it grows) when no policy of the
    /// app's runs and every mandatory attribute is set in the first stage or has a default.
    static func canSaveEarly(_ mappings: [NSEntityMapping], _ policies: [NSEntityMigrationPolicy], _ model: NSManagedObjectModel) -> Bool {
        guard policies.allSatisfy({ type(of: $0) == NSEntityMigrationPolicy.self }) else { return false }
        for m in mappings {
            guard let entity = m.destinationEntityName.flatMap({ model.entitiesByName[$0] }) else { continue }
            let mapped = Set((m.attributeMappings ?? []).filter { $0.valueExpression != nil }.compactMap(\.name))
            for a in entity.attributesByName.values where !a.isOptional && !a.isTransient && a.defaultValue == nil && !mapped.contains(a.name) { return false }
        }
        return true
    }

    private func saveDestination() throws {
        do {
            try destinationContext.save()
        } catch {
            throw MigrationFailure(NSMigrationError, "The migrated objects could not be saved: \(error). Nothing was changed.", underlying: error)
        }
    }

    private func step() {
        done += 1
        if done % 512 == 0 { setProgress(done: done) }
    }

    private func setProgress(done: Int) {
        migrationProgress = min(1, Float(done) / Float(max(total, 1)))
        progressHandler?(migrationProgress)
    }

    private func checkCancelled() throws {
        if let cancellation { throw cancellation }
    }

    // MARK: Associations

    /// Core Data's `associate(sourceInstance:withDestinationInstance:for:)`.
    open func associate(sourceInstance: NSManagedObject, withDestinationInstance destinationInstance: NSManagedObject, for entityMapping: NSEntityMapping) {
        let name = entityMapping.name ?? ""
        forward[name, default: [:]][sourceInstance.objectID, default: []].append(destinationInstance)
        backward[name, default: [:]][ObjectIdentifier(destinationInstance)] = sourceInstance
        created[name, default: []].append(destinationInstance)
    }

    /// Core Data's `destinationInstances(forEntityMappingName:sourceInstances:)`: the
    /// destination instances the mapping made for these source instances (all it made, for nil).
    open func destinationInstances(forEntityMappingName mappingName: String, sourceInstances: [NSManagedObject]?) -> [NSManagedObject] {
        guard let sourceInstances else { return created[mappingName] ?? [] }
        let table = forward[mappingName] ?? [:]
        return sourceInstances.flatMap { table[$0.objectID] ?? [] }
    }

    /// Core Data's `sourceInstances(forEntityMappingName:destinationInstances:)`.
    open func sourceInstances(forEntityMappingName mappingName: String, destinationInstances: [NSManagedObject]?) -> [NSManagedObject] {
        let table = backward[mappingName] ?? [:]
        guard let destinationInstances else { return Array(table.values) }
        return destinationInstances.compactMap { table[ObjectIdentifier($0)] }
    }

    /// Core Data's `sourceEntity(for:)`.
    open func sourceEntity(for mEntity: NSEntityMapping) -> NSEntityDescription? {
        mEntity.sourceEntityName.flatMap { sourceModel.entitiesByName[$0] }
    }

    /// Core Data's `destinationEntity(for:)`.
    open func destinationEntity(for mEntity: NSEntityMapping) -> NSEntityDescription? {
        mEntity.destinationEntityName.flatMap { destinationModel.entitiesByName[$0] }
    }

    /// Core Data's `reset()`: forgets the associations and contexts of a migration.
    open func reset() {
        forward = [:]
        backward = [:]
        created = [:]
        destinationProperties = [:]
        parsedKeyPaths = [:]
        cancellation = nil
        done = 0
        total = 1
        migrationProgress = 0
        currentEntityMapping = nil
    }

    /// Core Data's `cancelMigrationWithError(_:)`: the migration stops at the next
    /// instance and `migrateStore` throws `error`; the destination is left as it was.
    open func cancelMigrationWithError(_ error: any Error) {
        cancellation = error
    }
}
