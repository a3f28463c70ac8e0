import CheckSample
import ConcurrencyDebug
import Dispatch
import Foundation
import Testing

@Suite struct InboxTests {
    @Test func postsOnItsOwnQueue() {
        let inbox = Inbox(queue: DispatchQueue(label: "sample.inbox-queue"))
        inbox.queue.sync {
            inbox.post("hello")
            #expect(inbox.count == 1)
        }
    }

    @Test func readsFromAnotherQueue() {
        let inbox = Inbox(queue: DispatchQueue(label: "sample.inbox-queue"))
        inbox.queue.sync { inbox.post("hello") }
        let count = DispatchQueue(label: "sample.worker").sync {
            inbox.count  // SEEDED-VIOLATION
        }
        #expect(count == 1)
    }

    @Test func failsWhenAsked() {
        // Lets the end-to-end test check that a failing command's status wins.
        #expect(ProcessInfo.processInfo.environment["CHECKSAMPLE_FAIL"] == nil, "CHECKSAMPLE_FAIL is set")
    }
}
