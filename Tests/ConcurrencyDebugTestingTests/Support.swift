import ConcurrencyDebug
import Foundation

/// A value bound to a dispatch queue of its own, for making violations on purpose:
/// code in `queue.sync { }` may touch it, any other code is reported.
func makeConfined(_ name: String = "helper.value") -> (QueueConfined<Int>, DispatchQueue) {
    let queue = DispatchQueue(label: "helper.owner")
    return (QueueConfined(0, queue: queue, name: name + "-" + UUID().uuidString.prefix(8)), queue)
}

/// Reads `value` from another queue: one wrong-queue violation, made on this thread
/// (DispatchQueue.sync runs the block here).
@inline(never)
func touchFromAnotherQueue(_ value: QueueConfined<Int>) {
    DispatchQueue(label: "helper.offender").sync {
        _ = value.value  // VIOLATING-ACCESS
    }
}

/// True when the process-wide record holds a violation of the value named `name`.
func processRecorded(_ name: String) -> Bool {
    ConcurrencyDebug.recordedViolations.contains { $0.access.objectID == name }
}
