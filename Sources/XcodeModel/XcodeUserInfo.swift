/// A `<userInfo>` element: `<entry key="…" value="…"/>` pairs, kept as strings, as
/// Core Data's `userInfo` holds them (Xcode's editor writes only strings).
package enum XcodeUserInfo {
    package static func parse(_ node: XMLNode?, owner: String, file: String) throws(XcodeModelError) -> [String: String] {
        guard let node else { return [:] }
        var info: [String: String] = [:]
        for entry in node.children(named: "entry") {
            guard let key = entry["key"] else {
                throw XcodeModelError(.missingAttribute, "A user info entry of \(owner) has no `key`. Give it a key in Xcode's User Info editor.", file: file, line: entry.line)
            }
            info[key] = entry["value"] ?? ""
        }
        return info
    }
}

/// `<uniquenessConstraints>`: each `<uniquenessConstraint>` lists the properties
/// (`<constraint value="…"/>`) whose values together are unique.
package enum XcodeUniquenessConstraints {
    package static func parse(_ node: XMLNode?, entity: String, file: String) throws(XcodeModelError) -> [[String]] {
        guard let node else { return [] }
        var constraints: [[String]] = []
        for constraint in node.children(named: "uniquenessConstraint") {
            var names: [String] = []
            for element in constraint.children(named: "constraint") {
                guard let value = element["value"] else {
                    throw XcodeModelError(.missingAttribute, "A uniqueness constraint of entity \(entity) has a `constraint` with no `value` (the property it names).", file: file, line: element.line)
                }
                names.append(value)
            }
            constraints.append(names)
        }
        return constraints
    }
}

/// A `<fetchIndex name="…">` with its `<fetchIndexElement property="…" type="…"
/// order="…"/>` elements.
package struct XcodeFetchIndex: Sendable {
    package struct Element: Sendable {
        package var property: String
        /// `Binary` (a B-tree index) or `RTree`.
        package var type: String
        package var ascending: Bool
    }
    package var name: String
    package var elements: [Element]

    package init(_ node: XMLNode, entity: String, file: String) throws(XcodeModelError) {
        guard let name = node["name"] else {
            throw XcodeModelError(.missingAttribute, "A fetch index of entity \(entity) has no `name`.", file: file, line: node.line)
        }
        self.name = name
        var elements: [Element] = []
        for e in node.children(named: "fetchIndexElement") {
            guard let property = e["property"] ?? e["expression"] else {
                throw XcodeModelError(.missingAttribute, "Fetch index \(entity).\(name) has an element with no `property`.", file: file, line: e.line)
            }
            elements.append(Element(property: property, type: e["type"] ?? "Binary", ascending: (e["order"] ?? "ascending") != "descending"))
        }
        self.elements = elements
    }
}
