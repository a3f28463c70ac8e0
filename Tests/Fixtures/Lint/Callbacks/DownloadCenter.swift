import CoreData
import Foundation

// Callbacks whose queue is known: a session's completion handlers run on its delegate
// queue (a serial queue of its own unless delegateQueue is .main); a NotificationCenter
// observer on the queue it names; an OperationQueue's operations on that queue;
// loadPersistentStores' completion on the calling thread.
final class DownloadCenter {
    let stack: DownloadStack
    let session = URLSession(configuration: .default)
    let mainSession = URLSession(configuration: .default, delegate: nil, delegateQueue: .main)
    let importQueue = OperationQueue()

    init(stack: DownloadStack) {
        self.stack = stack
    }

    // main-context-off-main-queue, the bug: a session made with URLSession(configuration:)
    // calls its completion handlers on its own delegate queue.
    func fetch(_ url: URL) {
        session.dataTask(with: url) { data, _, _ in
            let download = Download(context: self.stack.container.viewContext) // expect: main-context-off-main-queue
            download.bytes = Int64(data?.count ?? 0)
        }.resume()
    }

    // The correct twin: a session whose delegate queue is the main queue.
    func fetchFixed(_ url: URL) {
        mainSession.dataTask(with: url) { data, _, _ in
            let download = Download(context: self.stack.container.viewContext)
            download.bytes = Int64(data?.count ?? 0)
        }.resume()
    }

    // context-without-perform, the bug: an observer on the main queue saves the
    // private sync context straight.
    func observeBackground() {
        NotificationCenter.default.addObserver(forName: .appDidEnterBackground, object: nil, queue: .main) { _ in
            try? self.stack.syncContext.save() // expect: context-without-perform
        }
    }

    // The correct twin.
    func observeBackgroundFixed() {
        NotificationCenter.default.addObserver(forName: .appDidEnterBackground, object: nil, queue: .main) { _ in
            let context = self.stack.syncContext
            context.perform { try? context.save() }
        }
    }

    // An observer with queue: nil runs on the posting thread, which the linter cannot
    // tell for a notification it does not know: silent.
    func observeAnywhere() {
        NotificationCenter.default.addObserver(forName: .appDidEnterBackground, object: nil, queue: nil) { _ in
            try? self.stack.container.viewContext.save()
        }
    }

    // main-context-off-main-queue, the bug: an operation of an OperationQueue the app
    // made runs off the main queue.
    func importLater() {
        importQueue.addOperation {
            try? self.stack.container.viewContext.save() // expect: main-context-off-main-queue
        }
    }

    // The correct twin.
    func importLaterFixed() {
        importQueue.addOperation {
            let viewContext = self.stack.container.viewContext
            viewContext.perform { try? viewContext.save() }
        }
    }

    // main-context-off-main-queue, the bug: loadPersistentStores calls its completion
    // on the calling thread, here a global queue.
    func loadInBackground() {
        DispatchQueue.global().async {
            self.stack.container.loadPersistentStores { _, _ in
                _ = try? self.stack.container.viewContext.count(for: NSFetchRequest<Download>(entityName: "Download")) // expect: main-context-off-main-queue
            }
        }
    }

    // The correct twin: loaded from the main queue.
    func loadOnMain() {
        DispatchQueue.main.async {
            self.stack.container.loadPersistentStores { _, _ in
                _ = try? self.stack.container.viewContext.count(for: NSFetchRequest<Download>(entityName: "Download"))
            }
        }
    }
}

extension Notification.Name {
    static let appDidEnterBackground = Notification.Name("appDidEnterBackground")
}
