public import ConcurrencyDebug

/// A message inbox confined to one queue, as a managed object is confined to its context.
public final class Inbox: Sendable {
    public let owner: QueueIdentity
    private let messages: QueueConfined<[String]>

    public init(owner: QueueIdentity) {
        self.owner = owner
        self.messages = QueueConfined([], owner: owner, name: "inbox.messages")
    }

    public func post(_ message: String) {
        messages.value.append(message)
    }

    public var count: Int {
        messages.value.count  // OFFENDING-ACCESS
    }
}
