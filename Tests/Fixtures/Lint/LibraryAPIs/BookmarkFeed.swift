import Combine
import CoreData

/// Combine: the closures after `receive(on:)` run on its scheduler.
final class BookmarkFeed {
    let container: NSPersistentContainer
    var cancellables: Set<AnyCancellable> = []

    init(container: NSPersistentContainer) {
        self.container = container
    }

    // object-across-queues, the bug: objects of a private context, read where the
    // publisher delivers, on the main queue.
    func watch(_ updates: AnyPublisher<Void, Never>) {
        let context = container.newBackgroundContext()
        context.perform {
            let bookmarks = (try? context.fetch(Bookmark.fetchRequest())) ?? []
            updates
                .receive(on: DispatchQueue.main)
                .sink { _ in
                    print(bookmarks.first?.url ?? "") // expect: object-across-queues
                }
                .store(in: &self.cancellables)
        }
    }

    // main-context-off-main-queue, the bug: the view context saved where the publisher
    // delivers, on a global queue.
    func saveOnUpdates(_ updates: AnyPublisher<Void, Never>) {
        updates
            .receive(on: DispatchQueue.global())
            .map { _ in true }
            .sink { _ in
                try? self.container.viewContext.save() // expect: main-context-off-main-queue
            }
            .store(in: &cancellables)
    }

    // The correct twin: delivered on the main run loop.
    func saveOnUpdatesFixed(_ updates: AnyPublisher<Void, Never>) {
        updates
            .receive(on: RunLoop.main)
            .sink { _ in
                try? self.container.viewContext.save()
            }
            .store(in: &cancellables)
    }
}
