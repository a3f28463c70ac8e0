// The fixed twin of ../bug/NotificationService.swift.txt (mastodon/mastodon-ios
// 9768721): the stale rows are fetched and deleted inside performChanges { }, on the
// background context's queue.
import Combine
import CoreData
import Foundation

final class StoredNotification: NSManagedObject {
    @NSManaged var account: String
    @NSManaged var remoteID: String
}

protocol NotificationAPI {
    func notifications(account: String, maxID: String?) -> AnyPublisher<[String], Error>
}

extension NSManagedObjectContext {
    /// Runs `changes` on the context's queue, then saves.
    func performChanges(_ changes: @escaping () -> Void) -> AnyPublisher<Void, Error> {
        Future { promise in
            self.perform {
                changes()
                do {
                    try self.save()
                    promise(.success(()))
                } catch {
                    promise(.failure(error))
                }
            }
        }
        .eraseToAnyPublisher()
    }
}

final class NotificationService {
    let api: NotificationAPI
    let backgroundContext: NSManagedObjectContext

    init(container: NSPersistentContainer, api: NotificationAPI) {
        self.api = api
        backgroundContext = container.newBackgroundContext()
    }

    func refresh(account: String, maxID: String?) -> AnyPublisher<Void, Error> {
        api.notifications(account: account, maxID: maxID)
            .flatMap { ids -> AnyPublisher<Void, Error> in
                self.backgroundContext.performChanges {
                    if maxID == nil {
                        let request = NSFetchRequest<StoredNotification>(entityName: "StoredNotification")
                        request.predicate = NSPredicate(format: "account == %@", account)
                        let stale = (try? self.backgroundContext.fetch(request)) ?? []
                        stale.forEach(self.backgroundContext.delete)
                    }
                    for id in ids {
                        let row = StoredNotification(context: self.backgroundContext)
                        row.account = account
                        row.remoteID = id
                    }
                }
            }
            .eraseToAnyPublisher()
    }
}
