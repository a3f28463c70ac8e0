public import Foundation
import XcodeModel

/// What the port needs of an Xcode model (`.xcdatamodeld`, `.xcdatamodel` or its
/// `contents` file): each entity's name, class, code generation, parent, attributes and
/// relationships, as XcodeModel's reader reads them (Foundation only: the port does not
/// link the runtime; CoreData builds its `NSManagedObjectModel` from the same reading).
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

    /// Reads the model at `url` with XcodeModel's reader, the one CoreData's
    /// `NSManagedObjectModel` is built from.
    public init(contentsOf url: URL) throws(PortError) {
        let contents: XcodeModelContents
        do {
            contents = try XcodeModelFile.read(url).contents
        } catch {
            throw Self.portError(error)
        }
        name = XcodeModelFile.modelName(url)
        entities = contents.entities.map { entity in
            Entity(
                name: entity.name, representedClassName: entity.representedClassName, codeGenerationType: entity.codeGenerationType,
                parentEntity: entity.parentEntity,
                attributes: entity.attributes.map {
                    Attribute(
                        name: $0.name, type: $0.typeName, isOptional: $0.isOptional, usesScalarValueType: $0.usesScalarValueType,
                        customClassName: $0.customClassName)
                },
                relationships: entity.relationships.map {
                    Relationship(name: $0.name, destination: $0.destinationEntity, isToMany: $0.isToMany, isOrdered: $0.isOrdered)
                })
        }
    }

    /// The reader's error as the port's: what is wrong, where, and what to do.
    static func portError(_ error: XcodeModelError) -> PortError {
        switch error.kind {
        case .notFound:
            return PortError(.unreadable, error.message + " (--model)", path: error.file, line: error.line)
        case .malformedXML:
            return PortError(
                .badModel, "not a Core Data model's contents file: \(error.message) Point --model at the .xcdatamodeld Xcode saved.", path: error.file,
                line: error.line)
        default:
            return PortError(.badModel, error.message, path: error.file, line: error.line)
        }
    }
}
