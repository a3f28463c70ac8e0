import Foundation

/// The mapping model Core Data's lightweight migration infers from two models
/// ("Migrating your data model automatically",
/// https://developer.apple.com/documentation/coredata/migrating-your-data-model-automatically;
/// "Lightweight Migration", Core Data Model Versioning and Data Migration Programming Guide):
/// - an entity maps to the source entity of its name, or of its `renamingIdentifier`;
///   a source entity nothing maps to is removed, a new entity is added (empty);
/// - an attribute takes the value of the source attribute of its name or renaming
///   identifier (`$source.name`); a new one, or one made mandatory, takes its default;
/// - a relationship takes the destination instances of its source relationship's
///   objects, a to-one made to-many takes its one object, ordered and unordered
///   to-many relationships convert;
/// - the inheritance tree may change (new parents, properties moved up or down, an
///   entity moved out of a tree), since each entity maps on its own.
/// A type change is inferred only between types stored alike (the integer types among
/// themselves, the floating-point ones among themselves): "You cannot use lightweight
/// migration for this" otherwise (https://stackoverflow.com/questions/17534859), and
/// the error names the attribute. A to-many relationship made to-one is refused too
/// (it would drop objects).
enum InferredMapping {
    static func infer(from source: NSManagedObjectModel, to destination: NSManagedObjectModel) throws -> NSMappingModel {
        let sources = source.entitiesByName
        var mappings: [NSEntityMapping] = []
        var mapped: Set<String> = []
        var names: [String: String] = [:]  // source entity → its mapping's name
        for entity in destination.entities {
            guard let name = entity.name else { continue }
            let sourceName = [entity.renamingIdentifier, name].compactMap { $0 }.first { sources[$0] != nil }
            if let sourceName { names[sourceName] = "\(sourceName)To\(name)" }
        }
        for entity in destination.entities {
            guard let name = entity.name else { continue }
            let m = NSEntityMapping()
            m.destinationEntityName = name
            m.destinationEntityVersionHash = entity.versionHash
            guard let sourceName = [entity.renamingIdentifier, name].compactMap({ $0 }).first(where: { sources[$0] != nil }), let from = sources[sourceName] else {
                m.name = "AddTo\(name)"
                m.mappingType = .addEntityMappingType
                mappings.append(m)
                continue
            }
            mapped.insert(sourceName)
            m.name = "\(sourceName)To\(name)"
            m.sourceEntityName = sourceName
            m.sourceEntityVersionHash = from.versionHash
            m.mappingType = from.versionHash == entity.versionHash && sourceName == name ? .copyEntityMappingType : .transformEntityMappingType
            m.attributeMappings = try attributeMappings(from: from, to: entity)
            m.relationshipMappings = try relationshipMappings(from: from, to: entity, names: names)
            mappings.append(m)
        }
        for entity in source.entities where !mapped.contains(entity.name ?? "") {
            let m = NSEntityMapping()
            m.name = "\(entity.name ?? "")ToRemove"
            m.sourceEntityName = entity.name
            m.sourceEntityVersionHash = entity.versionHash
            m.mappingType = .removeEntityMappingType
            mappings.append(m)
        }
        let model = NSMappingModel()
        model.entityMappings = mappings
        model.isInferred = true
        return model
    }

    /// The source property a destination property is: the one named by its renaming
    /// identifier, or with the same renaming identifier (the canonical name, "so you can
    /// rename a property in version 2 of a model, then rename it again in version 3"),
    /// or of its name.
    static func sourceProperty<P: NSPropertyDescription>(_ p: NSPropertyDescription, in byName: [String: P]) -> P? {
        if let old = p.renamingIdentifier {
            if let found = byName[old] { return found }
            if let found = byName.values.first(where: { $0.renamingIdentifier == old }) { return found }
        }
        return byName[p.name]
    }

    private static func attributeMappings(from source: NSEntityDescription, to entity: NSEntityDescription) throws -> [NSPropertyMapping] {
        let old = source.attributesByName
        var result: [NSPropertyMapping] = []
        for attribute in entity.attributesByName.values.sorted(by: { $0.name < $1.name }) where !attribute.isTransient {
            guard let from = sourceProperty(attribute, in: old), !from.isTransient else {
                result.append(NSPropertyMapping(name: attribute.name, valueExpression: nil))
                continue
            }
            guard storedAlike(from.attributeType, attribute.attributeType) else {
                throw MigrationFailure(
                    NSInferredMappingModelError,
                    "Can't infer a mapping for \(entity.name ?? "").\(attribute.name): its type changes from \(from.attributeType) to \(attribute.attributeType), which lightweight migration does not convert. Migrate it with a mapping model (a value expression or an entity migration policy), or in stages.")
            }
            result.append(NSPropertyMapping(name: attribute.name, valueExpression: NSExpression(forKeyPath: "$source.\(from.name)")))
        }
        return result
    }

    private static func relationshipMappings(from source: NSEntityDescription, to entity: NSEntityDescription, names: [String: String]) throws -> [NSPropertyMapping] {
        let old = source.relationshipsByName
        var result: [NSPropertyMapping] = []
        for r in entity.relationshipsByName.values.sorted(by: { $0.name < $1.name }) where !r.isTransient {
            guard let from = sourceProperty(r, in: old) else {
                result.append(NSPropertyMapping(name: r.name, valueExpression: nil))
                continue
            }
            if from.isToMany && !r.isToMany {
                throw MigrationFailure(
                    NSInferredMappingModelError,
                    "Can't infer a mapping for \(entity.name ?? "").\(r.name): a to-many relationship made to-one would drop objects. Migrate it with a mapping model.")
            }
            let expression = NSExpression(
                forFunction: NSExpression(forVariable: NSMigrationManagerKey), selectorName: "destinationInstancesForSourceRelationshipNamed:sourceInstances:",
                arguments: [NSExpression(forConstantValue: from.name), NSExpression(forKeyPath: "$source.\(from.name)")])
            result.append(NSPropertyMapping(name: r.name, valueExpression: expression))
        }
        return result
    }

    /// Whether a value of `a` is stored as one of `b` (Core Data's SQL column types).
    static func storedAlike(_ a: NSAttributeType, _ b: NSAttributeType) -> Bool {
        if a == b { return true }
        let integers: Set<NSAttributeType> = [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType]
        let reals: Set<NSAttributeType> = [.doubleAttributeType, .floatAttributeType, .decimalAttributeType]
        return (integers.contains(a) && integers.contains(b)) || (reals.contains(a) && reals.contains(b))
    }
}
