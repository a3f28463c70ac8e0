@_spi(CoreData) public import ManagedContext

/// Core Data's model configurations and version hashes. A configuration names a subset
/// of the entities (Xcode's `<configuration>`); the default one, with every entity, has
/// no name (Core Data calls it "PF_DEFAULT_CONFIGURATION_NAME").
extension NSManagedObjectModel {
    /// The name Core Data gives the default configuration.
    static let defaultConfigurationName = "PF_DEFAULT_CONFIGURATION_NAME"

    /// Core Data's `configurations`: the names of the model's configurations.
    public var configurations: [String] { configurationMembers.map(\.name) }

    /// Core Data's `entities(forConfigurationName:)`: the entities of a configuration,
    /// every entity for nil (or the default's name), nil for a name the model lacks.
    public func entities(forConfigurationName name: String?) -> [NSEntityDescription]? {
        guard let name, name != Self.defaultConfigurationName, name != "Default" || configurations.contains("Default") else { return entities }
        return configurationMembers.first { $0.name == name }?.entities
    }

    /// Core Data's `setEntities(_:forConfigurationName:)`.
    public func setEntities(_ entities: [NSEntityDescription], forConfigurationName name: String) {
        precondition(!isFrozen, "Can't modify an immutable model: \(self) is in use by a persistent store coordinator.")
        if let index = configurationMembers.firstIndex(where: { $0.name == name }) {
            configurationMembers[index].entities = entities
        } else {
            configurationMembers.append((name, entities))
        }
    }

    /// Core Data's `entityVersionHashesByName`: each entity's version hash, as this
    /// runtime writes them into a store's metadata (`NSStoreModelVersionHashes`). Core
    /// Data's hash function is not documented, so the values are ctxdebug's own.
    public var entityVersionHashesByName: [String: Data] { runtimeModel.entityVersionHashesByName }

    /// Core Data's `isConfiguration(withName:compatibleWithStoreMetadata:)`: whether a
    /// store with `metadata` (from `metadataForPersistentStore(ofType:at:options:)`) fits
    /// this model's configuration, so that opening it needs no migration. A store this
    /// runtime wrote is matched hash for hash; one Core Data wrote, whose hashes cannot be
    /// computed here, by its entities' names.
    public func isConfiguration(withName name: String?, compatibleWithStoreMetadata metadata: [String: Any]) -> Bool {
        guard let members = entities(forConfigurationName: name) else { return false }
        let names = Set(members.compactMap(\.name))
        return runtimeModel.isCompatible(withStoreMetadata: metadata, entityNames: name == nil ? nil : names)
    }
}

extension NSEntityDescription {
    /// Core Data's `versionHash`, as `NSManagedObjectModel.entityVersionHashesByName` gives it.
    public var versionHash: Data {
        guard let name, let hash = managedObjectModel?.entityVersionHashesByName[name] else { return Data() }
        return hash
    }
}

extension NSPropertyDescription {
    /// Core Data's `versionHash`: a digest of what makes the property's storage what it is
    /// (its name, kind, type or destination, optionality, transience, and
    /// `versionHashModifier`, which "distinguishes otherwise identical" versions, as Apple
    /// documents it). Core Data's hash function is not documented, so the values are
    /// ctxdebug's own, stable across runs, as the entities' are.
    public var versionHash: Data { StoreMetadata.versionDigest(versionHashText) }

    var versionHashText: String {
        var text = "\(name)|optional=\(isOptional)|transient=\(isTransient)|modifier=\(versionHashModifier ?? "")"
        if let attribute = self as? NSAttributeDescription { text += "|attribute=\(attribute.attributeType.rawValue)" }
        if let relationship = self as? NSRelationshipDescription {
            text += "|relationship=\(relationship.destinationEntity?.name ?? "")|toMany=\(relationship.isToMany)|ordered=\(relationship.isOrdered)"
        }
        return text
    }
}
