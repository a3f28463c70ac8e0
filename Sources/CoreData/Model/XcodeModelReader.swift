import Foundation
import XcodeModel

/// Turns an Xcode model as it is on disk (read by XcodeModel's `XcodeModelFile`, the one
/// reader the port uses too) into an `NSManagedObjectModel`.
enum XcodeModelReader {
    /// The model at `url`, or the error that says why not.
    static func load(from url: URL) throws(XcodeModelError) -> NSManagedObjectModel {
        let (parsed, contents) = try XcodeModelFile.read(try sourceURL(for: url))
        let model = try build(parsed, file: contents.path)
        model.sourceURL = url
        return model
    }

    /// The `contents` file of the model at `url`.
    static func contentsURL(for url: URL) throws(XcodeModelError) -> URL {
        try XcodeModelFile.contentsURL(for: sourceURL(for: url))
    }

    /// The model's source for `url`: `url` itself, or, for a compiled model's name
    /// (`.momd`, `.mom`) that is not on disk, the `.xcdatamodeld` of that name beside it or
    /// in the program's resources: code written for Apple platforms names the compiled
    /// model, and Linux has its source.
    static func sourceURL(for url: URL) throws(XcodeModelError) -> URL {
        guard ["momd", "mom"].contains(url.pathExtension), !FileManager.default.fileExists(atPath: url.path) else { return url }
        let name = url.deletingPathExtension().lastPathComponent
        let beside = url.deletingLastPathComponent()
        if let source = XcodeModelLocator.modelURL(named: name, in: [beside] + XcodeModelLocator.searchDirectories()) {
            return source
        }
        throw XcodeModelError(
            .notFound, "There is no compiled model on Linux, and no \(name).xcdatamodeld beside this path or in the program's resources to read instead. Add \(name).xcdatamodeld to the target's resources.",
            file: url.path)
    }

    /// Builds the description objects, then links parents, destinations and inverses.
    static func build(_ parsed: XcodeModelContents, file: String) throws(XcodeModelError) -> NSManagedObjectModel {
        var byName: [String: NSEntityDescription] = [:]
        var entities: [NSEntityDescription] = []
        for e in parsed.entities {
            let entity = try self.entity(e, file: file)
            byName[e.name] = entity
            entities.append(entity)
        }
        for e in parsed.entities {
            guard let entity = byName[e.name], let parent = e.parentEntity else { continue }
            guard let superentity = byName[parent] else {
                throw XcodeModelError(.missingEntity, "Entity \(e.name) names the parent entity \(parent), which the model does not have.", file: file, line: e.line)
            }
            superentity.subentities.append(entity)
        }
        for e in parsed.entities {
            guard let entity = byName[e.name] else { continue }
            try linkRelationships(of: e, in: entity, byName: byName, file: file)
            for f in e.fetchedProperties where byName[f.destinationEntity] == nil {
                throw XcodeModelError(
                    .missingEntity, "Fetched property \(e.name).\(f.name) fetches the entity \(f.destinationEntity), which the model does not have. Add the entity or choose another destination.",
                    file: file, line: f.line)
            }
        }
        for entity in entities {
            for index in entity.indexes { for element in index.elements { element.resolve(in: entity) } }
        }
        try checkDerivations(parsed, byName: byName, file: file)
        let model = NSManagedObjectModel()
        model.entities = entities
        for configuration in parsed.configurations {
            var members: [NSEntityDescription] = []
            for name in configuration.members {
                guard let entity = byName[name] else {
                    throw XcodeModelError(
                        .missingEntity, "Configuration \(configuration.name) names the entity \(name), which the model does not have.", file: file,
                        line: configuration.line)
                }
                members.append(entity)
            }
            model.setEntities(members, forConfigurationName: configuration.name)
        }
        if let version = parsed.versionIdentifier { model.versionIdentifiers = [version] }
        return model
    }

    /// Each derived attribute's expression against its entity, once relationships are
    /// linked: one the store cannot derive is refused with its file and line.
    static func checkDerivations(_ parsed: XcodeModelContents, byName: [String: NSEntityDescription], file: String) throws(XcodeModelError) {
        for e in parsed.entities {
            guard let entity = byName[e.name] else { continue }
            for a in e.attributes where a.isDerived {
                guard let derived = entity.properties.first(where: { $0.name == a.name }) as? NSDerivedAttributeDescription else { continue }
                do throws(ModelCompileError) {
                    _ = try DerivationCompiler.derivation(of: derived, in: entity, entities: byName)
                } catch {
                    throw XcodeModelError(.invalidValue, error.message, file: file, line: a.line)
                }
            }
        }
    }

