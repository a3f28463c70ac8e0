@_spi(CoreData) import ManagedContext

/// What a model cannot be, here or in Core Data: the error names the entity and property.
struct ModelCompileError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Compiles a Core Data model into the runtime's declarations: each entity's class,
/// attributes (with the storage type each Core Data type is kept in) and relationships.
enum ModelCompiler {
    static func declarations(of model: NSManagedObjectModel) -> [EntityDeclaration] {
        do {
            return try checkedDeclarations(of: model)
        } catch {
            preconditionFailure("\(error)")
        }
    }

    static func checkedDeclarations(of model: NSManagedObjectModel) throws(ModelCompileError) -> [EntityDeclaration] {
        var declarations: [EntityDeclaration] = []
        let byName = model.entitiesByName
        for entity in model.entities {
            guard let name = entity.name, !name.isEmpty else {
                throw ModelCompileError(message: "An entity of the model has no name. Give every entity a name.")
            }
            if let parent = entity.superentity, parent.name.map({ byName[$0] === parent }) != true {
                throw ModelCompileError(message: "Entity \(name) inherits from an entity that is not in the model. Add its parent entity to the model.")
            }
            let cls = ClassResolver.managedObjectClass(named: entity.managedObjectClassName, entity: name)
            var declaration = EntityDeclaration(name: name, managedObjectClass: cls, declaration: entity)
            declaration.renamingIdentifier = entity.renamingIdentifier
            // Core Data stores an inheritance tree in its root's table (one row kind per
            // Z_ENT); the subentity's properties list the inherited ones first.
            declaration.parentName = entity.superentity?.name
            declaration.isAbstract = entity.isAbstract
            // Names, or property descriptions (Core Data accepts either).
            declaration.uniquenessConstraints = entity.uniquenessConstraints.map { constraint in
                constraint.compactMap { ($0 as? String) ?? ($0 as? NSPropertyDescription)?.name }
            }
            declaration.fetchIndexes = entity.indexes.map(\.compiled)
            for property in entity.allProperties {
                if let a = property as? NSAttributeDescription {
                    if var attribute = try compiledAttribute(a, of: name) {
                        if let derived = a as? NSDerivedAttributeDescription {
                            attribute.derivation = try DerivationCompiler.derivation(of: derived, in: entity, entities: byName)
                        }
                        declaration.attributes.append(attribute)
                    }
                } else if let r = property as? NSRelationshipDescription {
                    declaration.relationships.append(try compiledRelationship(r, of: name, in: byName))
                }
            }
            declarations.append(declaration)
        }
        return declarations
    }

    /// A stored attribute as the runtime declares it; nil for a transient one.
    private static func compiledAttribute(_ a: NSAttributeDescription, of entity: String) throws(ModelCompileError) -> EntityDeclaration.Attribute? {
        if a.isTransient { return nil }
        guard let storage = storageType(of: a.attributeType) else {
            throw ModelCompileError(message: "Attribute \(entity).\(a.name) has the type \(a.attributeType), which this runtime does not store. Use another attribute type.")
        }
        let stored = StorageConversion.toStorage(a.defaultValue, of: a) ?? nil
        var attribute = EntityDeclaration.Attribute(name: a.name, attributeType: storage, isOptional: a.isOptional, defaultValue: stored)
        attribute.renamingIdentifier = a.renamingIdentifier
        attribute.isIndexed = a.isIndexed
        attribute.preservesValueInHistoryOnDeletion = a.preservesValueInHistoryOnDeletion
        return attribute
    }

    /// A relationship as the runtime declares it, once its destination and (for a to-many
    /// one) its inverse are in the model and stored the way the runtime can.
    private static func compiledRelationship(
        _ r: NSRelationshipDescription, of name: String, in byName: [String: NSEntityDescription]
    ) throws(ModelCompileError) -> EntityDeclaration.Relationship {
        guard let destination = r.destinationEntity?.name ?? r.destinationEntityName, byName[destination] != nil else {
            throw ModelCompileError(message: "Relationship \(name).\(r.name) has no destination entity in the model. Set its destination.")
        }
        let inverse = r.inverseRelationship?.name ?? r.inverseName
        if r.isToMany {
            guard let inverse, let inverseRelationship = byName[destination]?.relationshipsByName[inverse] else {
                throw ModelCompileError(
                    message: "To-many relationship \(name).\(r.name) has no inverse. This runtime keeps a to-many relationship as the foreign key of its inverse to-one: give it an inverse (Xcode warns about missing inverses too).")
            }
            // Many-to-many: a join table, as Core Data stores it (not yet ordered).
            if inverseRelationship.isToMany && (r.isOrdered || inverseRelationship.isOrdered) {
                throw ModelCompileError(
                    message: "\(name).\(r.name) and \(destination).\(inverse) are an ordered many-to-many relationship, which this runtime does not store yet. Make both sides unordered and sort in the fetch.")
            }
            if inverseRelationship.isToMany && inverseRelationship === r {
                throw ModelCompileError(
                    message: "\(name).\(r.name) is a many-to-many relationship that is its own inverse, which this runtime does not store yet. Give it a separate inverse relationship.")
            }
        }
        return .init(
            name: r.name, destinationEntityName: destination, inverseName: inverse, isToMany: r.isToMany,
            deleteRule: r.deleteRule == .cascadeDeleteRule ? .cascade : .nullify,
            // Kept in the destination's Z_FOK_<INVERSE> column, as Core Data keeps it.
            isOrdered: r.isToMany && r.isOrdered)
    }

    /// The runtime type that stores a Core Data attribute type; NSManagedObject converts
    /// on access (a Float is kept as a double, a UUID as its 16 bytes, a URI as its text,
    /// a transformable value as the data its transformer makes), as Core Data's SQLite
    /// store keeps them.
    static func storageType(of type: NSAttributeType) -> AttributeType? {
        switch type {
        case .stringAttributeType, .URIAttributeType: .string
        case .integer16AttributeType: .integer16
        case .integer32AttributeType: .integer32
        case .integer64AttributeType: .integer64
        case .doubleAttributeType, .floatAttributeType, .decimalAttributeType: .double
        case .booleanAttributeType: .boolean
        case .dateAttributeType: .date
        case .binaryDataAttributeType, .UUIDAttributeType, .transformableAttributeType: .binaryData
        case .undefinedAttributeType, .objectIDAttributeType, .compositeAttributeType: nil
        }
    }
}
