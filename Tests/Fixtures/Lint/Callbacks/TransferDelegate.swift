import CoreData
import Foundation

// main-context-off-main-queue, the bug: the session's delegate methods run on its own
// delegate queue (delegateQueue: nil), off the main queue.
final class TransferDelegate: NSObject, URLSessionDataDelegate {
    let container: NSPersistentContainer
    var session: URLSession!

    init(container: NSPersistentContainer) {
        self.container = container
        super.init()
        session = URLSession(configuration: .default, delegate: self, delegateQueue: nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let download = Download(context: container.viewContext) // expect: main-context-off-main-queue
        download.bytes = Int64(data.count)
    }
}

// The correct twin: a session whose delegate queue is the main queue.
final class MainTransferDelegate: NSObject, URLSessionDataDelegate {
    let container: NSPersistentContainer
    var session: URLSession!

    init(container: NSPersistentContainer) {
        self.container = container
        super.init()
        session = URLSession(configuration: .default, delegate: self, delegateQueue: .main)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let download = Download(context: container.viewContext)
        download.bytes = Int64(data.count)
    }
}
