@_spi(CoreData) import ManagedContext
import Foundation

/// The variables of one evaluation: Core Data's `$source`, `$destination`, `$manager`,
/// `$entityMapping`, `$propertyMapping`, `$entityPolicy`.
struct MappingVariables {
    var source: NSManagedObject?
    var destination: NSManagedObject?
    var manager: NSMigrationManager
    var entityMapping: NSEntityMapping
    var propertyMapping: NSPropertyMapping?
    var policy: NSEntityMigrationPolicy

    func value(of name: String) throws -> Any? {
        switch name {
        case NSMigrationSourceObjectKey: source
        case NSMigrationDestinationObjectKey: destination
        case NSMigrationManagerKey: manager
        case NSMigrationEntityMappingKey: entityMapping
        case NSMigrationPropertyMappingKey: propertyMapping
        case NSMigrationEntityPolicyKey: policy
        default:
            throw MigrationFailure(NSMigrationError, "The value expression names $\(name); a mapping's expressions see $source, $destination, $manager, $entityMapping, $propertyMapping and $entityPolicy.")
        }
    }
}

/// A key path expression split into its keys (`NSMigrationManager.keys(of:)`). It holds
/// its expression, so the identifier it is cached under is not reused while cached.
struct ParsedKeyPath {
    let variable: String?
    let keys: [String]
    let expression: NSExpression
}

extension NSMigrationManager {
    /// Sets the destination's attributes from the mapping's attribute mappings.
    func applyAttributeMappings(_ mapping: NSEntityMapping, source: NSManagedObject, destination: NSManagedObject, policy: NSEntityMigrationPolicy) throws {
        guard let entity = destinationEntities[mapping.destinationEntityName ?? ""] else { return }
        var variables = MappingVariables(source: source, destination: destination, manager: self, entityMapping: mapping, policy: policy)
        let attributes = properties(of: entity).attributes
        for property in mapping.attributeMappings ?? [] {
            guard let name = property.name, let expression = property.valueExpression else { continue }
            guard let attribute = attributes[name] else {
                throw MigrationFailure(NSMigrationError, "The entity mapping \(mapping.name ?? "") maps the attribute \(name), which the destination entity \(entity.name ?? "") does not have.")
            }
            variables.propertyMapping = property
            let value = try evaluate(expression, variables)
            if value == nil || value is NSNull {
                // A mandatory attribute keeps its default, as Core Data's inferred migration fills it.
                if !attribute.isOptional && attribute.defaultValue != nil { continue }
                destination.setValue(nil, forKey: name)
            } else {
                destination.setValue(try Self.converted(value!, to: attribute, in: mapping), forKey: name)
            }
        }
    }

    /// Sets the destination's relationships from the mapping's relationship mappings,
    /// evaluated with the source instance it was made from.
    func applyRelationshipMappings(_ mapping: NSEntityMapping, destination: NSManagedObject, policy: NSEntityMigrationPolicy) throws {
        guard let entity = destinationEntities[mapping.destinationEntityName ?? ""], let name = mapping.name else { return }
        let source = sourceInstances(forEntityMappingName: name, destinationInstances: [destination]).first
        var variables = MappingVariables(source: source, destination: destination, manager: self, entityMapping: mapping, policy: policy)
        let relationships = properties(of: entity).relationships
        for property in mapping.relationshipMappings ?? [] {
            guard let key = property.name, let expression = property.valueExpression else { continue }
            guard let relationship = relationships[key] else {
                throw MigrationFailure(NSMigrationError, "The entity mapping \(name) maps the relationship \(key), which the destination entity \(entity.name ?? "") does not have.")
            }
            variables.propertyMapping = property
            let objects = Self.objects(in: try evaluate(expression, variables))
            if relationship.isToMany {
                destination.setValue(relationship.isOrdered ? NSOrderedSet(array: objects) : NSSet(array: objects), forKey: key)
            } else {
                destination.setValue(objects.first, forKey: key)
            }
        }
    }

    func properties(of entity: NSEntityDescription) -> (attributes: [String: NSAttributeDescription], relationships: [String: NSRelationshipDescription]) {
        let name = entity.name ?? ""
        if let found = destinationProperties[name] { return found }
        let made = (entity.attributesByName, entity.relationshipsByName)
        destinationProperties[name] = made
        return made
    }

    /// The managed objects of a relationship's value (one, a set, an array, or none).
    static func objects(in value: Any?) -> [NSManagedObject] {
        switch value {
        case let o as NSManagedObject: [o]
        case let s as NSSet: s.allObjects.compactMap { $0 as? NSManagedObject }
        case let s as NSOrderedSet: s.array.compactMap { $0 as? NSManagedObject }
        case let a as [Any]: a.compactMap { $0 as? NSManagedObject }
        default: []
        }
    }

