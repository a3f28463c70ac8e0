import Foundation

/// Why an Xcode model could not be read: what is wrong, in which file, at which line
/// (for the `contents` file), and what to do. `NSManagedObjectModel(contentsOf:)`
/// prints it and returns nil, as Core Data logs and returns nil; the throwing loader
/// (`XcodeModelReader.load(from:)`) hands it over; the port says it as its own error.
package struct XcodeModelError: Error, CustomStringConvertible, Sendable {
    package enum Kind: String, Sendable, Hashable {
        /// No model at the URL, or a folder that holds no `.xcdatamodel`.
        case notFound = "not-found"
        /// A `.xcdatamodeld` with several versions and no `.xccurrentversion` naming one
        /// (or naming one that is not there).
        case noCurrentVersion = "no-current-version"
        /// The `contents` file is not well-formed XML, or its root is not `<model>`.
        case malformedXML = "malformed-xml"
        /// An element lacks an attribute it needs (an entity's `name`, …).
        case missingAttribute = "missing-attribute"
        /// An attribute's `attributeType` is not one Core Data has.
        case unknownAttributeType = "unknown-attribute-type"
        /// A value that does not parse: a default value, a delete rule, a count.
        case invalidValue = "invalid-value"
        /// A relationship names a destination entity (or a parent entity) the model lacks.
        case missingEntity = "missing-entity"
        /// Two entities, or two properties of one entity, share a name.
        case duplicateName = "duplicate-name"
    }

    package let kind: Kind
    package let message: String
    /// The file at fault (the `contents` file, or the model folder).
    package let file: String
    /// The 1-based line in `file`, for errors in the `contents` file.
    package let line: Int?

    package init(_ kind: Kind, _ message: String, file: String, line: Int? = nil) {
        self.kind = kind
        self.message = message
        self.file = file
        self.line = line
    }

    /// `file:line: message`, as a compiler says it.
    package var description: String {
        if let line { return "\(file):\(line): \(message)" }
        return "\(file): \(message)"
    }
}
