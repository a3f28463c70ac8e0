import Dispatch
import Foundation
import ManagedContext

/// Work that waits for background actors with a DispatchGroup.
enum GroupCases {
    static let all: [AppCase] = [
        AppCase(
            name: "group-lost-update",
            summary: "two background contexts each read-increment-save a counter on the global queue; the main queue checks after the group",
            run: { lostUpdate(serial: false) }),
        AppCase(
            name: "group-lost-update-fixed",
            summary: "the same increments on one serial queue",
            run: { lostUpdate(serial: true) }),
    ]

    static func lostUpdate(serial: Bool) -> Never {
        let stack = AppStack()
        stack.seedCounter()
        stack.seedHistory()
        let group = DispatchGroup()
        let queue = serial ? DispatchQueue(label: "sync") : DispatchQueue.global()
        for name in ["a", "b"] {
            queue.async(group: group) {
                let context = stack.newBackgroundContext(name)
                context.performAndWait {
                    // b refreshes its list first, as the screen it serves does.
                    if name == "b" { AppStack.browse(context, times: 12) }
                    AppStack.increment(in: context)
                }
            }
        }
        group.notify(queue: .main) {
            let value = stack.counterValue()
            finish(value == 2, "two increments left the counter at \(value)", stack: stack)
        }
        dispatchMain()
    }
}
