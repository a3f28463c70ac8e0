/// What a report says about an access, in words. Built only on the slow path.
public struct AccessDescription: Sendable, Hashable, Codable {
    public var operation: String
    public var entity: String?
    public var attribute: String?
    public var objectID: String?
    public var contextName: String?
    public var ownerQueueLabel: String
    public var fixHint: String

    public init(
        operation: String, entity: String? = nil, attribute: String? = nil, objectID: String? = nil,
        contextName: String? = nil, ownerQueueLabel: String, fixHint: String
    ) {
        self.operation = operation
        self.entity = entity
        self.attribute = attribute
        self.objectID = objectID
        self.contextName = contextName
        self.ownerQueueLabel = ownerQueueLabel
        self.fixHint = fixHint
    }

    /// "operation of Entity.attribute" (or "operation of attribute", or the operation
    /// alone): how every report names the access.
    public var summary: String {
        if let entity { return operation + " of " + entity + (attribute.map { "." + $0 } ?? "") }
        if let attribute { return operation + " of " + attribute }
        return operation
    }
}
