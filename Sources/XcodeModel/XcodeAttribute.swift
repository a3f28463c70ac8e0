/// An `<attribute>` element of an entity, as written: its type is Xcode's name for it and
/// its default value the text Xcode saved (CoreData turns both into its values, and says
/// which attribute when one is not a type or not a value of it).
package struct XcodeAttribute: Sendable {
    package var name: String
    /// `attributeType`: `String`, `Integer 16`, `Date`, `Transformable`…
    package var typeName: String
    package var isOptional: Bool
    package var isTransient: Bool
    package var usesScalarValueType: Bool
    /// `defaultValueString`, as written.
    package var defaultValueString: String?
    /// `defaultDateTimeInterval` (seconds since 2001-01-01), as written.
    package var defaultDateTimeInterval: String?
    package var valueTransformerName: String?
    /// `customClassName`: the class of a transformable value.
    package var customClassName: String?
    package var allowsExternalBinaryDataStorage: Bool
    package var isIndexed: Bool
    /// `preserveAfterDeletion`: Xcode's "Preserve After Deletion" (Core Data's
    /// `preservesValueInHistoryOnDeletion`).
    package var preservesValueInHistoryOnDeletion: Bool
    /// `elementID`: Xcode's "Renaming ID".
    package var renamingIdentifier: String?
    package var userInfo: [String: String]
    /// `derived="YES"`: Xcode's "Derived" (Core Data's `NSDerivedAttributeDescription`).
    package var isDerived: Bool
    /// `derivationExpression`, as written (`lowercase:(name)`, `notes.@count`, `now()`).
    package var derivationExpression: String?
    package var line: Int

    package init(_ node: XMLNode, entity: String, file: String) throws(XcodeModelError) {
        guard let name = node["name"], !name.isEmpty else {
            throw XcodeModelError(.missingAttribute, "An attribute of entity \(entity) has no `name`.", file: file, line: node.line)
        }
        guard let typeName = node["attributeType"] else {
            throw XcodeModelError(.missingAttribute, "Attribute \(entity).\(name) has no `attributeType`. Choose its type in Xcode's Data Model inspector.", file: file, line: node.line)
        }
        self.name = name
        self.typeName = typeName
        self.line = node.line
        isOptional = node.flag("optional")
        isTransient = node.flag("transient")
        usesScalarValueType = node.flag("usesScalarValueType")
        defaultValueString = node["defaultValueString"]
        defaultDateTimeInterval = node["defaultDateTimeInterval"]
        valueTransformerName = node["valueTransformerName"]
        customClassName = node["customClassName"]
        allowsExternalBinaryDataStorage = node.flag("allowsExternalBinaryDataStorage")
        isIndexed = node.flag("indexed")
        preservesValueInHistoryOnDeletion = node.flag("preserveAfterDeletion")
        renamingIdentifier = node["elementID"]
        isDerived = node.flag("derived")
        derivationExpression = node["derivationExpression"]
        userInfo = try XcodeUserInfo.parse(node.child(named: "userInfo"), owner: "\(entity).\(name)", file: file)
    }
}
