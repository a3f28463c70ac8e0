import CtxdebugHelpers
@_spi(CoreData) public import ManagedContext
import Synchronization

/// Core Data's `NSManagedObjectModel`: a model's entities, from an Xcode model
/// (`init(contentsOf:)`) or built in code. Editable until a coordinator uses it; then
/// it is compiled into the runtime's model once and frozen, as Core Data's is.
///
/// `@unchecked Sendable`: edits happen before the model is used (Core Data forbids
/// editing a model in use, and so does `frozen`); after that it is only read.
open class NSManagedObjectModel: NSObject, @unchecked Sendable {
    private var storedEntities: [NSEntityDescription] = []
    /// The named configurations and their entities, in the order they were set.
    var configurationMembers: [(name: String, entities: [NSEntityDescription])] = []
    private let compiled = LockedValue<ManagedObjectModel?>(nil)
    /// Core Data's `versionIdentifiers`.
    open var versionIdentifiers: Set<AnyHashable> = []
    /// The model's location on disk, when it was loaded from one.
    public internal(set) var sourceURL: URL?

    public override init() {}

    /// The entities. Setting them after a coordinator used the model is a programming
    /// error, as in Core Data ("Can't modify an immutable model").
    open var entities: [NSEntityDescription] {
        get { storedEntities }
        set {
            precondition(!isFrozen, "Can't modify an immutable model: \(self) is in use by a persistent store coordinator.")
            storedEntities = newValue
            for entity in newValue { entity.managedObjectModel = self }
        }
    }

    open var entitiesByName: [String: NSEntityDescription] {
        Dictionary(storedEntities.compactMap { e in e.name.map { ($0, e) } }, uniquingKeysWith: { a, _ in a })
    }

    var isFrozen: Bool { compiled.withLock { $0 != nil } }

    /// The runtime model this model compiles into (once; the model is frozen after).
    public var runtimeModel: ManagedObjectModel {
        compiled.withLock { model in
            if let model { return model }
            CoreDataRuntimeFrames.registered
            let built = ManagedObjectModel(declarations: ModelCompiler.declarations(of: self))
            for entity in built.entities { (entity.declaration as? NSEntityDescription)?.compiled = entity }
            model = built
            return built
        }
    }

    open override var description: String {
        "NSManagedObjectModel(\(storedEntities.compactMap(\.name).joined(separator: ", ")))"
    }

    /// Two models are equal when their entities are, compared as Core Data compares them
    /// for a store: by each entity's version hash, not by identity. Real suites rely on
    /// it: JSQCoreDataKit's MigrationTests compares the model a search of the bundle finds
    /// with the same version loaded again (`XCTAssertEqual(foundModel, version1Model)`).
    /// Comparing compiles the model, as using it does.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSManagedObjectModel else { return false }
        return other === self || entityVersionHashesByName == other.entityVersionHashesByName
    }

    open override var hash: Int { storedEntities.compactMap(\.name).sorted().hashValue }

}

extension NSManagedObjectModel {
    /// The entity description of a runtime entity: the one it was compiled from, or, for
    /// an entity declared with `@Attribute`s, one that describes it (made once).
    static func description(of entity: EntityDescription) -> NSEntityDescription {
        if let declared = entity.declaration as? NSEntityDescription { return declared }
        return described.withLock { cache in
            if let found = cache[ObjectIdentifier(entity)] { return found }
            let made = NSEntityDescription(describing: entity)
            cache[ObjectIdentifier(entity)] = made
            return made
        }
    }

    private static let described = LockedValue<[ObjectIdentifier: NSEntityDescription]>([:])

    /// The model a runtime model was compiled from, or, for one declared with
    /// `@Attribute`s, one that describes it (made once, frozen, compiled into it).
    static func description(of model: ManagedObjectModel) -> NSManagedObjectModel {
        if let declared = model.entities.lazy.compactMap({ ($0.declaration as? NSEntityDescription)?.managedObjectModel }).first(where: { $0.isCompiled(into: model) }) {
            return declared
        }
        return describedModels.withLock { cache in
            if let found = cache[ObjectIdentifier(model)] { return found }
            let made = NSManagedObjectModel()
            made.entities = model.entities.map { description(of: $0) }
            made.compiled.withLock { $0 = model }
            cache[ObjectIdentifier(model)] = made
            return made
        }
    }

    private static let describedModels = LockedValue<[ObjectIdentifier: NSManagedObjectModel]>([:])

    private func isCompiled(into model: ManagedObjectModel) -> Bool { compiled.withLock { $0 === model } }
}

extension NSPersistentStoreCoordinator {
    /// Core Data's `managedObjectModel`: the model the coordinator was made with.
    public var managedObjectModel: NSManagedObjectModel {
        (declaredModel as? NSManagedObjectModel) ?? NSManagedObjectModel.description(of: runtimeModel)
    }
}

extension NSManagedObjectModel {
    /// Models that a coordinator loaded, so `NSManagedObject.entity()` can find its class's entity.
    private static let loaded = LockedValue<[WeakModel]>([])
    private final class WeakModel: @unchecked Sendable { weak var model: NSManagedObjectModel?; init(_ m: NSManagedObjectModel) { model = m } }

    func markLoaded() {
        Self.loaded.withLock { list in
            list.removeAll { $0.model == nil || $0.model === self }
            list.append(WeakModel(self))
        }
    }

    static func loadedEntity(for cls: NSManagedObject.Type) -> NSEntityDescription? {
        loadedRuntimeEntity(for: cls).map(description(of:))
    }

    /// The runtime entity of `cls` in the model a coordinator loaded last that has it.
    static func loadedRuntimeEntity(for cls: NSManagedObject.Type) -> EntityDescription? {
        let models = loaded.withLock { $0.compactMap(\.model) }
        for model in models.reversed() {
            if let e = model.runtimeModel.entityIfDeclared(for: cls) { return e }
        }
        return nil
    }
}
