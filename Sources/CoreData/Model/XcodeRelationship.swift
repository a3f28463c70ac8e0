import XcodeModel

/// A relationship of an Xcode model in Core Data's values: its `NSDeleteRule`.
extension XcodeRelationship {
    /// Xcode's names of the delete rules (`deletionRule="Cascade"`).
    static let deleteRules: [String: NSDeleteRule] = [
        "Nullify": .nullifyDeleteRule, "Cascade": .cascadeDeleteRule, "Deny": .denyDeleteRule, "No Action": .noActionDeleteRule,
    ]

    /// The delete rule (Nullify when none is written), or why it is not one Core Data has.
    func deleteRule(entity: String, file: String) throws(XcodeModelError) -> NSDeleteRule {
        guard let rule = deletionRule else { return .nullifyDeleteRule }
        guard let parsed = Self.deleteRules[rule] else {
            throw XcodeModelError(
                .invalidValue, "Relationship \(entity).\(name) has the delete rule '\(rule)'. Use one of: Nullify, Cascade, Deny, No Action.", file: file, line: line)
        }
        return parsed
    }
}
