/// A `<relationship>` element of an entity.
struct XcodeRelationship {
    var name: String
    var destinationEntity: String
    var inverseName: String?
    var inverseEntity: String?
    var isToMany: Bool
    var isOrdered: Bool
    var isOptional: Bool
    var isTransient: Bool
    var deleteRule: NSDeleteRule
    var minCount: Int
    /// 0 for no limit; 1 for a to-one relationship.
    var maxCount: Int
    var renamingIdentifier: String?
    var userInfo: [String: String]
    var line: Int

    /// Xcode's names of the delete rules (`deletionRule="Cascade"`).
    static let deleteRules: [String: NSDeleteRule] = [
        "Nullify": .nullifyDeleteRule, "Cascade": .cascadeDeleteRule, "Deny": .denyDeleteRule, "No Action": .noActionDeleteRule,
    ]

    init(_ node: XMLNode, entity: String, file: String) throws(XcodeModelError) {
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
        line = node.line
        if let rule = node["deletionRule"] {
            guard let parsed = Self.deleteRules[rule] else {
                throw XcodeModelError(
                    .invalidValue, "Relationship \(entity).\(name) has the delete rule '\(rule)'. Use one of: Nullify, Cascade, Deny, No Action.", file: file, line: node.line)
            }
            deleteRule = parsed
        } else {
            deleteRule = .nullifyDeleteRule
        }
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
