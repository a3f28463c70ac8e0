import CoreData
import WatchConnectivity

// main-context-off-main-queue, the bug: WatchConnectivity calls a WCSessionDelegate's
// methods on its delegate queue, off the main queue (Apple's WCSession.h, above the
// protocol: "All delegate methods will be called on the same queue. The delegate queue
// is a non-main serial queue."), and a method called only from one runs there too.
final class WatchRelay: NSObject, WCSessionDelegate {
    let container: NSPersistentContainer

    init(container: NSPersistentContainer) {
        self.container = container
        super.init()
    }

    func session(_ session: WCSession, didReceiveMessage message: [String: Any]) {
        let request = NSFetchRequest<Download>(entityName: "Download")
        let count = (try? container.viewContext.count(for: request)) ?? 0 // expect: main-context-off-main-queue
        session.sendMessage(["count": count], replyHandler: nil)
    }

    func session(_ session: WCSession, didReceiveUserInfo userInfo: [String: Any]) {
        recordTransfer(bytes: userInfo["bytes"] as? Int64 ?? 0)
    }

    func recordTransfer(bytes: Int64) {
        let download = Download(context: container.viewContext) // expect: main-context-off-main-queue
        download.bytes = bytes
    }

    func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {}
    func sessionDidBecomeInactive(_ session: WCSession) {}
    func sessionDidDeactivate(_ session: WCSession) {}
}

// The correct twin: the same work inside viewContext.perform { }, which runs it on the
// main queue.
final class WatchRelayFixed: NSObject, WCSessionDelegate {
    let container: NSPersistentContainer

    init(container: NSPersistentContainer) {
        self.container = container
        super.init()
    }

    func session(_ session: WCSession, didReceiveMessage message: [String: Any]) {
        let viewContext = container.viewContext
        viewContext.perform {
            let request = NSFetchRequest<Download>(entityName: "Download")
            let count = (try? viewContext.count(for: request)) ?? 0
            session.sendMessage(["count": count], replyHandler: nil)
        }
    }

    func session(_ session: WCSession, didReceiveUserInfo userInfo: [String: Any]) {
        let bytes = userInfo["bytes"] as? Int64 ?? 0
        container.viewContext.perform {
            self.recordTransferFixed(bytes: bytes)
        }
    }

    func recordTransferFixed(bytes: Int64) {
        let download = Download(context: container.viewContext)
        download.bytes = bytes
    }

    func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {}
    func sessionDidBecomeInactive(_ session: WCSession) {}
    func sessionDidDeactivate(_ session: WCSession) {}
}

// Silent: a method that takes a WCSession in a type that is not the session's delegate
// is no callback of WatchConnectivity: where it runs is its callers'.
final class WatchLog {
    let container: NSPersistentContainer

    init(container: NSPersistentContainer) {
        self.container = container
    }

    func session(_ session: WCSession, logged line: String) {
        let request = NSFetchRequest<Download>(entityName: "Download")
        _ = try? container.viewContext.count(for: request)
    }
}
