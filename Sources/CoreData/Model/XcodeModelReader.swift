import Foundation

/// Reads an Xcode model as it is on disk (no `momc`): a `Name.xcdatamodeld` folder (its
/// current version, named by `.xccurrentversion`), a single `Name.xcdatamodel`
/// folder, or its `contents` file, into an `NSManagedObjectModel`.
enum XcodeModelReader {
    /// The model at `url`, or the error that says why not.
    static func load(from url: URL) throws(XcodeModelError) -> NSManagedObjectModel {
        let contents = try contentsURL(for: url)
        let data: Data
        do {
            data = try Data(contentsOf: contents)
        } catch {
            throw XcodeModelError(.notFound, "The model's contents file cannot be read (\(error.localizedDescription)). Check the path and its permissions.", file: contents.path)
        }
        let root = try XMLNode.parse(data, file: contents.path)
        let parsed = try XcodeModelContents(root, file: contents.path)
        let model = try build(parsed, file: contents.path)
        model.sourceURL = url
        return model
    }

    /// The `contents` file of the model at `url`.
    static func contentsURL(for url: URL) throws(XcodeModelError) -> URL {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        if ["momd", "mom"].contains(url.pathExtension), !fm.fileExists(atPath: url.path) {
            // Code written for Apple platforms names the compiled model; Linux has its
            // source, beside it or in the program's resources.
            let name = url.deletingPathExtension().lastPathComponent
            let beside = url.deletingLastPathComponent()
            if let source = XcodeModelLocator.modelURL(named: name, in: [beside] + XcodeModelLocator.searchDirectories()) {
                return try contentsURL(for: source)
            }
            throw XcodeModelError(
                .notFound, "There is no compiled model on Linux, and no \(name).xcdatamodeld beside this path or in the program's resources to read instead. Add \(name).xcdatamodeld to the target's resources.",
                file: url.path)
        }
        guard fm.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw XcodeModelError(.notFound, "There is no model here. Point to a .xcdatamodeld or .xcdatamodel folder (as Xcode saves it), or to its contents file.", file: url.path)
        }
        guard isDirectory.boolValue else { return url }
        switch url.pathExtension {
        case "xcdatamodeld":
            return try contentsURL(for: currentVersion(of: url))
        default:
            let contents = url.appendingPathComponent("contents")
            guard fm.fileExists(atPath: contents.path) else {
                throw XcodeModelError(.notFound, "The folder has no `contents` file, so it is not a model Xcode saved (a .xcdatamodel folder holds one). A compiled .momd cannot be read here: use the .xcdatamodeld source.", file: url.path)
            }
            return contents
        }
    }

    /// The current version of a `.xcdatamodeld`: the one `.xccurrentversion` names
    /// (`_XCCurrentVersionName`), or its only version when it has one and no such file.
    static func currentVersion(of modeld: URL) throws(XcodeModelError) -> URL {
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: modeld.path)) ?? []).filter { $0.hasSuffix(".xcdatamodel") }.sorted()
        let marker = modeld.appendingPathComponent(".xccurrentversion")
        if let data = try? Data(contentsOf: marker) {
            let plist = try? PropertyListSerialization.propertyList(from: data, format: nil)
            guard let name = (plist as? [String: Any])?["_XCCurrentVersionName"] as? String else {
                throw XcodeModelError(.noCurrentVersion, "The .xccurrentversion file is not a property list with _XCCurrentVersionName. Choose the current version again in Xcode (Model Version in the File inspector).", file: marker.path)
            }
            guard versions.contains(name) else {
                throw XcodeModelError(
                    .noCurrentVersion, "The .xccurrentversion file names \(name), which the model does not have (it has \(versions.isEmpty ? "no versions" : versions.joined(separator: ", "))).",
                    file: marker.path)
            }
            return modeld.appendingPathComponent(name)
        }
        switch versions.count {
        case 0:
            throw XcodeModelError(.notFound, "The .xcdatamodeld folder holds no .xcdatamodel version.", file: modeld.path)
        case 1:
            return modeld.appendingPathComponent(versions[0])
        default:
            throw XcodeModelError(
                .noCurrentVersion, "The model has several versions (\(versions.joined(separator: ", "))) and no .xccurrentversion file naming the current one. Choose it in Xcode (Model Version in the File inspector).",
                file: modeld.path)
        }
    }

    /// Builds the description objects, then links parents, destinations and inverses.
    static func build(_ parsed: XcodeModelContents, file: String) throws(XcodeModelError) -> NSManagedObjectModel {
        var byName: [String: NSEntityDescription] = [:]
        var entities: [NSEntityDescription] = []
        for e in parsed.entities {
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
            for a in e.attributes {
                let d = NSAttributeDescription()
                d.name = a.name
                d.attributeType = a.type
                d.isOptional = a.isOptional
                d.isTransient = a.isTransient
                d.usesScalarValueType = a.usesScalarValueType
                d.defaultValue = a.defaultValue
                d.valueTransformerName = a.valueTransformerName
                d.attributeValueClassName = a.customClassName
                d.allowsExternalBinaryDataStorage = a.allowsExternalBinaryDataStorage
                d.renamingIdentifier = a.renamingIdentifier
                d.isIndexed = a.isIndexed
                d.userInfo = a.userInfo.isEmpty ? nil : a.userInfo
                properties.append(d)
            }
            for r in e.relationships {
                let d = NSRelationshipDescription()
                d.name = r.name
                d.destinationEntityName = r.destinationEntity
                d.inverseName = r.inverseName
                d.isOptional = r.isOptional
                d.isTransient = r.isTransient
                d.isOrdered = r.isOrdered
                d.deleteRule = r.deleteRule
                d.minCount = r.minCount
                d.maxCount = r.maxCount
                d.renamingIdentifier = r.renamingIdentifier
                d.userInfo = r.userInfo.isEmpty ? nil : r.userInfo
                properties.append(d)
            }
            entity.properties = properties
            byName[e.name] = entity
            entities.append(entity)
        }
        for e in parsed.entities {
            guard let entity = byName[e.name] else { continue }
            if let parent = e.parentEntity {
                guard let superentity = byName[parent] else {
                    throw XcodeModelError(.missingEntity, "Entity \(e.name) names the parent entity \(parent), which the model does not have.", file: file, line: e.line)
                }
                superentity.subentities.append(entity)
            }
        }
        for e in parsed.entities {
            guard let entity = byName[e.name] else { continue }
            for r in e.relationships {
                let d = entity.properties.first { $0.name == r.name } as? NSRelationshipDescription
                guard let destination = byName[r.destinationEntity] else {
                    throw XcodeModelError(
                        .missingEntity, "Relationship \(e.name).\(r.name) has the destination entity \(r.destinationEntity), which the model does not have. Add the entity or choose another destination.",
                        file: file, line: r.line)
                }
                d?.destinationEntity = destination
                if let inverseName = r.inverseName {
                    guard let inverse = destination.relationshipsByName[inverseName] else {
                        throw XcodeModelError(
                            .missingEntity, "Relationship \(e.name).\(r.name) names the inverse \(r.destinationEntity).\(inverseName), which \(r.destinationEntity) does not have.",
                            file: file, line: r.line)
                    }
                    d?.inverseRelationship = inverse
                }
            }
        }
        for entity in entities {
            for index in entity.indexes { for element in index.elements { element.resolve(in: entity) } }
        }
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
}
