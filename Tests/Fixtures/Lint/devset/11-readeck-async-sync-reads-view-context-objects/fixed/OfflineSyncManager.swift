// The fixed twin of ../bug/OfflineSyncManager.swift.txt (ilyas-hallak/readeck-ios
// 9b4f6f0): the fields are read inside performAndWait on the viewContext; only value
// snapshots reach the async loop.
import CoreData
import Foundation

final class OfflineBookmark: NSManagedObject {
    @NSManaged var url: String?
    @NSManaged var title: String?
}

final class CoreDataManager {
    static let shared = CoreDataManager()
    let persistentContainer = NSPersistentContainer(name: "readeck")
    var context: NSManagedObjectContext { persistentContainer.viewContext }
}

protocol BookmarkAPI: Sendable {
    func createBookmark(url: String, title: String) async throws
}

struct BookmarkSnapshot: Sendable {
    var url: String
    var title: String
}

open class OfflineSyncManager: @unchecked Sendable {
    private let coreDataManager = CoreDataManager.shared
    private let api: BookmarkAPI

    init(api: BookmarkAPI) {
        self.api = api
    }

    func syncOfflineBookmarks() async -> Int {
        var synced = 0
        for snapshot in getOfflineBookmarkSnapshots() {
            do {
                try await api.createBookmark(url: snapshot.url, title: snapshot.title)
                synced += 1
            } catch {
                continue
            }
        }
        return synced
    }

    func getOfflineBookmarkSnapshots() -> [BookmarkSnapshot] {
        let context = coreDataManager.context
        var snapshots: [BookmarkSnapshot] = []
        context.performAndWait {
            let bookmarks = (try? context.fetch(NSFetchRequest<OfflineBookmark>(entityName: "OfflineBookmark"))) ?? []
            snapshots = bookmarks.compactMap { bookmark in
                bookmark.url.map { BookmarkSnapshot(url: $0, title: bookmark.title ?? "") }
            }
        }
        return snapshots
    }
}
