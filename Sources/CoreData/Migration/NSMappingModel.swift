import Foundation

/// Core Data's `NSEntityMappingType`, with its raw values.
public enum NSEntityMappingType: UInt, Sendable {
    case undefinedEntityMappingType = 0
    case customEntityMappingType = 1
    case addEntityMappingType = 2
    case removeEntityMappingType = 3
    case copyEntityMappingType = 4
    case transformEntityMappingType = 5
}

/// Core Data's `NSPropertyMapping`: how one destination property gets its value. A nil
/// `valueExpression` leaves the property at its default, as in Core Data.
open class NSPropertyMapping: NSObject, @unchecked Sendable {
    open var name: String?
    open var valueExpression: NSExpression?
    open var userInfo: [AnyHashable: Any]?

    public override init() {}

    /// A mapping of `name` filled by `valueExpression`.
    public convenience init(name: String, valueExpression: NSExpression?) {
        self.init()
        self.name = name
        self.valueExpression = valueExpression
    }

    open override var description: String { "NSPropertyMapping(\(name ?? "unnamed") = \(valueExpression?.description ?? "default"))" }

    /// Equal when the name and the value expression are (Core Data compares mappings by
    /// content: see `NSMappingModel.isEqual`).
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSPropertyMapping else { return false }
        return other === self || (name == other.name && valueExpression?.description == other.valueExpression?.description)
    }

    open override var hash: Int { name.hashValue }
}

/// Core Data's `NSEntityMapping`: the instances of one source entity (or none, for an
/// added entity) and what they become in the destination.
///
/// `sourceExpression` is Core Data's fetch of the source instances; here the mapping's
/// `sourceEntityName` is fetched (without subentities, each having its own mapping),
/// filtered by `sourceFilterPredicate` when one is set (Xcode's "Filter Predicate").
open class NSEntityMapping: NSObject, @unchecked Sendable {
    open var name: String!
    open var mappingType: NSEntityMappingType = .undefinedEntityMappingType
    open var sourceEntityName: String?
    open var destinationEntityName: String?
    open var sourceEntityVersionHash: Data?
    open var destinationEntityVersionHash: Data?
    open var attributeMappings: [NSPropertyMapping]?
    open var relationshipMappings: [NSPropertyMapping]?
    open var sourceExpression: NSExpression?
    /// The filter predicate of the source fetch, as Xcode's mapping editor writes it.
    open var sourceFilterPredicate: NSPredicate?
    /// The name of an `NSEntityMigrationPolicy` subclass, resolved as Core Data resolves
    /// `NSClassFromString` (a module-qualified Swift name, or a class registered with
    /// `NSEntityMigrationPolicy.register(_:)`).
    open var entityMigrationPolicyClassName: String?
    open var userInfo: [AnyHashable: Any]?

    public override init() {}

    open override var description: String {
        "NSEntityMapping(\(name ?? "unnamed"): \(sourceEntityName ?? "-") -> \(destinationEntityName ?? "-"), \(mappingType))"
    }

    /// Equal when everything a migration reads is: the entities and their hashes, the
    /// type, the policy, the filter and the property mappings.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSEntityMapping else { return false }
        if other === self { return true }
        return name == other.name && mappingType == other.mappingType
            && sourceEntityName == other.sourceEntityName && destinationEntityName == other.destinationEntityName
            && sourceEntityVersionHash == other.sourceEntityVersionHash
            && destinationEntityVersionHash == other.destinationEntityVersionHash
            && entityMigrationPolicyClassName == other.entityMigrationPolicyClassName
            && sourceFilterPredicate?.formatString == other.sourceFilterPredicate?.formatString
            && (attributeMappings ?? []) == (other.attributeMappings ?? [])
            && (relationshipMappings ?? []) == (other.relationshipMappings ?? [])
    }

    open override var hash: Int { name.hashValue }
}

/// Core Data's `NSMappingModel`: the entity mappings of a migration from one model to
/// another, made in code, read from an Xcode `.xcmappingmodel` (`init(from:forSourceModel:destinationModel:)`,
/// `init(contentsOf:)`), or inferred (`inferredMappingModel(forSourceModel:destinationModel:)`).
open class NSMappingModel: NSObject, @unchecked Sendable {
    open var entityMappings: [NSEntityMapping]! = []

    open var entityMappingsByName: [String: NSEntityMapping] {
        Dictionary((entityMappings ?? []).compactMap { m in m.name.map { ($0, m) } }, uniquingKeysWith: { a, _ in a })
    }

    /// True for a model `inferredMappingModel` made: Core Data migrates those in place.
    var isInferred = false

    public override init() {}

    /// Core Data's `init?(contentsOf:)`: the `.xcmappingmodel` at `url` (its folder, or its
    /// `xcmapping.xml`), with the models it names by path, found beside it. Nil, after
    /// printing why, when it cannot be read.
    public convenience init?(contentsOf url: URL?) {
        guard let url else { return nil }
        do {
            let read = try XcodeMappingModelReader.read(url, sourceModel: nil, destinationModel: nil)
            // A compiled mapping model holds what its models give (version hashes, the
            // attributes' expressions); here they are read from the models it names.
            if let source = XcodeMappingModelReader.model(recordedAt: read.sourceModelPath, besideMappingAt: url),
                let destination = XcodeMappingModelReader.model(recordedAt: read.destinationModelPath, besideMappingAt: url) {
                XcodeMappingModelReader.complete(read.entityMappings, from: source, to: destination)
            }
            self.init()
            entityMappings = read.entityMappings
        } catch {
            NSManagedObjectModel.log("CoreData: error: Failed to load mapping model at \(url.path): \(error)")
            return nil
        }
    }

    /// Core Data's `init?(from:forSourceModel:destinationModel:)`: the mapping model in
    /// `bundles` (nil: the main bundle and the program's SwiftPM resource bundles) whose
    /// source and destination entities are those of the two models. Nil when none is.
    public convenience init?(from bundles: [Bundle]?, forSourceModel sourceModel: NSManagedObjectModel?, destinationModel: NSManagedObjectModel?) {
        guard let sourceModel, let destinationModel,
            let found = XcodeMappingModelReader.find(in: bundles, from: sourceModel, to: destinationModel)
        else { return nil }
        self.init()
        entityMappings = found.entityMappings
    }

    /// Core Data's `inferredMappingModel(forSourceModel:destinationModel:)`: the mapping
    /// lightweight migration would use, or an error (134190, `NSInferredMappingModelError`)
    /// that names the change no mapping can be inferred for.
    open class func inferredMappingModel(forSourceModel sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel) throws -> NSMappingModel {
        try InferredMapping.infer(from: sourceModel, to: destinationModel)
    }

    open override var description: String { "NSMappingModel(\((entityMappings ?? []).compactMap(\.name).joined(separator: ", ")))" }

    /// Two mapping models are equal when their entity mappings are, in order: Core Data
    /// compares them by content, as real suites rely on (JSQCoreDataKit's MigrationTests
    /// compares the mapping `init(from:forSourceModel:destinationModel:)` finds with the
    /// same file read by `init(contentsOf:)`).
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSMappingModel else { return false }
        return other === self || (entityMappings ?? []) == (other.entityMappings ?? [])
    }

    open override var hash: Int { (entityMappings ?? []).count }
}
