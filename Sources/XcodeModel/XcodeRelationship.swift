/// A `<relationship>` element of an entity; its delete rule as Xcode's name for it
/// (CoreData turns it into its `NSDeleteRule`).
package struct XcodeRelationship: Sendable {
    package var name: String
    package var destinationEntity: String
    package var inverseName: String?
    package var inverseEntity: String?
    package var isToMany: Bool
    package var isOrdered: Bool
    package var isOptional: Bool
    package var isTransient: Bool
    /// `deletionRule`: `Nullify`, `Cascade`, `Deny` or `No Action`; nil: Nullify.
    package var deletionRule: String?
    package var minCount: Int
    /// 0 for no limit; 1 for a to-one relationship.
    package var maxCount: Int
    package var renamingIdentifier: String?
    package var userInfo: [String: String]
    package var line: Int

    package init(_ node: XMLNode, entity: String, file: String) throws(XcodeModelError) {
        guard let name = node["name"], !name.isEmpty else {
            throw XcodeModelError(.missingAttribute, "A relationship of entity \(entity) has no `name`.", file: file, line: node.line)
        }
        guard let destination = node["destinationEntity"], !destination.isEmpty else {
            throw XcodeModelError(
                .missingEntity, "Relationship \(entity).\(name) has no destination entity (`destinationEntity`). Choose its destination in Xcode's Data Model inspector.",
                file: file, line: node.line)
        }
        self.name = name
        destinationEntity = destination
        inverseName = node["inverseName"]
        inverseEntity = node["inverseEntity"]
        isToMany = node.flag("toMany")
        isOrdered = node.flag("ordered")
        isOptional = node.flag("optional")
        isTransient = node.flag("transient")
        renamingIdentifier = node["elementID"]
        deletionRule = node["deletionRule"]
        line = node.line
        func count(_ key: String) throws(XcodeModelError) -> Int? {
            guard let text = node[key] else { return nil }
            guard let n = Int(text), n >= 0 else {
                throw XcodeModelError(.invalidValue, "Relationship \(entity).\(name) has \(key)=\"\(text)\", which is not a count.", file: file, line: node.line)
            }
            return n
        }
        minCount = try count("minCount") ?? 0
        // Core Data's maxCount: 1 for to-one; for to-many, 0 means no limit.
        maxCount = isToMany ? (try count("maxCount") ?? 0) : 1
        userInfo = try XcodeUserInfo.parse(node.child(named: "userInfo"), owner: "\(entity).\(name)", file: file)
    }
}
