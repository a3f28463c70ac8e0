public import ConcurrencyDebug
public import Dispatch

/// A message inbox confined to one queue, as a managed object is confined to its context.
public final class Inbox: Sendable {
    public let queue: DispatchQueue
    private let messages: QueueConfined<[String]>

    public init(queue: DispatchQueue) {
        self.queue = queue
        self.messages = QueueConfined([], queue: queue, name: "inbox.messages")
    }

    public func post(_ message: String) {
        messages.value.append(message)
    }

    public var count: Int {
        messages.value.count  // OFFENDING-ACCESS
    }
}