    /// One entity with its properties and fetch indexes, not yet linked to the others.
    static func entity(_ e: XcodeEntity, file: String) throws(XcodeModelError) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = e.name
        entity.managedObjectClassName = e.representedClassName ?? "NSManagedObject"
        entity.isAbstract = e.isAbstract
        entity.codeGenerationType = e.codeGenerationType
        entity.renamingIdentifier = e.renamingIdentifier
        entity.versionHashModifier = e.versionHashModifier
        entity.userInfo = e.userInfo.isEmpty ? nil : e.userInfo
        entity.uniquenessConstraints = e.uniquenessConstraints
        entity.indexes = e.fetchIndexes.map { index in
            NSFetchIndexDescription(
                name: index.name,
                elements: index.elements.map {
                    NSFetchIndexElementDescription(propertyName: $0.property, collationType: $0.type == "RTree" ? .rTree : .binary, isAscending: $0.ascending)
                })
        }
        var properties: [NSPropertyDescription] = []
        for a in e.attributes { properties.append(try attribute(a, entity: e.name, file: file)) }
        for r in e.relationships { properties.append(try relationship(r, entity: e.name, file: file)) }
        for f in e.fetchedProperties { properties.append(try fetchedProperty(f, entity: e.name, file: file)) }
        entity.properties = properties
        return entity
    }

    static func attribute(_ a: XcodeAttribute, entity: String, file: String) throws(XcodeModelError) -> NSAttributeDescription {
        let d = a.isDerived ? NSDerivedAttributeDescription() : NSAttributeDescription()
        if let derived = d as? NSDerivedAttributeDescription, let text = a.derivationExpression {
            do throws(DerivationExpressionParser.Failure) {
                derived.derivationExpression = try DerivationExpressionParser.parse(text)
            } catch {
                throw XcodeModelError(
                    .invalidValue, "Derived attribute \(entity).\(a.name) has a derivation expression that does not parse (\(error.description)): \(text)", file: file,
                    line: a.line)
            }
        }
        d.name = a.name
        let type = try a.attributeType(entity: entity, file: file)
        d.attributeType = type
        d.isOptional = a.isOptional
        d.isTransient = a.isTransient
        d.usesScalarValueType = a.usesScalarValueType
        d.defaultValue = try a.defaultValue(of: type, entity: entity, file: file)
        d.valueTransformerName = a.valueTransformerName
        d.attributeValueClassName = a.customClassName
        d.allowsExternalBinaryDataStorage = a.allowsExternalBinaryDataStorage
        d.renamingIdentifier = a.renamingIdentifier
        d.isIndexed = a.isIndexed
        d.preservesValueInHistoryOnDeletion = a.preservesValueInHistoryOnDeletion
        d.userInfo = a.userInfo.isEmpty ? nil : a.userInfo
        return d
    }

    /// A fetched property: its request by the destination's name, its predicate parsed
    /// now, so that a malformed one is refused with the model's file and line.
    static func fetchedProperty(_ f: XcodeFetchedProperty, entity: String, file: String) throws(XcodeModelError) -> NSFetchedPropertyDescription {
        let d = NSFetchedPropertyDescription()
        d.name = f.name
        d.isOptional = f.isOptional
        d.userInfo = f.userInfo.isEmpty ? nil : f.userInfo
        let request = NSFetchRequest<any NSFetchRequestResult>(entityName: f.destinationEntity)
        if let format = f.predicateString {
            do throws(PredicateSyntaxError) {
                _ = try PredicateParser.parse(format)
            } catch {
                throw XcodeModelError(
                    .invalidValue, "Fetched property \(entity).\(f.name) has a predicate that does not parse (\(error.description)): \(format)", file: file, line: f.line)
            }
            request.predicate = NSPredicate(format: format)
        }
        d.fetchRequest = request
        return d
    }

    /// A relationship, its destination and inverse still names (`linkRelationships`).
    static func relationship(_ r: XcodeRelationship, entity: String, file: String) throws(XcodeModelError) -> NSRelationshipDescription {
        let d = NSRelationshipDescription()
        d.name = r.name
        d.destinationEntityName = r.destinationEntity
        d.inverseName = r.inverseName
        d.isOptional = r.isOptional
        d.isTransient = r.isTransient
        d.isOrdered = r.isOrdered
        d.deleteRule = try r.deleteRule(entity: entity, file: file)
        d.minCount = r.minCount
        d.maxCount = r.maxCount
        d.renamingIdentifier = r.renamingIdentifier
        d.userInfo = r.userInfo.isEmpty ? nil : r.userInfo
        return d
    }

    /// Points each relationship of `e` at its destination entity and inverse.
    static func linkRelationships(
        of e: XcodeEntity, in entity: NSEntityDescription, byName: [String: NSEntityDescription], file: String
    ) throws(XcodeModelError) {
        for r in e.relationships {
            let d = entity.properties.first { $0.name == r.name } as? NSRelationshipDescription
            guard let destination = byName[r.destinationEntity] else {
                throw XcodeModelError(
                    .missingEntity, "Relationship \(e.name).\(r.name) has the destination entity \(r.destinationEntity), which the model does not have. Add the entity or choose another destination.",
                    file: file, line: r.line)
            }
            d?.destinationEntity = destination
            guard let inverseName = r.inverseName else { continue }
            guard let inverse = destination.relationshipsByName[inverseName] else {
                throw XcodeModelError(
                    .missingEntity, "Relationship \(e.name).\(r.name) names the inverse \(r.destinationEntity).\(inverseName), which \(r.destinationEntity) does not have.",
                    file: file, line: r.line)
            }
            d?.inverseRelationship = inverse
        }
    }
}
