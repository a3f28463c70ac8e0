import CoreData
import UIKit

/// A parameter that every call site fills with objects fetched from one context holds
/// objects of that context.
final class Song: NSManagedObject {
    @NSManaged var title: String?
}

final class Playlist: NSManagedObject {
    @NSManaged var songs: NSSet?
}

final class PlaylistBuilder {
    let buildContext: NSManagedObjectContext

    init(container: NSPersistentContainer) {
        buildContext = container.newBackgroundContext()
    }

    // object-across-queues, the bug: the view context's songs, used inside the build
    // context's perform.
    func build(with songs: [Song]) {
        buildContext.perform {
            let playlist = Playlist(context: self.buildContext)
            playlist.songs = NSSet(array: songs) // expect: object-across-queues
            try? self.buildContext.save()
        }
    }

    // The correct twin: objectIDs cross, and the build context gets its own objects.
    func buildFixed(with songIDs: [NSManagedObjectID]) {
        buildContext.perform {
            let playlist = Playlist(context: self.buildContext)
            playlist.songs = NSSet(array: songIDs.map { self.buildContext.object(with: $0) })
            try? self.buildContext.save()
        }
    }
}

final class PlaylistViewController: UIViewController {
    var container: NSPersistentContainer!
    var builder: PlaylistBuilder!

    @IBAction func makePlaylist(_ sender: Any) {
        let request = NSFetchRequest<Song>(entityName: "Song")
        request.fetchLimit = 20
        let songs = (try? container.viewContext.fetch(request)) ?? []
        builder.build(with: songs)
        builder.buildFixed(with: songs.map(\.objectID))
    }
}
