/// An `<entity>` element: its name, class, place in an inheritance tree, properties,
/// constraints, fetch indexes and user info.
package struct XcodeEntity: Sendable {
    package var name: String
    /// `representedClassName`; nil means `NSManagedObject`.
    package var representedClassName: String?
    package var parentEntity: String?
    package var isAbstract: Bool
    /// `codeGenerationType`: `class`, `category`, or nil (Manual/None).
    package var codeGenerationType: String?
    package var renamingIdentifier: String?
    package var versionHashModifier: String?
    package var attributes: [XcodeAttribute]
    package var relationships: [XcodeRelationship]
    package var fetchedProperties: [XcodeFetchedProperty]
    package var uniquenessConstraints: [[String]]
    package var fetchIndexes: [XcodeFetchIndex]
    package var userInfo: [String: String]
    package var line: Int

    package init(_ node: XMLNode, file: String) throws(XcodeModelError) {
        guard let name = node["name"], !name.isEmpty else {
            throw XcodeModelError(.missingAttribute, "An entity has no `name`. Name every entity in Xcode's model editor.", file: file, line: node.line)
        }
        self.name = name
        representedClassName = node["representedClassName"]
        parentEntity = node["parentEntity"]
        isAbstract = node.flag("isAbstract")
        codeGenerationType = node["codeGenerationType"]
        renamingIdentifier = node["elementID"]
        versionHashModifier = node["versionHashModifier"]
        line = node.line
        var attributes: [XcodeAttribute] = []
        var relationships: [XcodeRelationship] = []
        var fetchedProperties: [XcodeFetchedProperty] = []
        var seen: Set<String> = []
        for child in node.children {
            let propertyName: String
            switch child.name {
            case "attribute":
                let a = try XcodeAttribute(child, entity: name, file: file)
                attributes.append(a)
                propertyName = a.name
            case "relationship":
                let r = try XcodeRelationship(child, entity: name, file: file)
                relationships.append(r)
                propertyName = r.name
            case "fetchedProperty":
                let f = try XcodeFetchedProperty(child, entity: name, file: file)
                fetchedProperties.append(f)
                propertyName = f.name
            default:
                continue
            }
            guard seen.insert(propertyName).inserted else {
                throw XcodeModelError(.duplicateName, "Entity \(name) has two properties named '\(propertyName)'. Rename one.", file: file, line: child.line)
            }
        }
        self.attributes = attributes
        self.relationships = relationships
        self.fetchedProperties = fetchedProperties
        uniquenessConstraints = try XcodeUniquenessConstraints.parse(node.child(named: "uniquenessConstraints"), entity: name, file: file)
        var indexes: [XcodeFetchIndex] = []
        for index in node.children(named: "fetchIndex") { indexes.append(try XcodeFetchIndex(index, entity: name, file: file)) }
        fetchIndexes = indexes
        userInfo = try XcodeUserInfo.parse(node.child(named: "userInfo"), owner: "entity \(name)", file: file)
    }
}

/// The `<model>` root of a `contents` file: its entities, configurations and version
/// identifier. Layout (`<elements>`) and fetch request templates are not read.
package struct XcodeModelContents: Sendable {
    package var entities: [XcodeEntity]
    /// `<configuration name="…">` with its `<memberEntity name="…"/>`s, in file order.
    package var configurations: [(name: String, members: [String], line: Int)] = []
    /// `userDefinedModelVersionIdentifier`: Core Data's `versionIdentifiers`.
    package var versionIdentifier: String?

    package init(_ root: XMLNode, file: String) throws(XcodeModelError) {
        guard root.name == "model" else {
            throw XcodeModelError(.malformedXML, "The root element is <\(root.name)>, not <model>: this is not a Core Data model's `contents` file.", file: file, line: root.line)
        }
        var entities: [XcodeEntity] = []
        var lines: [String: Int] = [:]
        for node in root.children(named: "entity") {
            let entity = try XcodeEntity(node, file: file)
            if let first = lines[entity.name] {
                throw XcodeModelError(.duplicateName, "Two entities are named \(entity.name) (the other at line \(first)). Rename one.", file: file, line: node.line)
            }
            lines[entity.name] = node.line
            entities.append(entity)
        }
        self.entities = entities
        for node in root.children(named: "configuration") {
            guard let name = node["name"], !name.isEmpty else {
                throw XcodeModelError(.malformedXML, "A <configuration> has no name. Name it in Xcode's model editor.", file: file, line: node.line)
            }
            configurations.append((name, node.children(named: "memberEntity").compactMap { $0["name"] }, node.line))
        }
        versionIdentifier = root["userDefinedModelVersionIdentifier"].flatMap { $0.isEmpty ? nil : $0 }
    }
}
