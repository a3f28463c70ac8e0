// Our driver for tazimete/Swift-MVVM-CoreData-UnitTesting's model layer: its CoreDataClient
// (an SQLite store, a background context with the object-trump merge policy, the view
// context merging from its parent) and LocalDataSource, as its GithubViewModel uses them:
// a page of users synced (a batch delete of their IDs, a batch insert, both merged into
// the main context), synced again with changes, searched through a results controller
// (CONTAINS[c] or ==), and one user's note saved.
import CoreData
import Foundation

func user(_ id: Int, _ name: String, note: String? = nil) -> GithubUser {
    let user = GithubUser()
    user.id = id
    user.username = name
    user.avatarUrl = "https://avatars.example/\(id)"
    user.url = "https://api.example/users/\(name)"
    user.note = note
    user.followers = id * 10
    user.followings = id
    user.isSeen = false
    return user
}

let client = CoreDataClient.shared
let source = LocalDataSource<GithubUser, GithubUserEntity>()
precondition(source.syncData(data: [user(1, "mojombo"), user(2, "defunkt"), user(3, "pjhyett")], taskContext: client.backgroundContext))
var stored = source.fetchItems(taskContext: client.mainContext)
precondition(stored.map(\.id) == [1, 2, 3] && stored.map(\.followers) == [10, 20, 30], "the first page: \(stored.map(\.id))")

// The next sync replaces users 2 and 3 and adds 4: the batch delete of their IDs, then the insert.
precondition(source.syncData(data: [user(2, "defunkt", note: "seen at a meetup"), user(3, "pjhyett"), user(4, "wycats")], taskContext: client.backgroundContext))
stored = source.fetchItems(taskContext: client.mainContext)
precondition(stored.map(\.id) == [1, 2, 3, 4], "four users: \(stored.map(\.id))")
precondition(source.fetchItems(ids: [2], taskContext: client.mainContext).first?.note == "seen at a meetup")

let request = NSFetchRequest<GithubUserEntity>(entityName: "GithubUserEntity")
request.sortDescriptors = [NSSortDescriptor(key: "id", ascending: true)]
let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: client.mainContext, sectionNameKeyPath: nil, cacheName: nil)
source.search(params: ["username": "J"], controller: controller, isEnded: false)
precondition(controller.fetchedObjects?.map(\.id) == [1, 3], "CONTAINS[c] j: \(controller.fetchedObjects?.map(\.id) ?? [])")
source.clearSearch(controller: controller)
precondition(controller.fetchedObjects?.count == 4)

// On the background context's queue, as its objects belong to it.
client.backgroundContext.performAndWait {
    let wycats = source.fetchItems(ids: [4], taskContext: client.backgroundContext).first!
    wycats.note = "Ember"
    source.updateItem(item: wycats, taskContext: client.backgroundContext)
}
// The view context merges the background save on the main queue: let the run loop drain it.
let merged = DispatchSemaphore(value: 0)
DispatchQueue.main.async { merged.signal() }
while merged.wait(timeout: .now()) == .timedOut { RunLoop.main.run(until: Date().addingTimeInterval(0.01)) }
let cells = source.fetchItems(taskContext: client.mainContext).map(\.asCellViewModel)
precondition(cells.map { $0.hasNote ?? false } == [false, true, false, true], "the cells' notes: \(cells.map { $0.hasNote ?? false })")
print("tawktestios: 4 users synced in two pages by batch delete and insert, searched, one note saved")
