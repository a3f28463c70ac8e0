extension NSAttributeDescription {
    /// Core Data's `NSAttributeDescription.AttributeType` (iOS 15's spelling of
    /// `NSAttributeType`): `attribute.type = .string`. The same types, the same raw values.
    public struct AttributeType: RawRepresentable, Hashable, Sendable {
        public let rawValue: NSAttributeType
        public init(rawValue: NSAttributeType) { self.rawValue = rawValue }

        public static let undefined = AttributeType(rawValue: .undefinedAttributeType)
        public static let integer16 = AttributeType(rawValue: .integer16AttributeType)
        public static let integer32 = AttributeType(rawValue: .integer32AttributeType)
        public static let integer64 = AttributeType(rawValue: .integer64AttributeType)
        public static let decimal = AttributeType(rawValue: .decimalAttributeType)
        public static let double = AttributeType(rawValue: .doubleAttributeType)
        public static let float = AttributeType(rawValue: .floatAttributeType)
        public static let string = AttributeType(rawValue: .stringAttributeType)
        public static let boolean = AttributeType(rawValue: .booleanAttributeType)
        public static let date = AttributeType(rawValue: .dateAttributeType)
        public static let binaryData = AttributeType(rawValue: .binaryDataAttributeType)
        public static let uuid = AttributeType(rawValue: .UUIDAttributeType)
        public static let uri = AttributeType(rawValue: .URIAttributeType)
        public static let transformable = AttributeType(rawValue: .transformableAttributeType)
        public static let objectID = AttributeType(rawValue: .objectIDAttributeType)
        public static let composite = AttributeType(rawValue: .compositeAttributeType)
    }

    /// Core Data's `type`: `attributeType` under its newer name.
    public var type: AttributeType {
        get { AttributeType(rawValue: attributeType) }
        set { attributeType = newValue.rawValue }
    }
}
