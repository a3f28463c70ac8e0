import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reads an Xcode mapping model as it is on disk (no `mapc`): a `Name.xcmappingmodel`
/// folder holding `xcmapping.xml`, which is a Core Data XML store of Xcode's own editing
/// objects: one `XDDEVMAPPINGMODEL` (the two models' paths, `sourcemodelpath` and
/// `destinationmodelpath`, and its `entitymappings`), an `XDDEVENTITYMAPPING` for each
/// entity mapping (`name`, `sourcename`, `destinationname`, `mappingnumber`,
/// `migrationpolicyclassname`, `sourcefilterpredicatestring`, `attributemappings`,
/// `relationshipmappings`), and an `XDDEVATTRIBUTEMAPPING` or `XDDEVRELATIONSHIPMAPPING`
/// for each property mapping (`name`, and either `autogenerateexpression` or the
/// expression the author wrote, archived in `valueexpressiondata`). Each object is
/// `<object type="…" id="…">` with `<attribute name="…" type="…">value</attribute>` and
/// `<relationship name="…" idrefs="id id …">` children.
enum XcodeMappingModelReader {
    struct XMLObject {
        var kind: String
        var attributes: [String: String] = [:]
        var relationships: [String: [String]] = [:]
        func string(_ name: String) -> String? { attributes[name].flatMap { $0.isEmpty ? nil : $0 } }
        func references(_ name: String) -> [String] { relationships[name] ?? [] }
    }

    struct Read {
        var entityMappings: [NSEntityMapping]
        var sourceModelPath: String?
        var destinationModelPath: String?
    }