    /// A value of the type the destination attribute stores: numbers between Core Data's
    /// numeric types; anything else only as it is.
    static func converted(_ value: Any, to attribute: NSAttributeDescription, in mapping: NSEntityMapping) throws -> Any {
        func refuse() -> MigrationFailure {
            MigrationFailure(
                NSMigrationError,
                "The entity mapping \(mapping.name ?? "") gives \(attribute.entity?.name ?? "").\(attribute.name) the value \(value) (\(type(of: value))), which a \(attribute.attributeType) attribute cannot hold. Convert it in the value expression or in an entity migration policy.")
        }
        let number: NSNumber? = value as? NSNumber ?? (value as? Int).map { NSNumber(value: $0) } ?? (value as? Double).map { NSNumber(value: $0) }
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
            guard let number, !(value is String) else { throw refuse() }
            return NSNumber(value: number.int64Value)
        case .doubleAttributeType, .floatAttributeType, .decimalAttributeType:
            guard let number, !(value is String) else { throw refuse() }
            return NSNumber(value: number.doubleValue)
        case .stringAttributeType:
            guard let s = value as? String else { throw refuse() }
            return s
        case .dateAttributeType:
            guard let d = value as? Date else { throw refuse() }
            return d
        default:
            return value
        }
    }

    /// Evaluates a mapping's value expression.
    func evaluate(_ e: NSExpression, _ v: MappingVariables) throws -> Any? {
        switch e.expressionType {
        case .constantValue: return e.constantValue
        case .variable: return try v.value(of: e.variable)
        case .evaluatedObject: return v.source
        case .keyPath: return try keyPath(keys(of: e), v)
        case .function:
            let args = try (e.arguments ?? []).map { try evaluate($0, v) }
            guard let operand = e.operand else { return try Self.builtin(e.function, args) }
            return try send(e.function, to: try evaluate(operand, v), args, v)
        }
    }

    /// A key path expression's keys, split once per expression (a mapping evaluates each
    /// of its expressions once per source instance): the variable it starts from, if any,
    /// then the keys.
    private func keys(of e: NSExpression) -> ParsedKeyPath {
        let id = ObjectIdentifier(e)
        if let parsed = parsedKeyPaths[id] { return parsed }
        var keys = e.keyPath.split(separator: ".").map(String.init)
        let variable = keys.first?.hasPrefix("$") == true ? String(keys.removeFirst().dropFirst()) : nil
        let parsed = ParsedKeyPath(variable: variable, keys: keys, expression: e)
        parsedKeyPaths[id] = parsed
        return parsed
    }

    private func keyPath(_ path: ParsedKeyPath, _ v: MappingVariables) throws -> Any? {
        var value: Any? = try path.variable.map { try v.value(of: $0) } ?? v.source
        for key in path.keys {
            value = try Self.value(of: value, forKey: key)
        }
        return value
    }

    static func value(of object: Any?, forKey key: String) throws -> Any? {
        switch object {
        case nil, is NSNull: return nil
        case let o as NSManagedObject:
            guard o.entity.attributeIndex(ifPresent: key) != nil || o.entity.relationship(named: key) != nil else {
                throw MigrationFailure(NSMigrationError, "A value expression reads \(key) of \(o.entity.name ?? ""), which has no property of that name.")
            }
            return o.value(forKey: key)
        case let set as NSSet:
            return NSSet(array: try set.allObjects.compactMap { try value(of: $0, forKey: key) })
        case let manager as NSMigrationManager where key == "sourceContext": return manager.sourceContext
        case let manager as NSMigrationManager where key == "destinationContext": return manager.destinationContext
        default:
            throw MigrationFailure(NSMigrationError, "A value expression reads \(key) of a \(type(of: object!)); key paths here go through managed objects.")
        }
    }

    /// `FUNCTION(target, "selector", args…)`.
    private func send(_ selector: String, to target: Any?, _ args: [Any?], _ v: MappingVariables) throws -> Any? {
        switch target {
        case let manager as NSMigrationManager:
            switch selector {
            case "destinationInstancesForEntityMappingNamed:sourceInstances:":
                guard let name = args.first as? String else { break }
                let sources = Self.objects(in: args.count > 1 ? args[1] : nil)
                return manager.destinationInstances(forEntityMappingName: name, sourceInstances: sources)
            case "destinationInstancesForSourceRelationshipNamed:sourceInstances:":
                guard let name = args.first as? String else { break }
                return try relationshipDestinations(name, args.count > 1 ? args[1] : nil, v)
            default: break
            }
            throw MigrationFailure(NSMigrationError, "A value expression sends \"\(selector)\" to $manager, which answers destinationInstancesForEntityMappingNamed:sourceInstances: and destinationInstancesForSourceRelationshipNamed:sourceInstances: here.")
        case let policy as NSEntityMigrationPolicy:
            return try policy.perform(function: selector, arguments: args)
        case let object as NSManagedObject where selector == "valueForKey:":
            return try Self.value(of: object, forKey: args.first as? String ?? "")
        default:
            return try Self.sendToValue(selector, target, args)
        }
    }

    /// The destination instances of a source relationship's objects, found through the
    /// entity mapping of each object's entity (Core Data's inferred relationship mappings).
    private func relationshipDestinations(_ name: String, _ sources: Any?, _ v: MappingVariables) throws -> [NSManagedObject] {
        var result: [NSManagedObject] = []
        for source in Self.objects(in: sources) {
            for mapping in mappingModel.entityMappings ?? [] where mapping.sourceEntityName == source.entity.name {
                result += destinationInstances(forEntityMappingName: mapping.name ?? "", sourceInstances: [source])
            }
        }
        return result
    }
}
