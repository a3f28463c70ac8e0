/// A `<fetchedProperty>` element of an entity: its name and the fetch request Xcode
/// keeps inside it (`<fetchRequest entity="…" predicateString="…"/>`), whose predicate may
/// name `$FETCH_SOURCE` (the object the property is read on) and `$FETCHED_PROPERTY`.
package struct XcodeFetchedProperty: Sendable {
    package var name: String
    package var isOptional: Bool
    /// The entity the request fetches.
    package var destinationEntity: String
    /// The request's predicate as Xcode writes it; nil fetches every object of the entity.
    package var predicateString: String?
    package var userInfo: [String: String]
    package var line: Int

    package init(_ node: XMLNode, entity: String, file: String) throws(XcodeModelError) {
        guard let name = node["name"], !name.isEmpty else {
            throw XcodeModelError(.missingAttribute, "A fetched property of entity \(entity) has no `name`.", file: file, line: node.line)
        }
        guard let request = node.child(named: "fetchRequest"), let destination = request["entity"], !destination.isEmpty else {
            throw XcodeModelError(
                .missingEntity,
                "Fetched property \(entity).\(name) has no fetch request with an entity (`<fetchRequest entity=…>`). Choose its destination in Xcode's Data Model inspector.",
                file: file, line: node.line)
        }
        self.name = name
        isOptional = node.flag("optional")
        destinationEntity = destination
        predicateString = request["predicateString"].flatMap { $0.isEmpty ? nil : $0 }
        userInfo = try XcodeUserInfo.parse(node.child(named: "userInfo"), owner: "fetched property \(entity).\(name)", file: file)
        line = node.line
    }
}