    /// The mapping model at `url`; with the two models given, its entity mappings are
    /// checked against them (version hashes, mapping types, default expressions).
    static func read(_ url: URL, sourceModel: NSManagedObjectModel?, destinationModel: NSManagedObjectModel?) throws -> Read {
        let file = url.pathExtension == "xcmappingmodel" ? url.appendingPathComponent("xcmapping.xml") : url
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw MigrationFailure(NSMigrationMissingMappingModelError, "There is no mapping model at \(file.path): a .xcmappingmodel folder holds an xcmapping.xml. Check the path and that the mapping model is in the target's resources.")
        }
        let objects = try parse(data, file: file.path)
        guard let root = objects.values.first(where: { $0.kind == "XDDEVMAPPINGMODEL" }) else {
            throw MigrationFailure(NSMigrationMissingMappingModelError, "\(file.path) has no XDDEVMAPPINGMODEL object, so it is not a mapping model Xcode saved.")
        }
        let entities = root.references("entitymappings").compactMap { objects[$0] }.sorted {
            (Int($0.string("mappingnumber") ?? "") ?? 0) < (Int($1.string("mappingnumber") ?? "") ?? 0)
        }
        let mappings = try entities.map { try entityMapping($0, objects: objects, file: file.path) }
        if let sourceModel, let destinationModel { complete(mappings, from: sourceModel, to: destinationModel) }
        return Read(entityMappings: mappings, sourceModelPath: root.string("sourcemodelpath"), destinationModelPath: root.string("destinationmodelpath"))
    }

    private static func entityMapping(_ object: XMLObject, objects: [String: XMLObject], file: String) throws -> NSEntityMapping {
        let m = NSEntityMapping()
        m.sourceEntityName = object.string("sourcename")
        m.destinationEntityName = object.string("destinationname")
        m.name = object.string("name") ?? "\(m.sourceEntityName ?? "")To\(m.destinationEntityName ?? "")"
        m.entityMigrationPolicyClassName = object.string("migrationpolicyclassname")
        if let predicate = object.string("sourcefilterpredicatestring"), predicate != "TRUEPREDICATE" {
            m.sourceFilterPredicate = NSPredicate(format: predicate)
        }
        switch object.string("mappingtypename")?.lowercased() {
        case "add": m.mappingType = .addEntityMappingType
        case "remove": m.mappingType = .removeEntityMappingType
        case "copy": m.mappingType = .copyEntityMappingType
        case "transform": m.mappingType = .transformEntityMappingType
        case "custom": m.mappingType = .customEntityMappingType
        default: m.mappingType = .undefinedEntityMappingType
        }
        func properties(_ key: String) throws -> [NSPropertyMapping] {
            try object.references(key).compactMap { objects[$0] }.map { p in
                let mapping = NSPropertyMapping()
                mapping.name = p.string("name")
                if p.string("autogenerateexpression") != "1", let archived = p.string("valueexpressiondata") {
                    guard let data = Data(base64Encoded: archived, options: .ignoreUnknownCharacters) else {
                        throw MigrationFailure(NSMigrationError, "\(file): the value expression of \(m.name ?? "").\(mapping.name ?? "") is not base64 data.")
                    }
                    mapping.valueExpression = try ArchivedExpression.decode(data, what: "\(file): \(m.name ?? "").\(mapping.name ?? "")")
                }
                // Marked for the default expression, filled in once the models are known:
                // by the property's own flag, or, when it has none, by its entity mapping's
                // for an attribute whose type stays (CoreDataMigrationRevised-Example's Post
                // mapping marks only the entity, and its suite expects the attributes
                // carried over; a re-typed one is left to the entity's policy).
                if mapping.valueExpression == nil, p.string("autogenerateexpression") == "1" {
                    mapping.userInfo = [autogenerated: true]
                } else if mapping.valueExpression == nil, p.string("autogenerateexpression") == nil, object.string("autogenerateexpression") == "1" {
                    mapping.userInfo = [autogenerated: true, sameTypeOnly: true]
                }
                return mapping
            }
        }
        m.attributeMappings = try properties("attributemappings")
        m.relationshipMappings = try properties("relationshipmappings")
        return m
    }

    static let autogenerated = "ctxdebug.autogenerated"
    static let sameTypeOnly = "ctxdebug.autogenerated.sameTypeOnly"

    /// Mapping types and the expressions Xcode generates (`$source.name`, and the
    /// destination instances of a relationship's objects), from the two models.
    /// The model version a mapping model records (`ExampleModel/ExampleModel.xcdatamodeld/Version 1.xcdatamodel`,
    /// a path in the Xcode project), where a bundle has it beside the mapping: the path's
    /// longest tail that exists in the mapping's folder. Nil when none does.
    static func model(recordedAt recorded: String?, besideMappingAt url: URL) -> NSManagedObjectModel? {
        guard let recorded, !recorded.isEmpty else { return nil }
        let folder = (url.pathExtension == "xcmappingmodel" ? url : url.deletingLastPathComponent()).deletingLastPathComponent()
        let components = (recorded.removingPercentEncoding ?? recorded).split(separator: "/").map(String.init)
        for start in components.indices {
            let candidate = components[start...].reduce(folder) { $0.appendingPathComponent($1) }
            if FileManager.default.fileExists(atPath: candidate.path) { return try? XcodeModelReader.load(from: candidate) }
        }
        return nil
    }

    static func complete(_ mappings: [NSEntityMapping], from source: NSManagedObjectModel, to destination: NSManagedObjectModel) {
        for m in mappings {
            let from = m.sourceEntityName.flatMap { source.entitiesByName[$0] }
            let to = m.destinationEntityName.flatMap { destination.entitiesByName[$0] }
            if m.sourceEntityVersionHash == nil { m.sourceEntityVersionHash = from?.versionHash }
            if m.destinationEntityVersionHash == nil { m.destinationEntityVersionHash = to?.versionHash }
            if m.mappingType == .undefinedEntityMappingType {
                m.mappingType = from == nil ? .addEntityMappingType : to == nil ? .removeEntityMappingType : from!.versionHash == to!.versionHash ? .copyEntityMappingType : .transformEntityMappingType
            }
            guard let from else { continue }
            let toProperties = to?.propertiesByName ?? [:]
            for p in m.attributeMappings ?? [] where p.userInfo?[autogenerated] != nil {
                if let d = toProperties[p.name ?? ""], let a = InferredMapping.sourceProperty(d, in: from.attributesByName),
                    p.userInfo?[sameTypeOnly] == nil || (d as? NSAttributeDescription)?.attributeType == a.attributeType
                {
                    p.valueExpression = NSExpression(forKeyPath: "$source.\(a.name)")
                }
                p.userInfo = nil
            }
            for p in m.relationshipMappings ?? [] where p.userInfo?[autogenerated] != nil {
                if let d = toProperties[p.name ?? ""], let name = InferredMapping.sourceProperty(d, in: from.relationshipsByName)?.name {
                    p.valueExpression = NSExpression(
                        forFunction: NSExpression(forVariable: NSMigrationManagerKey), selectorName: "destinationInstancesForSourceRelationshipNamed:sourceInstances:",
                        arguments: [NSExpression(forConstantValue: name), NSExpression(forKeyPath: "$source.\(name)")])
                }
                p.userInfo = nil
            }
        }
    }

    /// The mapping model in `bundles` (or the program's resources) whose entity mappings
    /// fit the two models: each named source entity in the source model and destination
    /// entity in the destination model, and the source model's entities all mapped.
    static func find(in bundles: [Bundle]?, from source: NSManagedObjectModel, to destination: NSManagedObjectModel) -> NSMappingModel? {
        let directories = bundles.map { $0.flatMap { b in [b.resourceURL, b.bundleURL].compactMap { $0 } } } ?? XcodeModelLocator.searchDirectories()
        for url in mappingModelURLs(in: directories) {
            guard let read = try? read(url, sourceModel: nil, destinationModel: nil), fits(read, source, destination) else { continue }
            complete(read.entityMappings, from: source, to: destination)
            let model = NSMappingModel()
            model.entityMappings = read.entityMappings
            return model
        }
        return nil
    }

    static func fits(_ read: Read, _ source: NSManagedObjectModel, _ destination: NSManagedObjectModel) -> Bool {
        // The versions the mapping was made between, when both are known: a mapping from
        // Version 1 to Version 2 of the same entities does not map Version 2 to Version 1
        // (JSQCoreDataKit's search of every pair would go round in circles).
        guard ModelVersions.names(read.sourceModelPath, source), ModelVersions.names(read.destinationModelPath, destination) else { return false }
        let sources = Set(source.entities.compactMap(\.name)), destinations = Set(destination.entities.compactMap(\.name))
        var mappedSources: Set<String> = [], mappedDestinations: Set<String> = []
        for m in read.entityMappings {
            if let s = m.sourceEntityName { guard sources.contains(s) else { return false }; mappedSources.insert(s) }
            if let d = m.destinationEntityName { guard destinations.contains(d) else { return false }; mappedDestinations.insert(d) }
        }
        return mappedSources == sources && mappedDestinations == destinations
    }

    /// Every `.xcmappingmodel` in `directories`, in the resource bundles there, and one
    /// level below those: where models are looked for (XcodeModelLocator), not every
    /// folder under a directory (a program's folder may hold a whole build).
    static func mappingModelURLs(in directories: [URL]) -> [URL] {
        var found: [URL] = []
        var seen: Set<String> = []
        for root in XcodeModelLocator.roots(directories) {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).sorted()
            for name in names where name.hasSuffix(".xcmappingmodel") {
                let url = root.appendingPathComponent(name)
                if seen.insert(url.standardizedFileURL.path).inserted { found.append(url) }
            }
        }
        return found
    }

    static func parse(_ data: Data, file: String) throws -> [String: XMLObject] {
        let delegate = MappingXMLDelegate()
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        guard parser.parse(), delegate.failure == nil else {
            throw MigrationFailure(NSMigrationError, "\(file) is not well-formed XML (line \(parser.lineNumber)): \(delegate.failure ?? parser.parserError?.localizedDescription ?? "unknown error").")
        }
        return delegate.objects
    }
}

/// Collects `<object>` elements with their attributes' texts and relationships' idrefs.
private final class MappingXMLDelegate: NSObject, XMLParserDelegate {
    var objects: [String: XcodeMappingModelReader.XMLObject] = [:]
    var failure: String?
    private var current: (id: String, object: XcodeMappingModelReader.XMLObject)?
    private var attribute: String?
    private var text = ""

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        switch name {
        case "object":
            current = (attributes["id"] ?? "", .init(kind: (attributes["type"] ?? "").uppercased()))
        case "attribute":
            attribute = attributes["name"]?.lowercased()
            text = ""
        case "relationship":
            if let key = attributes["name"]?.lowercased(), let refs = attributes["idrefs"] {
                current?.object.relationships[key] = refs.split(separator: " ").map(String.init)
            }
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if attribute != nil { text += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "attribute", let key = attribute {
            current?.object.attributes[key] = text.trimmingCharacters(in: .whitespacesAndNewlines)
            attribute = nil
        } else if name == "object", let done = current {
            objects[done.id] = done.object
            current = nil
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        failure = parseError.localizedDescription
    }
}
