public import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// What the port needs of an Xcode model (`.xcdatamodeld`, `.xcdatamodel` or its
/// `contents` file): each entity's name, class, code generation, parent, attributes and
/// relationships, read from the XML as Xcode saves it. Foundation only: the port does
/// not link the runtime (CoreData reads the whole model for `NSManagedObjectModel`).
public struct ModelSummary: Sendable, Equatable {
    public struct Attribute: Sendable, Equatable {
        public var name: String
        /// Xcode's type name: `String`, `Integer 16`, `Date`, `Transformable`…
        public var type: String
        public var isOptional: Bool
        public var usesScalarValueType: Bool
        /// `customClassName` of a transformable attribute.
        public var customClassName: String?
    }

    public struct Relationship: Sendable, Equatable {
        public var name: String
        public var destination: String
        public var isToMany: Bool
        public var isOrdered: Bool
    }

    public struct Entity: Sendable, Equatable {
        public var name: String
        /// `representedClassName` as written (`Module.Class`, `.Class` or `Class`); nil: NSManagedObject.
        public var representedClassName: String?
        /// `class`, `category`, or nil (Manual/None).
        public var codeGenerationType: String?
        public var parentEntity: String?
        public var attributes: [Attribute] = []
        public var relationships: [Relationship] = []

        /// The Swift class name: the last component of `representedClassName`.
        public var className: String {
            guard let raw = representedClassName, !raw.isEmpty else { return "NSManagedObject" }
            return raw.split(separator: ".").last.map(String.init) ?? raw
        }
    }

    /// The model's name (`SurfJournalModel` for `SurfJournalModel.xcdatamodeld`).
    public var name: String
    public var entities: [Entity]

    init(name: String, entities: [Entity]) {
        self.name = name
        self.entities = entities
    }

    /// Reads the model at `url`.
    public init(contentsOf url: URL) throws(PortError) {
        let contents = try Self.contentsFile(of: url)
        guard let data = FileManager.default.contents(atPath: contents.path) else {
            throw PortError(.unreadable, "the model's contents file cannot be read; check the path and its permissions", path: contents.path)
        }
        let parser = XMLParser(data: data)
        let reader = Reader()
        parser.delegate = reader
        guard parser.parse(), reader.sawModel else {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "it has no <model> root element"
            throw PortError(.badModel, "not a Core Data model's contents file (\(reason)); point --model at the .xcdatamodeld Xcode saved", path: contents.path, line: parser.lineNumber)
        }
        if let problem = reader.problem { throw PortError(.badModel, problem.message, path: contents.path, line: problem.line) }
        name = Self.modelName(url)
        entities = reader.entities
    }

    static func modelName(_ url: URL) -> String {
        var u = url.standardizedFileURL
        if u.lastPathComponent == "contents" { u.deleteLastPathComponent() }
        if u.pathExtension == "xcdatamodel", u.deletingLastPathComponent().pathExtension == "xcdatamodeld" { u.deleteLastPathComponent() }
        return u.deletingPathExtension().lastPathComponent
    }

    /// The `contents` file of a model: the current version of a `.xcdatamodeld`
    /// (`.xccurrentversion`'s `_XCCurrentVersionName`, or its only version).
    static func contentsFile(of url: URL) throws(PortError) -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw PortError(.unreadable, "there is no model here; point --model at a .xcdatamodeld or .xcdatamodel folder as Xcode saves it", path: url.path)
        }
        guard isDirectory.boolValue else { return url }
        if url.pathExtension != "xcdatamodeld" { return url.appendingPathComponent("contents") }
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).filter { $0.hasSuffix(".xcdatamodel") }.sorted()
        if let data = FileManager.default.contents(atPath: url.appendingPathComponent(".xccurrentversion").path),
            let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
            let current = plist["_XCCurrentVersionName"] as? String, versions.contains(current)
        {
            return url.appendingPathComponent(current).appendingPathComponent("contents")
        }
        guard versions.count == 1 else {
            throw PortError(
                .badModel,
                versions.isEmpty
                    ? "the .xcdatamodeld holds no .xcdatamodel version"
                    : "the model has several versions (\(versions.joined(separator: ", "))) and no .xccurrentversion naming the current one; choose it in Xcode (Model Version)",
                path: url.path)
        }
        return url.appendingPathComponent(versions[0]).appendingPathComponent("contents")
    }

    /// XMLParser's delegate: builds the entities as their elements go by.
    ///
    /// Not Sendable: it lives for one `parse` on the calling thread.
    private final class Reader: NSObject, XMLParserDelegate {
        var entities: [Entity] = []
        var sawModel = false
        var problem: (message: String, line: Int)?

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes a: [String: String] = [:]) {
            func flag(_ key: String) -> Bool { ["yes", "true", "1"].contains(a[key]?.lowercased() ?? "") }
            switch name {
            case "model":
                sawModel = true
            case "entity":
                guard let entityName = a["name"], !entityName.isEmpty else {
                    problem = problem ?? ("an entity has no name; name every entity in Xcode's model editor", parser.lineNumber)
                    return
                }
                entities.append(Entity(name: entityName, representedClassName: a["representedClassName"], codeGenerationType: a["codeGenerationType"], parentEntity: a["parentEntity"]))
            case "attribute" where !entities.isEmpty:
                guard let attributeName = a["name"], let type = a["attributeType"] else {
                    problem = problem ?? ("an attribute of \(entities[entities.count - 1].name) has no name or attributeType", parser.lineNumber)
                    return
                }
                entities[entities.count - 1].attributes.append(
                    Attribute(name: attributeName, type: type, isOptional: flag("optional"), usesScalarValueType: flag("usesScalarValueType"), customClassName: a["customClassName"]))
            case "relationship" where !entities.isEmpty:
                guard let relationshipName = a["name"], let destination = a["destinationEntity"] else {
                    problem = problem ?? ("a relationship of \(entities[entities.count - 1].name) has no name or destinationEntity", parser.lineNumber)
                    return
                }
                entities[entities.count - 1].relationships.append(
                    Relationship(name: relationshipName, destination: destination, isToMany: flag("toMany"), isOrdered: flag("ordered")))
            default:
                break
            }
        }
    }
}
